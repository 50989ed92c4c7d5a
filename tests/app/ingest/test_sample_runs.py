"""Every run in sample_runs/ (real CPU training written by each framework's own logger) reads
without error, in the format its folder says."""

from __future__ import annotations

import pytest
from lossforensics.classifiers.frame import validate_frame
from lossforensics.ingest import READERS, load_run


def _entries(sample_runs):
    if not sample_runs.is_dir():
        return []
    return sorted(
        p for p in sample_runs.iterdir() if p.is_dir() and not p.name.startswith((".", "_"))
    )


def test_every_sample_run_loads(sample_runs):
    entries = _entries(sample_runs)
    if not entries:
        pytest.skip("sample_runs/ has no runs yet")
    for entry in entries:
        result = load_run(entry)
        validate_frame(result.frame)
        assert len(result.frame) > 0, entry.name
        assert result.format in READERS, entry.name
        assert result.frame["role"].astype(str).isin(["train_loss", "val_loss"]).any(), entry.name
