"""Writes the XLA dump-folder fixtures: ``python runners/python/xla_dump_fixtures.py [OUT_DIR]``.

OUT_DIR defaults to ``test/fixtures/xla-dump``. The MLP, naive attention and scan programs of
``programs/`` (the same argument specs and flags as ``fixtures.py``) are compiled on XLA:CPU with
``--xla_dump_to``, once plain (``<name>/``) and, for the MLP and the scanned RNN (whose loop
gets copies), with ``--xla_dump_hlo_pass_re=.*`` (``<name>-passes/``). Only the HLO-level text files are kept (the
``.txt`` dumps: HLO before and after optimization, per-pass dumps, buffer assignment, its values,
live ranges and memory-usage report); LLVM IR and object files are dropped to keep the fixtures
small. ``versions.json`` records the JAX version and the flags.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)

from fixtures import FIXTURES, Fixture, _clean_env  # noqa: E402

#: Compiles ``entry`` of a program file for the argument specs that follow (``bf16[32,64]`` …).
COMPILE = """
import importlib.util, sys, jax, jax.numpy as jnp
program, entry, specs = sys.argv[1], sys.argv[2], sys.argv[3:]
spec = importlib.util.spec_from_file_location("program", program)
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
DTYPES = {"bf16": jnp.bfloat16, "f32": jnp.float32}
def arg(s):
    dtype, dims = s.rstrip("]").split("[")
    return jax.ShapeDtypeStruct(tuple(int(d) for d in dims.split(",") if d), DTYPES[dtype])
jax.jit(getattr(module, entry)).lower(*[arg(s) for s in specs]).compile()
print(jax.__version__)
"""

#: (fixture name in ``fixtures.FIXTURES``, folder name, extra dump flags)
DUMPS = (
    ("mlp", "mlp", ()),
    ("mlp", "mlp-passes", ("--xla_dump_hlo_pass_re=.*",)),
    ("attention", "attention", ()),
    ("scan", "scan-passes", ("--xla_dump_hlo_pass_re=.*",)),
)


def write_dump(fx: Fixture, folder: str, extra: tuple[str, ...], out_root: str) -> str:
    """Compiles one program with the dump flags into ``out_root/folder``; returns the JAX version."""
    target = os.path.join(out_root, folder)
    with tempfile.TemporaryDirectory(prefix=f"seam-xla-dump-{folder}-") as tmp:
        env = _clean_env()
        env["XLA_FLAGS"] = " ".join((f"--xla_dump_to={tmp}/dump", *extra, *fx.xla_flags))
        run = subprocess.run(
            [sys.executable, "-c", COMPILE, os.path.join(HERE, "programs", fx.program), fx.entry, *fx.args],
            env=env,
            capture_output=True,
            text=True,
        )
        if run.returncode != 0:
            raise RuntimeError(f"dump {folder} failed ({run.returncode}):\n{run.stderr}")
        if os.path.isdir(target):
            shutil.rmtree(target)
        os.makedirs(target)
        for name in sorted(os.listdir(f"{tmp}/dump")):
            if name.endswith(".txt"):
                shutil.copyfile(os.path.join(tmp, "dump", name), os.path.join(target, name))
    return run.stdout.strip()


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out_dir", nargs="?", default=os.path.join(REPO, "test", "fixtures", "xla-dump"))
    opts = parser.parse_args(argv)
    by_name = {fx.name: fx for fx in FIXTURES}
    versions: dict[str, object] = {"dumps": {}}
    for name, folder, extra in DUMPS:
        fx = by_name[name]
        versions["jax"] = write_dump(fx, folder, extra, opts.out_dir)
        versions["dumps"][folder] = {  # type: ignore[index]
            "program": fx.program, "entry": fx.entry, "args": list(fx.args), "xlaFlags": ["--xla_dump_to=DIR", *extra, *fx.xla_flags],
        }
        target = os.path.join(opts.out_dir, folder)
        size = sum(os.path.getsize(os.path.join(target, n)) for n in os.listdir(target))
        print(f"{folder}: {size} bytes in {os.path.relpath(target)}", flush=True)
    with open(os.path.join(opts.out_dir, "versions.json"), "w", encoding="utf-8") as f:
        f.write(json.dumps(versions, indent=2, sort_keys=True) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
