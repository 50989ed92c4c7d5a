"""Every published real run (../shared/real_runs and real_runs_more), fed to IncrementalDiagnosis
in three chunks: after each tick the diagnosis equals `diagnose` of the same points. Real logs
bring what generated ones lack (console logs, appended sessions, sparse evaluations, a held-out
score without a validation loss), and a live tick must judge them as the full diagnosis does."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from lossforensics.classifiers.diagnose import diagnose
from lossforensics.classifiers.incremental import IncrementalDiagnosis
from lossforensics.classifiers.run import split_runs
from lossforensics.ingest import load_run

CHUNKS = 3


def _run_folders(root: Path) -> list[Path]:
    return sorted(p for p in root.iterdir() if p.is_dir())


def _ticks_equal_full(folder: Path) -> None:
    for run in split_runs(load_run(folder).frame):
        frame = run.frame.reset_index(drop=True)
        live = IncrementalDiagnosis(run.name)
        cuts = np.linspace(0, len(frame), CHUNKS + 1).astype(int)
        for start, stop in zip(cuts[:-1].tolist(), cuts[1:].tolist(), strict=True):
            live.add_frame(frame.iloc[start:stop])
            tick = live.tick()
            full = diagnose(frame.iloc[:stop], strict=True)
            assert tick.diagnosis.to_dict() == full.to_dict(), f"{folder.name}: differs at {stop}"


@pytest.mark.slow
def test_real_runs_tick_equal_full_diagnosis(real_runs: Path) -> None:
    for folder in _run_folders(real_runs):
        _ticks_equal_full(folder)


@pytest.mark.slow
def test_more_real_runs_tick_equal_full_diagnosis(real_runs_more: Path) -> None:
    for folder in _run_folders(real_runs_more):
        _ticks_equal_full(folder)
