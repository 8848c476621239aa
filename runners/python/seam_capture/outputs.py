"""Writing a capture's artifacts to a directory, with a manifest of what each file is."""

from __future__ import annotations

import hashlib
import json
import os
from typing import Any

#: Artifact → (file name, document kind in Seam, or None for tables that are not dumps).
ARTIFACT_FILES: dict[str, tuple[str, str | None]] = {
    "jaxpr": ("jaxpr.txt", "jaxpr"),
    "stablehlo": ("stablehlo.mlir", "stablehlo"),
    "stablehlo-debug": ("stablehlo-debug.mlir", "stablehlo"),
    "hlo": ("hlo.txt", "hlo"),
    "hlo-opt": ("hlo-opt.txt", "hlo-opt"),
    "cost": ("cost.json", None),
    "memory": ("memory.json", None),
    "trace": ("trace.json.gz", "trace"),
    "ops": ("ops.json", None),
}


def json_text(value: Any) -> str:
    """Stable JSON: sorted keys, two-space indent, trailing newline (diffs well when checked in)."""
    return json.dumps(value, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def _bytes_of(value: Any) -> bytes:
    if isinstance(value, bytes):
        return value
    if isinstance(value, str):
        return value.encode("utf-8")
    return json_text(value).encode("utf-8")


def write_artifacts(artifacts: dict[str, Any], out_dir: str) -> list[dict[str, Any]]:
    """Writes each artifact to its file under ``out_dir``; returns manifest rows.

    Each row is ``{name, file, kind, bytes, sha256}``; ``kind`` is the Seam document kind or null.
    """
    os.makedirs(out_dir, exist_ok=True)
    rows = []
    for name, value in artifacts.items():
        file_name, kind = ARTIFACT_FILES[name]
        data = _bytes_of(value)
        with open(os.path.join(out_dir, file_name), "wb") as f:
            f.write(data)
        rows.append(
            {
                "name": name,
                "file": file_name,
                "kind": kind,
                "bytes": len(data),
                "sha256": hashlib.sha256(data).hexdigest(),
            }
        )
    return rows


def write_json(path: str, value: Any) -> None:
    """Writes ``value`` as stable JSON, replacing the file atomically."""
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(json_text(value))
    os.replace(tmp, path)
