"""Probe tests run tiny models on one CPU thread (the machine is shared); CUDA-only tests are
marked `gpu` and skip without a GPU."""

from __future__ import annotations

from pathlib import Path

import pytest


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    try:
        import torch

        cuda = torch.cuda.is_available()
    except ImportError:
        cuda = False
    skip = pytest.mark.skip(reason="needs a CUDA device")
    here = Path(__file__).parent
    for item in items:
        if "gpu" in item.keywords and not cuda and here in Path(item.path).parents:
            item.add_marker(skip)


@pytest.fixture(autouse=True)
def _one_thread() -> None:
    try:
        import torch
    except ImportError:
        return
    torch.set_num_threads(1)
