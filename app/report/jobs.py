"""What a render process runs: read the run's frame file, draw, return the bytes.

Module-level functions of plain arguments (a path, the diagnosis as stored, the run id), so that
they pickle into `RenderPool`'s processes; the frame is read there, not sent over a pipe."""

from __future__ import annotations

from typing import Any

import pandas as pd
from lossforensics.classifiers.diagnosis import Diagnosis
from lossforensics.report.html import render_report
from lossforensics.report.plot import plot_run
from lossforensics.store.frames import read_frame_file


def _load(
    frame_path: str, diagnosis: dict[str, Any], run_id: str, points: int | None
) -> tuple[pd.DataFrame, Diagnosis]:
    """The frame, with the parts a live run appended after its file, `points` rows as the
    record that was drawn counts them (FileNotFoundError when the run was deleted meanwhile),
    and the diagnosis."""
    frame = read_frame_file(frame_path, points)
    found = Diagnosis.from_dict(diagnosis)
    found.id = run_id
    return frame, found


def draw_plot(
    frame_path: str,
    diagnosis: dict[str, Any],
    run_id: str,
    size: tuple[int, int],
    points: int | None = None,
) -> bytes:
    """The run's annotated plot as PNG bytes."""
    frame, found = _load(frame_path, diagnosis, run_id, points)
    return plot_run(frame, found, size=size)


def draw_report(
    frame_path: str, diagnosis: dict[str, Any], run_id: str, points: int | None = None
) -> bytes:
    """The run's self-contained HTML report, UTF-8."""
    frame, found = _load(frame_path, diagnosis, run_id, points)
    return render_report(found, plot_run(frame, found), run_id=run_id).encode("utf-8")
