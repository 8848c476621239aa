"""Argument specs: ``{"shape": [32, 64], "dtype": "bf16"}`` or ``"bf16[32,64]"``."""

from __future__ import annotations

import re
from dataclasses import dataclass

#: Short and XLA spellings accepted for dtypes, mapped to NumPy/JAX names.
DTYPE_ALIASES = {
    "bf16": "bfloat16",
    "f16": "float16",
    "f32": "float32",
    "f64": "float64",
    "s8": "int8",
    "s16": "int16",
    "s32": "int32",
    "s64": "int64",
    "i8": "int8",
    "i16": "int16",
    "i32": "int32",
    "i64": "int64",
    "u8": "uint8",
    "u16": "uint16",
    "u32": "uint32",
    "u64": "uint64",
    "pred": "bool",
    "f8e4m3fn": "float8_e4m3fn",
    "f8e5m2": "float8_e5m2",
}

KNOWN_DTYPES = frozenset(DTYPE_ALIASES.values()) | {
    "complex64",
    "complex128",
}

# "bf16[8192,128]", "f32[]", "s32[4, 4]"
_SPEC_TEXT = re.compile(r"^\s*([A-Za-z][A-Za-z0-9_]*)\s*\[\s*([0-9,\s]*)\]\s*$")


class SpecError(ValueError):
    """An argument spec that cannot be read; the message says which and why."""


@dataclass(frozen=True)
class ArgSpec:
    """One argument: its shape and canonical dtype name (``bfloat16``, ``int32``…)."""

    shape: tuple[int, ...]
    dtype: str

    def to_json(self) -> dict:
        return {"shape": list(self.shape), "dtype": self.dtype}


def canonical_dtype(name: str) -> str:
    """Returns the NumPy name of a dtype written either way (``bf16`` → ``bfloat16``)."""
    key = name.strip().lower()
    key = DTYPE_ALIASES.get(key, key)
    if key not in KNOWN_DTYPES:
        raise SpecError(f"unknown dtype {name!r}")
    return key


def parse_arg_spec(raw: object, index: int = 0) -> ArgSpec:
    """Reads one spec from a dict ``{shape, dtype}`` or a string ``bf16[8192,128]``."""
    where = f"argument {index}"
    if isinstance(raw, str):
        m = _SPEC_TEXT.match(raw)
        if not m:
            raise SpecError(f"{where}: expected dtype[d0,d1,...], got {raw!r}")
        dims = [d.strip() for d in m.group(2).split(",") if d.strip()]
        return ArgSpec(tuple(int(d) for d in dims), canonical_dtype(m.group(1)))
    if not isinstance(raw, dict):
        raise SpecError(f"{where}: expected an object or a string, got {type(raw).__name__}")
    shape = raw.get("shape")
    dtype = raw.get("dtype")
    if not isinstance(shape, (list, tuple)) or not all(
        isinstance(d, int) and not isinstance(d, bool) and d >= 0 for d in shape
    ):
        raise SpecError(f"{where}: shape must be a list of non-negative integers, got {shape!r}")
    if not isinstance(dtype, str):
        raise SpecError(f"{where}: dtype must be a string, got {dtype!r}")
    return ArgSpec(tuple(shape), canonical_dtype(dtype))


def parse_arg_specs(raw: object) -> list[ArgSpec]:
    """Reads the job's ``args`` list."""
    if not isinstance(raw, list):
        raise SpecError(f"args must be a list, got {type(raw).__name__}")
    return [parse_arg_spec(r, i) for i, r in enumerate(raw)]


def shape_dtype_structs(specs: list[ArgSpec]) -> list:
    """The specs as ``jax.ShapeDtypeStruct`` values (imports JAX)."""
    import jax
    import jax.numpy as jnp

    return [jax.ShapeDtypeStruct(s.shape, jnp.dtype(s.dtype)) for s in specs]
