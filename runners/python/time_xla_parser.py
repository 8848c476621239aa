"""Times XLA's own C++ HLO text parser on a file: ``python time_xla_parser.py FILE [--repeat N]``.

The parser is reached through jaxlib (``hlo_module_from_text``, which runs XLA's ``HloParser``
and builds an ``HloModule``). The file is read once; only parsing is timed, ``N`` times (default
3), and the fastest run is reported. Prints one JSON line:
``{seconds, medianSeconds, bytes, mb_per_s, api, repeat, computations}`` with MB = 10^6 bytes.
"""

from __future__ import annotations

import argparse
import importlib
import json
import statistics
import sys
import time
from typing import Any, Callable

#: Where jaxlib has exposed the parser over the versions we know of, newest first.
CANDIDATES = (
    ("jaxlib._hlo", "hlo_module_from_text"),
    ("jax._src.lib", "hlo.hlo_module_from_text"),
    ("jax._src.lib.xla_client", "_xla.hlo_module_from_text"),
    ("jax._src.lib", "xla_extension.hlo_module_from_text"),
)


def find_parser() -> tuple[Callable[[str], Any], str]:
    """The first parser entry point this jaxlib has, and its dotted name."""
    for module_name, attr_path in CANDIDATES:
        try:
            value: Any = importlib.import_module(module_name)
        except ImportError:
            continue
        for part in attr_path.split("."):
            value = getattr(value, part, None)
            if value is None:
                break
        if callable(value):
            return value, f"{module_name}.{attr_path}"
    raise RuntimeError("this jaxlib exposes no HLO text parser (tried " + ", ".join(f"{m}.{a}" for m, a in CANDIDATES) + ")")


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("file")
    parser.add_argument("--repeat", type=int, default=3)
    opts = parser.parse_args(argv)
    if opts.repeat < 1:
        parser.error("--repeat must be at least 1")

    parse, api = find_parser()
    with open(opts.file, encoding="utf-8") as f:
        text = f.read()
    size = len(text.encode("utf-8"))
    times = []
    module = None
    for _ in range(opts.repeat):
        module = None  # free the previous module before the next parse, so runs do not overlap in memory
        start = time.perf_counter()
        module = parse(text)
        times.append(time.perf_counter() - start)
    best = min(times)
    result = {
        "seconds": round(best, 6),
        "medianSeconds": round(statistics.median(times), 6),
        "bytes": size,
        "mb_per_s": round(size / 1e6 / best, 3) if best > 0 else None,
        "api": api,
        "repeat": opts.repeat,
        "computations": len(module.computations()) if module is not None else 0,
    }
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
