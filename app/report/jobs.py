"""What a render process runs: read the run's frame file, draw, return the bytes.

Module-level functions of plain arguments (a path, the diagnosis as stored, the run id), so that
they pickle into `RenderPool`'s processes; the frame is read there, not sent over a pipe."""

from __future__ import annotations

from typing import Any

import pandas as pd
from lossforensics.classifiers.diagnosis import Diagnosis
from lossforensics.classifiers.frame import validate_frame
from lossforensics.report.html import render_report
from lossforensics.report.plot import plot_run


def _load(
    frame_path: str, diagnosis: dict[str, Any], run_id: str
) -> tuple[pd.DataFrame, Diagnosis]:
    """The frame (FileNotFoundError when the run was deleted meanwhile) and the diagnosis."""
    frame = validate_frame(pd.read_parquet(frame_path))
    found = Diagnosis.from_dict(diagnosis)
    found.id = run_id
    return frame, found


def draw_plot(
    frame_path: str, diagnosis: dict[str, Any], run_id: str, size: tuple[int, int]
) -> bytes:
    """The run's annotated plot as PNG bytes."""
    frame, found = _load(frame_path, diagnosis, run_id)
    return plot_run(frame, found, size=size)


def draw_report(frame_path: str, diagnosis: dict[str, Any], run_id: str) -> bytes:
    """The run's self-contained HTML report, UTF-8."""
    frame, found = _load(frame_path, diagnosis, run_id)
    return render_report(found, plot_run(frame, found), run_id=run_id).encode("utf-8")
