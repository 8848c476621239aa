"""Resource limits a spawning agent can apply in the child before the program runs.

Everything here is safe to call from a ``preexec_fn`` or at the top of ``seam_capture.run``:
no imports beyond the standard library, no threads.
"""

from __future__ import annotations

import resource


def apply_limits(memory_bytes: int | None = None, cpu_seconds: int | None = None, file_bytes: int | None = None) -> dict[str, int]:
    """Lowers this process's address-space, CPU-time and file-size limits; returns what was set.

    A limit is only ever lowered (never raised above the current hard limit). ``RLIMIT_AS`` is
    virtual memory: XLA reserves address space beyond what it touches, so leave headroom (a few
    GiB) above the program's real need. Exceeding it raises ``MemoryError`` or kills the process.
    """
    applied: dict[str, int] = {}
    for name, res, value in (
        ("memoryBytes", resource.RLIMIT_AS, memory_bytes),
        ("cpuSeconds", resource.RLIMIT_CPU, cpu_seconds),
        ("fileBytes", resource.RLIMIT_FSIZE, file_bytes),
    ):
        if value is None:
            continue
        if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
            raise ValueError(f"{name} must be a positive integer, got {value!r}")
        _soft, hard = resource.getrlimit(res)
        limit = value if hard == resource.RLIM_INFINITY else min(value, hard)
        resource.setrlimit(res, (limit, limit))
        applied[name] = limit
    return applied
