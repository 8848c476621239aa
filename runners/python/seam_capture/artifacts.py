"""Each text or table JAX and XLA give for one program, from a traced, lowered and compiled stage."""

from __future__ import annotations

import math
from typing import Any, Callable


def jaxpr_text(fn: Callable[..., Any], args: list) -> str:
    """The jaxpr with each equation's source line and name stack, as ``make_jaxpr`` prints it."""
    import jax

    closed = jax.make_jaxpr(fn)(*args)
    return closed.pretty_print(source_info=True, name_stack=True) + "\n"


def stablehlo_text(lowered: Any, debug_info: bool = False) -> str:
    """The lowered StableHLO module; with ``debug_info`` it carries ``loc(...)`` and ``#loc`` aliases."""
    return lowered.as_text(debug_info=debug_info)


def hlo_text(lowered: Any) -> str:
    """HLO before optimization, with ``metadata={op_name … stack_frame_id}`` and the stack-frame tables.

    ``lowered.as_text(dialect="hlo")`` drops metadata, so print the module ourselves with
    ``print_metadata`` on; large constants are elided as XLA's default text does.
    """
    from jax._src.lib import hlo

    module = lowered.compiler_ir("hlo").get_hlo_module()
    options = hlo.HloPrintOptions()
    options.print_metadata = True
    options.print_large_constants = False
    return module.to_string(options)


def hlo_opt_text(compiled: Any) -> str:
    """The optimized (compiled) HLO, as XLA prints it after its passes."""
    return compiled.as_text()


def _number(value: Any) -> Any:
    # JSON has no NaN or infinity; XLA reports -1 or inf for "unknown" on some backends.
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def cost_dict(compiled: Any) -> dict[str, Any]:
    """``compiled.cost_analysis()`` as one flat dict (older JAX returned a list of one dict)."""
    cost = compiled.cost_analysis()
    if isinstance(cost, (list, tuple)):
        cost = cost[0] if cost else {}
    return {str(k): _number(v) for k, v in sorted((cost or {}).items())}


#: Fields of XLA's ``CompiledMemoryStats`` worth keeping (all in bytes).
MEMORY_FIELDS = (
    "generated_code_size_in_bytes",
    "argument_size_in_bytes",
    "output_size_in_bytes",
    "alias_size_in_bytes",
    "temp_size_in_bytes",
    "host_generated_code_size_in_bytes",
    "host_argument_size_in_bytes",
    "host_output_size_in_bytes",
    "host_alias_size_in_bytes",
    "host_temp_size_in_bytes",
)


def memory_dict(compiled: Any) -> dict[str, Any]:
    """``compiled.memory_analysis()`` as a dict of its byte counts; empty where the backend has none."""
    stats = compiled.memory_analysis()
    if stats is None:
        return {}
    return {f: getattr(stats, f) for f in MEMORY_FIELDS if hasattr(stats, f)}


def hlo_module_name(hlo_opt: str) -> str | None:
    """The module name from an HLO text's first line (``HloModule jit_mlp, …`` → ``jit_mlp``)."""
    for line in hlo_opt.splitlines():
        if line.startswith("HloModule "):
            return line[len("HloModule ") :].split(",", 1)[0].strip()
    return None
