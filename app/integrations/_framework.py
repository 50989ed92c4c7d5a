"""Importing a framework for its integration, with the install hint when it is missing."""

from __future__ import annotations

import importlib
from types import ModuleType


def require(module: str, extra: str) -> ModuleType:
    """Import `module`, or ImportError naming the extra that installs it."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise ImportError(
            f"lossforensics' {extra} callback needs {module.split('.')[0]}: "
            f"pip install 'lossforensics[{extra}]'"
        ) from exc
