"""Seam's capture harness: run a JAX program and write what JAX hands to XLA.

The package imports no JAX at import time, so that ``seam_capture.run`` can set
``XLA_FLAGS`` (read once, when JAX initialises its backends) from the job before
JAX is loaded. Import :func:`seam_capture.capture.capture` for in-process use.
"""

#: What a job may ask for, in the order the harness produces it.
CAPTURE_KINDS = (
    "jaxpr",
    "stablehlo",
    "stablehlo-debug",
    "hlo",
    "hlo-opt",
    "cost",
    "memory",
    "trace",
)

#: What a job gets when it names nothing: everything that needs no execution.
DEFAULT_CAPTURE = tuple(k for k in CAPTURE_KINDS if k != "trace")
