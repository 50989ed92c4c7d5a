"""Shared fixtures: where the repository's sample runs and ../shared/real_runs live."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SAMPLE_RUNS = REPO / "sample_runs"
REAL_RUNS = REPO.parent / "shared" / "real_runs"


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
def real_labels(real_runs: Path) -> dict:
    return json.loads((real_runs / "labels.json").read_text())
