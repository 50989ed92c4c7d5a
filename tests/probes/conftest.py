"""Probe tests run tiny models on one CPU thread (the machine is shared); CUDA-only tests are
marked `gpu` (tests/conftest.py skips them without a GPU)."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def _one_thread() -> None:
    try:
        import torch
    except ImportError:
        return
    torch.set_num_threads(1)
