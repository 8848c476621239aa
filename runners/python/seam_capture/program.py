"""Loading a user's program text into a fresh namespace and finding its entry function."""

from __future__ import annotations

import linecache
from typing import Any, Callable

#: The file name compiled code carries, so tracebacks and JAX source info say ``program.py:4``.
PROGRAM_FILENAME = "program.py"
#: ``__name__`` of the program's namespace (not ``__main__``: guards in it do not run).
PROGRAM_MODULE = "seam_program"


class EntryError(LookupError):
    """The entry function is missing or not callable."""


def load_program(text: str, filename: str = PROGRAM_FILENAME) -> dict[str, Any]:
    """Executes ``text`` in a new namespace and returns it; errors propagate as raised."""
    # Tracebacks print source lines through linecache; a program from a string has no file to read.
    linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)
    namespace: dict[str, Any] = {"__name__": PROGRAM_MODULE, "__file__": filename}
    code = compile(text, filename, "exec")
    exec(code, namespace)  # noqa: S102 - running the user's program is the point
    return namespace


def resolve_entry(namespace: dict[str, Any], entry: str) -> Callable[..., Any]:
    """Finds ``entry`` (a name, or ``obj.attr`` path) in the program's namespace."""
    head, *rest = entry.split(".")
    if head not in namespace:
        names = sorted(k for k, v in namespace.items() if callable(v) and not k.startswith("_"))
        raise EntryError(f"entry {entry!r} is not defined by the program (callables: {', '.join(names) or 'none'})")
    value = namespace[head]
    for part in rest:
        if not hasattr(value, part):
            raise EntryError(f"entry {entry!r}: {part!r} not found")
        value = getattr(value, part)
    if not callable(value):
        raise EntryError(f"entry {entry!r} is a {type(value).__name__}, not a function")
    return value
