"""Test helper: feed a logged run to IncrementalDiagnosis in chunks and check every tick against
a full `diagnose` of the same points."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from lossforensics.classifiers.diagnose import diagnose
from lossforensics.classifiers.incremental import IncrementalDiagnosis
from lossforensics.classifiers.run import split_runs
from lossforensics.ingest import load_run


def assert_ticks_equal_full(path: Path, chunks: int) -> None:
    """Every run read from `path`, fed in `chunks` equal pieces: after each tick the diagnosis
    equals `diagnose(strict=True)` of the points fed so far."""
    for run in split_runs(load_run(path).frame):
        frame = run.frame.reset_index(drop=True)
        live = IncrementalDiagnosis(run.name)
        cuts = np.linspace(0, len(frame), chunks + 1).astype(int)
        for start, stop in zip(cuts[:-1].tolist(), cuts[1:].tolist(), strict=True):
            live.add_frame(frame.iloc[start:stop])
            tick = live.tick()
            full = diagnose(frame.iloc[:stop], strict=True)
            assert tick.diagnosis.to_dict() == full.to_dict(), f"{path.name}: differs at {stop}"
