"""Profiler capture: warm up on random inputs, trace a few runs, reduce the trace to a per-op table."""

from __future__ import annotations

import glob
import gzip
import json
import os
import shutil
import tempfile
from typing import Any, Iterable


def random_inputs(specs: list, shardings: Iterable[Any] | None = None, seed: int = 0) -> list:
    """Random arrays for the argument specs, placed with the compiled program's input shardings."""
    import jax
    import jax.numpy as jnp

    key = jax.random.key(seed)
    values = []
    for i, spec in enumerate(specs):
        k = jax.random.fold_in(key, i)
        dtype = jnp.dtype(spec.dtype)
        if jnp.issubdtype(dtype, jnp.floating) or jnp.issubdtype(dtype, jnp.complexfloating):
            values.append(jax.random.normal(k, spec.shape, dtype))
        elif jnp.issubdtype(dtype, jnp.bool_):
            values.append(jax.random.bernoulli(k, 0.5, spec.shape))
        else:
            values.append(jax.random.randint(k, spec.shape, 0, 16).astype(dtype))
    if shardings is not None:
        values = [jax.device_put(v, s) for v, s in zip(values, shardings)]
    return values


def _block(result: Any) -> None:
    import jax

    jax.block_until_ready(result)


def profile(compiled: Any, inputs: list, warmup: int, repeats: int, scratch: str) -> str:
    """Runs ``compiled`` ``warmup`` times untraced, then ``repeats`` times under ``jax.profiler``.

    Returns the path of the Perfetto trace (``perfetto_trace.json.gz``) written under ``scratch``.
    """
    import jax

    for _ in range(warmup):
        _block(compiled(*inputs))
    log_dir = tempfile.mkdtemp(prefix="profile-", dir=scratch)
    with jax.profiler.trace(log_dir, create_perfetto_trace=True):
        for _ in range(repeats):
            _block(compiled(*inputs))
    found = sorted(glob.glob(os.path.join(log_dir, "**", "perfetto_trace.json.gz"), recursive=True))
    if not found:
        raise RuntimeError("the profiler wrote no perfetto_trace.json.gz")
    return found[-1]


def read_trace_events(path: str) -> list[dict[str, Any]]:
    """The ``traceEvents`` of a Chrome/Perfetto JSON trace, gzipped or not."""
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as f:
        data = json.load(f)
    events = data.get("traceEvents", []) if isinstance(data, dict) else data
    return [e for e in events if isinstance(e, dict)]


def op_table(events: Iterable[dict[str, Any]], module: str | None = None) -> list[dict[str, Any]]:
    """Per-op rows ``{name, module, count, totalUs, meanUs}``, longest total first.

    XLA tags each executed kernel's complete event (``ph: "X"``) with ``args.hlo_op`` (the HLO
    instruction name, e.g. ``convert_exponential_fusion``) and ``args.hlo_module``; other events
    (Python frames, thread-pool bookkeeping, ``end: …`` markers) carry neither and are skipped.
    With ``module`` given, only that module's ops are kept.
    """
    rows: dict[tuple[str, str], dict[str, Any]] = {}
    for e in events:
        args = e.get("args") or {}
        op = args.get("hlo_op")
        mod = args.get("hlo_module", "")
        if e.get("ph") != "X" or not isinstance(op, str) or not op:
            continue
        if module is not None and mod != module:
            continue
        row = rows.setdefault((mod, op), {"name": op, "module": mod, "count": 0, "totalUs": 0.0})
        row["count"] += 1
        row["totalUs"] += float(e.get("dur", 0.0))
    out = []
    for row in rows.values():
        row["totalUs"] = round(row["totalUs"], 3)
        row["meanUs"] = round(row["totalUs"] / row["count"], 3)
        out.append(row)
    out.sort(key=lambda r: (-r["totalUs"], r["module"], r["name"]))
    return out


def capture_trace(compiled: Any, specs: list, module: str | None, options: dict[str, Any], out_trace: str) -> list[dict[str, Any]]:
    """Profiles ``compiled`` on random inputs, copies the trace to ``out_trace``, returns the op table."""
    warmup = int(options.get("warmup", 2))
    repeats = int(options.get("repeats", 3))
    shardings = None
    try:
        shardings = compiled.input_shardings[0]
    except (AttributeError, IndexError, TypeError):
        shardings = None
    scratch = tempfile.mkdtemp(prefix="seam-trace-", dir=options.get("scratchDir"))
    try:
        inputs = random_inputs(specs, shardings)
        path = profile(compiled, inputs, warmup, repeats, scratch)
        shutil.copyfile(path, out_trace)
        return op_table(read_trace_events(path), module)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
