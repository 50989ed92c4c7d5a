"""Shared fixtures: where the repository's sample runs and ../shared/real_runs live."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SAMPLE_RUNS = REPO / "sample_runs"
REAL_RUNS = REPO.parent / "shared" / "real_runs"
REAL_RUNS_MORE = REPO.parent / "shared" / "real_runs_more"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Tests marked `gpu` need CUDA: they skip here without it (CI has no GPU) and run on the
    device machine, where a GPU is lent."""
    marked = [item for item in items if item.get_closest_marker("gpu")]
    if not marked:
        return
    try:
        import torch

        cuda = torch.cuda.is_available()
    except ImportError:
        cuda = False
    if cuda:
        return
    skip = pytest.mark.skip(reason="needs a CUDA device")
    for item in marked:
        item.add_marker(skip)


@pytest.fixture(scope="session")
def sample_runs() -> Path:
    return SAMPLE_RUNS


@pytest.fixture(scope="session")
def real_runs() -> Path:
    """../shared/real_runs, present in the team's checkouts and CI but not in a user's clone."""
    if not (REAL_RUNS / "labels.json").is_file():
        pytest.skip("../shared/real_runs is absent (it exists only beside the team's checkout)")
    return REAL_RUNS


@pytest.fixture(scope="session")
def real_runs_more() -> Path:
    """../shared/real_runs_more: 28 more published runs (six console logs), same form."""
    if not (REAL_RUNS_MORE / "labels.json").is_file():
        pytest.skip(
            "../shared/real_runs_more is absent (it exists only beside the team's checkout)"
        )
    return REAL_RUNS_MORE


@pytest.fixture(scope="session")
def real_labels(real_runs: Path) -> dict:
    return json.loads((real_runs / "labels.json").read_text())


class _OldTopLevelNames:
    """Fails any import of the generic top-level names the package used to install (`app`,
    `classifiers`, `probes`): the repository root is on sys.path while the tests run, so
    without this a leftover `from app.x import y` would pass here and break in a user's
    environment. Installed, everything is `lossforensics.*`."""

    BLOCKED = frozenset({"app", "classifiers", "probes"})

    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in self.BLOCKED:
            raise ImportError(
                f"import {name!r} as 'lossforensics.{name}' (or "
                f"'lossforensics.{name.split('.', 1)[-1]}' for app.*)"
            )
        return None


sys.meta_path.insert(0, _OldTopLevelNames())
