"""Writes the real-JAX trace fixtures: ``python runners/python/write_trace_fixture.py [OUT_DIR]``.

OUT_DIR defaults to ``test/fixtures/trace``. Profiles a small MLP (two matmuls, a bias, a tanh) on
the CPU under ``jax.profiler.trace`` and keeps both files the profiler wrote in that one session:
``mlp.trace.json.gz`` (the Perfetto JSON) and ``mlp.xplane.pb`` (XProf's XSpace protobuf), so the
two formats describe the very same events. Also writes ``mlp.op_table.json``: the harness's own
``op_table`` of the JSON, which the reducers must agree with.
"""

from __future__ import annotations

import glob
import json
import os
import shutil
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)

from seam_capture.trace import op_table, read_trace_events  # noqa: E402


def main() -> None:
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(REPO, "test", "fixtures", "trace")
    os.makedirs(out, exist_ok=True)
    import jax
    import jax.numpy as jnp

    def mlp(x, w1, b1, w2):
        return jnp.tanh(x @ w1 + b1) @ w2

    key = jax.random.key(0)
    k1, k2, k3 = jax.random.split(key, 3)
    x = jax.random.normal(k1, (64, 128), jnp.float32)
    w1 = jax.random.normal(k2, (128, 256), jnp.float32)
    b1 = jnp.zeros((256,), jnp.float32)
    w2 = jax.random.normal(k3, (256, 32), jnp.float32)
    compiled = jax.jit(mlp).lower(x, w1, b1, w2).compile()
    for _ in range(2):
        jax.block_until_ready(compiled(x, w1, b1, w2))
    log_dir = tempfile.mkdtemp(prefix="seam-trace-fixture-")
    try:
        with jax.profiler.trace(log_dir, create_perfetto_trace=True):
            for step in range(3):
                with jax.profiler.StepTraceAnnotation("train", step_num=step):
                    jax.block_until_ready(compiled(x, w1, b1, w2))
        (perfetto,) = glob.glob(os.path.join(log_dir, "**", "perfetto_trace.json.gz"), recursive=True)
        (xplane,) = glob.glob(os.path.join(log_dir, "**", "*.xplane.pb"), recursive=True)
        shutil.copyfile(perfetto, os.path.join(out, "mlp.trace.json.gz"))
        shutil.copyfile(xplane, os.path.join(out, "mlp.xplane.pb"))
        table = op_table(read_trace_events(perfetto))
        with open(os.path.join(out, "mlp.op_table.json"), "w", encoding="utf-8") as f:
            json.dump({"jax": jax.__version__, "ops": table}, f, indent=1)
            f.write("\n")
    finally:
        shutil.rmtree(log_dir, ignore_errors=True)


if __name__ == "__main__":
    main()
