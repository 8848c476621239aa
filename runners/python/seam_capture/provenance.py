"""Where a capture ran: platform, devices, versions and flags."""

from __future__ import annotations

import os
import platform
from typing import Any


def provenance() -> dict[str, Any]:
    """Device and version facts for the capture's metadata (imports JAX). No host names or paths."""
    import jax
    import jaxlib

    devices = jax.devices()
    first = devices[0] if devices else None
    return {
        "platform": jax.default_backend(),
        "deviceKind": getattr(first, "device_kind", None),
        "deviceCount": len(devices),
        "processCount": jax.process_count(),
        "jax": jax.__version__,
        "jaxlib": jaxlib.__version__,
        "python": platform.python_version(),
        "xlaFlags": os.environ.get("XLA_FLAGS", ""),
    }
