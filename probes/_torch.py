"""The one door to torch: imported on first use, so `import probes` works without it."""

from __future__ import annotations

import importlib
from types import ModuleType

from lossforensics.classifiers.errors import ProbeError

INSTALL_HINT = "pip install 'lossforensics[torch]'"


def require_torch() -> ModuleType:
    """torch, or a ProbeError saying how to install it (the probes are an optional extra)."""
    try:
        return importlib.import_module("torch")
    except ImportError as exc:
        raise ProbeError(
            f"the probes need PyTorch, which is not installed ({exc}); install it with "
            f"`pip install torch==2.13.0` (pick the CPU or CUDA build you want) and then "
            f"`{INSTALL_HINT}`"
        ) from None
