"""Measured copy bandwidth: a short microbenchmark run beside a trace, and the nameplate it is judged by.

The gate converts hardware time to bytes at the rate the device really moves memory, not at its
datasheet figure. The benchmark is one jitted elementwise kernel (``x + 1`` over a large ``f32``
array, which reads every byte once and writes every byte once, so bytes = 2 × the array's size),
warmed up, then dispatched ``chain`` times in a row (each call reads the previous result, so the
calls run back to back on the device and dispatch overlaps them) and timed until the last one is
ready. The median of a few such trials is kept, the best one too.
"""

from __future__ import annotations

import statistics
import time
from typing import Any

#: Published peak memory bandwidth, in bytes per second, by device kind as JAX reports it
#: (``device.device_kind``, compared lowercased): the vendors' datasheet figures. Ordered so that
#: a more specific name is tried before a shorter one it contains. CPUs have none: a host's memory
#: bandwidth depends on its sockets, channels and DIMMs, which JAX does not report.
NAMEPLATE_BYTES_PER_S: tuple[tuple[str, float], ...] = (
    ("tpu v6 lite", 1640e9),  # v6e (Trillium)
    ("tpu v6e", 1640e9),
    ("tpu v5 lite", 819e9),  # v5e
    ("tpu v5e", 819e9),
    ("tpu v5p", 2765e9),
    ("tpu v5", 2765e9),  # v5p reports itself as "TPU v5"
    ("tpu v4", 1200e9),
    ("h200", 4800e9),
    ("h100 pcie", 2000e9),
    ("h100", 3350e9),  # SXM, HBM3
    ("a100-sxm4-80gb", 2039e9),
    ("a100 80gb pcie", 1935e9),
    ("a100", 1555e9),  # 40 GB, SXM4 or PCIe
)

#: Elements of the benchmark's array: 64 Mi float32 = 256 MiB, past every on-chip cache and
#: scratchpad (H100/H200 L2, TPU CMEM, server L3), small beside any accelerator's memory.
DEFAULT_ELEMENTS = 64 * 1024 * 1024


def nameplate_bytes_per_s(device_kind: str | None) -> float | None:
    """The datasheet memory bandwidth for ``device_kind``, or ``None`` when it is not known (CPUs)."""
    if not device_kind:
        return None
    kind = device_kind.lower()
    for needle, rate in NAMEPLATE_BYTES_PER_S:
        if needle in kind:
            return rate
    return None


def measure_copy_bandwidth(elements: int = DEFAULT_ELEMENTS, chain: int = 8, trials: int = 5, warmup: int = 2) -> dict[str, Any]:
    """Times ``x + 1`` over ``elements`` float32 on the default device; returns the provenance record.

    ``{method, bytes, calls, trials, seconds, bytesPerSecond, bestBytesPerSecond, deviceKind,
    nameplateBytesPerSecond, fractionOfNameplate}``: ``bytes`` is what one call reads and writes,
    ``seconds`` the median time of one call, ``bytesPerSecond`` = bytes / seconds. The nameplate
    and the fraction are ``None`` where the device kind has no known figure.
    """
    if elements < 1 or chain < 1 or trials < 1:
        raise ValueError("elements, chain and trials must be positive")
    import jax
    import jax.numpy as jnp

    device = jax.devices()[0]
    # The input is donated: each call writes over the buffer it read, so no call pays for a fresh
    # allocation (page faults on a host), only for moving the bytes.
    step = jax.jit(lambda x: x + 1.0, donate_argnums=0)
    x = jax.block_until_ready(jnp.zeros((elements,), jnp.float32))
    for _ in range(warmup):
        x = jax.block_until_ready(step(x))
    per_call: list[float] = []
    for _ in range(trials):
        start = time.perf_counter()
        for _ in range(chain):
            x = step(x)
        jax.block_until_ready(x)
        per_call.append((time.perf_counter() - start) / chain)
    moved = 2 * elements * 4
    seconds = statistics.median(per_call)
    kind = getattr(device, "device_kind", None)
    nameplate = nameplate_bytes_per_s(kind)
    rate = moved / seconds
    return {
        "method": f"jit(x + 1) over f32[{elements}], {chain} calls back to back, median of {trials}",
        "bytes": moved,
        "calls": chain,
        "trials": trials,
        "seconds": round(seconds, 9),
        "bytesPerSecond": round(rate),
        "bestBytesPerSecond": round(moved / min(per_call)),
        "deviceKind": kind,
        "nameplateBytesPerSecond": nameplate,
        "fractionOfNameplate": None if nameplate is None else round(rate / nameplate, 4),
    }
