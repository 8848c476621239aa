"""Self-checks of the harness's pure parts, without pytest: ``python runners/python/selfcheck.py``.

Prints one ``ok NAME`` line per check and exits non-zero on the first failure, with its traceback.
The TypeScript test suite runs this file; it needs no JAX.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from seam_capture.artifacts import hlo_module_name  # noqa: E402
from seam_capture.program import EntryError, load_program, resolve_entry  # noqa: E402
from seam_capture.run import JobError, program_traceback, read_job  # noqa: E402
from seam_capture.specs import ArgSpec, SpecError, parse_arg_spec, parse_arg_specs  # noqa: E402
from seam_capture.trace import op_table  # noqa: E402

CHECKS = []


def check(fn):
    CHECKS.append(fn)
    return fn


def raises(exc_type, fn, *args, match: str = ""):
    try:
        fn(*args)
    except exc_type as e:
        assert match in str(e), f"{exc_type.__name__} message {str(e)!r} lacks {match!r}"
        return
    raise AssertionError(f"{fn.__name__}{args!r} did not raise {exc_type.__name__}")


@check
def specs_read_both_forms():
    assert parse_arg_spec("bf16[8192,128]") == ArgSpec((8192, 128), "bfloat16")
    assert parse_arg_spec(" f32[] ") == ArgSpec((), "float32")
    assert parse_arg_spec({"shape": [2, 3], "dtype": "int32"}) == ArgSpec((2, 3), "int32")
    assert parse_arg_spec("pred[4]") == ArgSpec((4,), "bool")
    assert [s.dtype for s in parse_arg_specs(["s8[1]", "u32[1]"])] == ["int8", "uint32"]


@check
def specs_reject_bad_input_with_the_argument_named():
    raises(SpecError, parse_arg_spec, "bf16(8,8)", 0, match="argument 0")
    raises(SpecError, parse_arg_spec, "q32[8]", 0, match="unknown dtype 'q32'")
    raises(SpecError, parse_arg_spec, {"shape": [-1], "dtype": "f32"}, 2, match="argument 2")
    raises(SpecError, parse_arg_spec, {"shape": [True], "dtype": "f32"}, 0, match="non-negative")
    raises(SpecError, parse_arg_spec, {"shape": [1]}, 0, match="dtype")
    raises(SpecError, parse_arg_specs, "f32[1]", match="list")


@check
def program_runs_in_a_fresh_namespace():
    ns = load_program("import math\nX = __name__\ndef f(a):\n    return math.sqrt(a)\n")
    assert ns["X"] == "seam_program"
    assert resolve_entry(ns, "f")(9.0) == 3.0
    assert "__main__" not in load_program("Y = 1\n").values()
    raises(EntryError, resolve_entry, ns, "g", match="callables: f")
    raises(EntryError, resolve_entry, ns, "X", match="not a function")


@check
def tracebacks_start_in_the_program():
    try:
        load_program("def f():\n    return 1 / 0\nf()\n")
    except ZeroDivisionError as e:
        text = program_traceback(e)
    assert 'File "program.py", line 3' in text and 'File "program.py", line 2' in text, text
    assert "seam_capture" not in text, text
    try:
        load_program("def f(:\n    pass\n")
    except SyntaxError as e:
        text = program_traceback(e)
    assert 'File "program.py", line 1' in text and text.rstrip().endswith("SyntaxError: invalid syntax"), text
    assert "seam_capture" not in text, text


@check
def jobs_are_checked_before_anything_runs():
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "job.json")

        def write(value):
            with open(path, "w") as f:
                f.write(value if isinstance(value, str) else json.dumps(value))

        write("{not json")
        raises(JobError, read_job, path, match="cannot read job")
        write({"program": "", "entry": "f"})
        raises(JobError, read_job, path, match="job.program")
        write({"program": "x", "entry": "f", "capture": ["jaxpr", "flamegraph"]})
        raises(JobError, read_job, path, match="job.capture")
        write({"program": "x", "entry": "f", "options": {"xlaFlags": ["rm -rf"]}})
        raises(JobError, read_job, path, match="xlaFlags")
        write({"program": "x", "entry": "f", "options": {"xlaFlags": "--a=1 --b"}})
        assert read_job(path)["options"]["xlaFlags"] == ["--a=1", "--b"]


@check
def op_table_keeps_only_tagged_kernels_of_the_module():
    events = [
        {"ph": "X", "name": "fusion.1", "dur": 10.0, "args": {"hlo_op": "fusion.1", "hlo_module": "jit_f"}},
        {"ph": "X", "name": "fusion.1", "dur": 30.0, "args": {"hlo_op": "fusion.1", "hlo_module": "jit_f"}},
        {"ph": "X", "name": "dot.2", "dur": 5.0, "args": {"hlo_op": "dot.2", "hlo_module": "jit_f"}},
        {"ph": "X", "name": "end: fusion.1", "dur": 1.0, "args": {"_src": "thunk_executor.cc"}},
        {"ph": "X", "name": "other", "dur": 99.0, "args": {"hlo_op": "x", "hlo_module": "jit_g"}},
        {"ph": "M", "name": "thread_name", "args": {"name": "python"}},
        {"ph": "i", "name": "fusion.1", "args": {"hlo_op": "fusion.1", "hlo_module": "jit_f"}},
    ]
    rows = op_table(events, "jit_f")
    assert rows == [
        {"name": "fusion.1", "module": "jit_f", "count": 2, "totalUs": 40.0, "meanUs": 20.0},
        {"name": "dot.2", "module": "jit_f", "count": 1, "totalUs": 5.0, "meanUs": 5.0},
    ], rows
    assert len(op_table(events)) == 3


@check
def module_name_comes_from_the_header():
    assert hlo_module_name("HloModule jit_mlp, is_scheduled=true\n\nENTRY") == "jit_mlp"
    assert hlo_module_name("HloModule m\n") == "m"
    assert hlo_module_name("module @jit_f {}") is None


@check
def memory_limit_stops_a_huge_allocation():
    child = (
        "from seam_capture.limits import apply_limits\n"
        "apply_limits(memory_bytes=512 * 2**20)\n"
        "try:\n"
        "    bytearray(2 * 2**30)\n"
        "except MemoryError:\n"
        "    print('MemoryError')\n"
    )
    env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.abspath(__file__)))
    out = subprocess.run([sys.executable, "-c", child], capture_output=True, text=True, env=env, timeout=60)
    assert out.stdout.strip() == "MemoryError", (out.returncode, out.stdout, out.stderr)
    from seam_capture.limits import apply_limits

    raises(ValueError, apply_limits, 0, match="memoryBytes")
    raises(ValueError, apply_limits, None, True, match="cpuSeconds")


def main() -> int:
    for fn in CHECKS:
        try:
            fn()
        except Exception:  # noqa: BLE001 - report which check failed, then stop
            traceback.print_exc()
            print(f"FAILED {fn.__name__}")
            return 1
        print(f"ok {fn.__name__}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
