"""Every published real run (../shared/real_runs and real_runs_more), fed to IncrementalDiagnosis
in three chunks: after each tick the diagnosis equals `diagnose` of the same points. Real logs
bring what generated ones lack (console logs, appended sessions, sparse evaluations, a held-out
score without a validation loss), and a live tick must judge them as the full diagnosis does."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.classifiers._ticks import assert_ticks_equal_full

CHUNKS = 3


def _run_folders(root: Path) -> list[Path]:
    return sorted(p for p in root.iterdir() if p.is_dir())


@pytest.mark.slow
def test_real_runs_tick_equal_full_diagnosis(real_runs: Path) -> None:
    for folder in _run_folders(real_runs):
        assert_ticks_equal_full(folder, CHUNKS)


@pytest.mark.slow
def test_more_real_runs_tick_equal_full_diagnosis(real_runs_more: Path) -> None:
    for folder in _run_folders(real_runs_more):
        assert_ticks_equal_full(folder, CHUNKS)
