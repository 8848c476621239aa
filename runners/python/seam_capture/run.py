"""``python -m seam_capture.run JOB.json OUT_DIR``: one capture job, JSON in, files out.

The job is ``{program, entry, args: [{shape, dtype} | "bf16[8,128]"], capture: [...],
options: {xlaFlags, warmup, repeats, memoryBytes, cpuSeconds, scratchDir}}``. On success each
artifact is written to OUT_DIR with ``result.json`` listing them, and the exit status is 0. A job
that cannot be read writes ``error.json`` with ``stage: "job"`` and exits 2; a program that raises
(a syntax error included) writes ``error.json`` with ``stage: "program"`` and its Python traceback,
and exits 1. Nothing from the job is printed, so stdout and stderr are the program's own.
"""

from __future__ import annotations

import json
import os
import site
import sys
import sysconfig
import traceback
from types import TracebackType
from typing import Any

from . import CAPTURE_KINDS
from .limits import apply_limits
from .outputs import write_artifacts, write_json
from .program import PROGRAM_FILENAME

EXIT_PROGRAM_ERROR = 1
EXIT_JOB_ERROR = 2


class JobError(ValueError):
    """The job file is unreadable or malformed."""


def read_job(path: str) -> dict[str, Any]:
    """Reads and checks a job file; raises :class:`JobError` with the first fault found."""
    try:
        with open(path, encoding="utf-8") as f:
            job = json.load(f)
    except (OSError, ValueError) as e:
        raise JobError(f"cannot read job {path!r}: {e}") from e
    if not isinstance(job, dict):
        raise JobError("the job must be a JSON object")
    for key in ("program", "entry"):
        if not isinstance(job.get(key), str) or not job[key]:
            raise JobError(f"job.{key} must be a non-empty string")
    if not isinstance(job.get("args", []), list):
        raise JobError("job.args must be a list")
    what = job.get("capture")
    if what is not None and (not isinstance(what, list) or not all(w in CAPTURE_KINDS for w in what)):
        raise JobError(f"job.capture must be a list of {list(CAPTURE_KINDS)}")
    options = job.get("options") or {}
    if not isinstance(options, dict):
        raise JobError("job.options must be an object")
    flags = options.get("xlaFlags", [])
    if isinstance(flags, str):
        flags = flags.split()
    if not isinstance(flags, list) or not all(isinstance(f, str) and f.startswith("--") for f in flags):
        raise JobError("job.options.xlaFlags must be a string or a list of --flags")
    options["xlaFlags"] = flags
    job["options"] = options
    return job


def program_traceback(exc: BaseException) -> str:
    """The traceback from the program's first frame on, without the harness's frames above it."""
    tb: TracebackType | None = exc.__traceback__
    while tb is not None and tb.tb_frame.f_code.co_filename != PROGRAM_FILENAME:
        tb = tb.tb_next
    if tb is None and not isinstance(exc, SyntaxError):
        tb = exc.__traceback__
    text = "".join(traceback.format_exception(type(exc), exc, tb))
    # Library frames keep their place but not the host's directory layout.
    for root in sorted(set(site.getsitepackages()) | {sysconfig.get_path("stdlib")}, key=len, reverse=True):
        text = text.replace(root + os.sep, "<" + os.path.basename(root) + ">/")
    return text


def _error(out_dir: str, stage: str, exc: BaseException, text: str) -> None:
    os.makedirs(out_dir, exist_ok=True)
    write_json(
        os.path.join(out_dir, "error.json"),
        {"ok": False, "stage": stage, "type": type(exc).__name__, "message": str(exc), "traceback": text},
    )


def main(argv: list[str]) -> int:
    """Runs one job; returns the exit status."""
    if len(argv) != 2:
        print("usage: python -m seam_capture.run JOB.json OUT_DIR", file=sys.stderr)
        return EXIT_JOB_ERROR
    job_path, out_dir = argv
    try:
        job = read_job(job_path)
        options = job["options"]
        apply_limits(options.get("memoryBytes"), options.get("cpuSeconds"))
    except (JobError, ValueError) as e:
        _error(out_dir, "job", e, "")
        print(f"seam_capture: {e}", file=sys.stderr)
        return EXIT_JOB_ERROR

    if options["xlaFlags"]:
        # JAX reads XLA_FLAGS once, when its backend starts: set it before the first import.
        os.environ["XLA_FLAGS"] = " ".join([os.environ.get("XLA_FLAGS", ""), *options["xlaFlags"]]).strip()

    from .capture import CaptureRequestError, capture
    from .specs import SpecError

    try:
        result = capture(job["program"], job["entry"], job.get("args", []), job.get("capture"), options)
    except (CaptureRequestError, SpecError) as e:
        _error(out_dir, "job", e, "")
        print(f"seam_capture: {e}", file=sys.stderr)
        return EXIT_JOB_ERROR
    except Exception as e:  # noqa: BLE001 - any error of the user's program is reported, not raised
        text = program_traceback(e)
        _error(out_dir, "program", e, text)
        sys.stderr.write(text)
        return EXIT_PROGRAM_ERROR

    rows = write_artifacts(result["artifacts"], out_dir)
    write_json(
        os.path.join(out_dir, "result.json"),
        {
            "ok": True,
            "entry": job["entry"],
            "module": result["module"],
            "args": result["args"],
            "capture": [r["name"] for r in rows],
            "provenance": result["provenance"],
            "timings": result["timings"],
            "artifacts": rows,
            **({"trace": result["trace"]} if "trace" in result else {}),
        },
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
