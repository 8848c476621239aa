"""``capture()``: one program in, the artifacts asked for out, in this process."""

from __future__ import annotations

import os
import tempfile
import time
from typing import Any, Iterable

from . import CAPTURE_KINDS, DEFAULT_CAPTURE
from .artifacts import (
    cost_dict,
    hlo_module_name,
    hlo_opt_text,
    hlo_text,
    jaxpr_text,
    memory_dict,
    stablehlo_text,
)
from .program import load_program, resolve_entry
from .provenance import provenance
from .specs import ArgSpec, parse_arg_spec, shape_dtype_structs

_HERE = os.path.dirname(os.path.abspath(__file__))


class CaptureRequestError(ValueError):
    """The request itself is wrong (unknown capture kind); nothing was run."""


def _exclude_harness_frames() -> None:
    # JAX attributes each op to the innermost frame outside its own tree; without this the
    # harness's own call into jax.jit would appear as a caller in every `loc(...)`/stack frame.
    from jax._src import source_info_util

    for path in (_HERE + os.sep, "<frozen "):  # "<frozen runpy>" runs `python -m seam_capture.run`
        if path not in source_info_util._exclude_paths:
            source_info_util.register_exclusion(path)


def normalize_what(what: Iterable[str] | None) -> list[str]:
    """The kinds asked for, checked and in production order; ``None`` means the default set."""
    wanted = list(DEFAULT_CAPTURE if what is None else what)
    unknown = [w for w in wanted if w not in CAPTURE_KINDS]
    if unknown:
        raise CaptureRequestError(f"unknown capture kind(s) {unknown}; known: {list(CAPTURE_KINDS)}")
    return [k for k in CAPTURE_KINDS if k in wanted]


def _jit(fn: Any) -> Any:
    import jax

    # An entry that is already `jax.jit(..., in_shardings=…)` keeps its own shardings.
    return fn if hasattr(fn, "lower") else jax.jit(fn)


def capture(
    program_text: str,
    entry: str,
    arg_specs: list[Any] | list[ArgSpec],
    what: Iterable[str] | None = None,
    options: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Runs the program text and returns ``{artifacts, module, provenance, timings}``.

    ``artifacts`` maps each kind asked for to its value: text for ``jaxpr``, ``stablehlo``,
    ``stablehlo-debug``, ``hlo``, ``hlo-opt``; dicts for ``cost`` and ``memory``; for ``trace``
    the gzipped Perfetto trace bytes, plus ``ops``, the per-op table; with a trace, the
    provenance also holds ``bandwidth`` (the measured copy bandwidth, see :mod:`.bandwidth`) and
    the result ``trace``: ``{warmup, repeats}``, the runs the trace covers. ``options`` may hold
    ``warmup`` (default 2) and ``repeats`` (default 3) for the trace, and ``scratchDir``.
    ``XLA_FLAGS`` must already be set: JAX reads it once, when its backend starts.
    Exceptions from the program (syntax errors included) propagate unchanged.
    """
    options = dict(options or {})
    kinds = normalize_what(what)
    specs = [s if isinstance(s, ArgSpec) else parse_arg_spec(s, i) for i, s in enumerate(arg_specs)]
    timings: dict[str, float] = {}

    def timed(name: str, start: float) -> None:
        timings[name] = round(time.perf_counter() - start, 6)

    t = time.perf_counter()
    import jax  # noqa: F401 - the import is timed on its own

    _exclude_harness_frames()
    timed("importSeconds", t)

    t = time.perf_counter()
    namespace = load_program(program_text)
    fn = resolve_entry(namespace, entry)
    timed("programSeconds", t)

    args = shape_dtype_structs(specs)
    artifacts: dict[str, Any] = {}
    if "jaxpr" in kinds:
        t = time.perf_counter()
        artifacts["jaxpr"] = jaxpr_text(fn, args)
        timed("jaxprSeconds", t)

    t = time.perf_counter()
    lowered = _jit(fn).lower(*args)
    timed("lowerSeconds", t)
    if "stablehlo" in kinds:
        artifacts["stablehlo"] = stablehlo_text(lowered)
    if "stablehlo-debug" in kinds:
        artifacts["stablehlo-debug"] = stablehlo_text(lowered, debug_info=True)
    if "hlo" in kinds:
        artifacts["hlo"] = hlo_text(lowered)

    module = None
    if any(k in kinds for k in ("hlo-opt", "cost", "memory", "trace")):
        t = time.perf_counter()
        compiled = lowered.compile()
        timed("compileSeconds", t)
        opt = hlo_opt_text(compiled)
        module = hlo_module_name(opt)
        if "hlo-opt" in kinds:
            artifacts["hlo-opt"] = opt
        if "cost" in kinds:
            artifacts["cost"] = cost_dict(compiled)
        if "memory" in kinds:
            artifacts["memory"] = memory_dict(compiled)
        if "trace" in kinds:
            from .trace import capture_trace

            t = time.perf_counter()
            fd, trace_path = tempfile.mkstemp(suffix=".json.gz", dir=options.get("scratchDir"))
            os.close(fd)
            try:
                ops = capture_trace(compiled, specs, module, options, trace_path)
                with open(trace_path, "rb") as f:
                    artifacts["trace"] = f.read()
                artifacts["ops"] = ops
            finally:
                os.unlink(trace_path)
            timed("traceSeconds", t)

    facts = provenance()
    trace_runs = None
    if "trace" in kinds:
        from .bandwidth import measure_copy_bandwidth

        # The gate turns the trace's hardware time into bytes at this device's measured rate.
        t = time.perf_counter()
        facts["bandwidth"] = measure_copy_bandwidth()
        timed("bandwidthSeconds", t)
        trace_runs = {"warmup": int(options.get("warmup", 2)), "repeats": int(options.get("repeats", 3))}

    result = {
        "artifacts": artifacts,
        "module": module,
        "args": [s.to_json() for s in specs],
        "provenance": facts,
        "timings": timings,
    }
    if trace_runs is not None:
        result["trace"] = trace_runs
    return result
