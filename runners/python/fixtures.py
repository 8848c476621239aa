"""Writes the real-JAX IR fixtures: ``python runners/python/fixtures.py [OUT_DIR] [--only a,b]``.

OUT_DIR defaults to ``test/fixtures/ir``. Each program in ``programs/`` is captured in its own
Python process through ``seam_capture.run`` (so each gets its own ``XLA_FLAGS``, read once when
JAX starts) and lands in ``OUT_DIR/<name>/``: ``program.py``, ``jaxpr.txt``, ``stablehlo.mlir``,
``stablehlo-debug.mlir``, ``hlo.txt``, ``hlo-opt.txt``, ``cost.json``, ``memory.json`` and
``meta.json`` (entry, args, flags, versions). Nothing in them depends on the machine or the time.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)

from seam_capture import DEFAULT_CAPTURE  # noqa: E402
from seam_capture.outputs import ARTIFACT_FILES, json_text  # noqa: E402

#: Without it XLA:CPU folds all of naive attention into one kCustom `ynn_fusion`, so the score
#: matrix never leaves the kernel; with it, the CPU schedule keeps separate kernels, as GPUs do.
NO_YNN_FUSION = "--xla_cpu_experimental_ynn_fusion_type="


@dataclass(frozen=True)
class Fixture:
    """One program to capture: its file in ``programs/``, entry function, argument specs, flags."""

    name: str
    program: str
    entry: str
    args: tuple[str, ...]
    xla_flags: tuple[str, ...] = ()
    capture: tuple[str, ...] = field(default=DEFAULT_CAPTURE)


FIXTURES = (
    Fixture("mlp", "mlp.py", "mlp", ("bf16[32,64]", "bf16[64,128]", "bf16[128]")),
    Fixture("attention", "attention.py", "attention", ("bf16[8192,128]",) * 3, (NO_YNN_FUSION,)),
    Fixture("attention-fused", "attention.py", "attention", ("bf16[8192,128]",) * 3),
    Fixture("scan", "scan.py", "rnn", ("f32[16]", "f32[8,16]", "f32[16,16]")),
    Fixture("custom_jvp", "custom_jvp.py", "loss", ("f32[64]",)),
    Fixture("conv", "conv.py", "conv", ("f32[2,16,16,8]", "f32[3,3,8,16]")),
    Fixture(
        "sharded",
        "sharded.py",
        "sharded_mlp",
        ("f32[64,32]", "f32[32,64]"),
        ("--xla_force_host_platform_device_count=8",),
    ),
)


def _clean_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("XLA_FLAGS", "JAX_PLATFORMS", "PYTHONPATH")}
    env["PYTHONPATH"] = HERE
    env["JAX_PLATFORMS"] = "cpu"
    return env


def write_fixture(fx: Fixture, out_root: str) -> str:
    """Captures one fixture into ``out_root/<name>/``; raises with the traceback if JAX fails."""
    with open(os.path.join(HERE, "programs", fx.program), encoding="utf-8") as f:
        program = f.read()
    job = {
        "program": program,
        "entry": fx.entry,
        "args": list(fx.args),
        "capture": list(fx.capture),
        "options": {"xlaFlags": list(fx.xla_flags)},
    }
    with tempfile.TemporaryDirectory(prefix=f"seam-fixture-{fx.name}-") as tmp:
        job_path = os.path.join(tmp, "job.json")
        raw = os.path.join(tmp, "out")
        with open(job_path, "w", encoding="utf-8") as f:
            json.dump(job, f)
        run = subprocess.run(
            [sys.executable, "-m", "seam_capture.run", job_path, raw],
            cwd=tmp,
            env=_clean_env(),
            capture_output=True,
            text=True,
        )
        if run.returncode != 0:
            raise RuntimeError(f"fixture {fx.name} failed ({run.returncode}):\n{run.stderr}")
        with open(os.path.join(raw, "result.json"), encoding="utf-8") as f:
            result = json.load(f)
        target = os.path.join(out_root, fx.name)
        if os.path.isdir(target):
            shutil.rmtree(target)
        os.makedirs(target)
        for row in result["artifacts"]:
            shutil.copyfile(os.path.join(raw, row["file"]), os.path.join(target, row["file"]))
    with open(os.path.join(target, "program.py"), "w", encoding="utf-8") as f:
        f.write(program)
    meta = {
        "name": fx.name,
        "entry": fx.entry,
        "args": result["args"],
        "xlaFlags": list(fx.xla_flags),
        "module": result["module"],
        "files": sorted(["program.py"] + [ARTIFACT_FILES[k][0] for k in fx.capture]),
        "provenance": result["provenance"],
    }
    with open(os.path.join(target, "meta.json"), "w", encoding="utf-8") as f:
        f.write(json_text(meta))
    return target


def main(argv: list[str]) -> int:
    """Writes every fixture (or those named with ``--only``); prints one line per fixture."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out_dir", nargs="?", default=os.path.join(REPO, "test", "fixtures", "ir"))
    parser.add_argument("--only", default="", help="comma-separated fixture names")
    opts = parser.parse_args(argv)
    only = {n for n in opts.only.split(",") if n}
    unknown = only - {fx.name for fx in FIXTURES}
    if unknown:
        parser.error(f"unknown fixture(s): {', '.join(sorted(unknown))}")
    os.makedirs(opts.out_dir, exist_ok=True)
    write_fixtures([fx for fx in FIXTURES if not only or fx.name in only], opts.out_dir)
    return 0


def write_fixtures(fixtures: "list[Fixture] | tuple[Fixture, ...]", out_root: str) -> None:
    """Writes each fixture into ``out_root/<name>/``, printing its size as it goes."""
    for fx in fixtures:
        target = write_fixture(fx, out_root)
        size = sum(os.path.getsize(os.path.join(target, n)) for n in os.listdir(target))
        print(f"{fx.name}: {size} bytes in {os.path.relpath(target)}", flush=True)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
