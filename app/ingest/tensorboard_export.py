"""TensorBoard's scalar downloads: the CSV (`Wall time,Step,Value`) or JSON (`[[wall time,
step, value], ...]`) that the dashboard's "download data" link saves for one run and one tag,
the way loss curves are most often attached to an issue.

The file holds one series and does not name it: its name does. TensorBoard names the download
`run-<run>-tag-<tag>.csv` (a `/` in either written as `_`), so the metric is `<run>/<tag>`
(`run-validation-tag-epoch_loss.csv` -> `validation/epoch_loss`, a validation loss, as the
TensorBoard reader names Keras' `validation/` run), or `<tag>` for the run `.`; a file renamed by
hand (`val_loss.csv`, `train_log.csv`) is named by its stem, read as series files read a name
(`train_log` -> the training loss). Other trackers export one metric a file the same way, as
a step column (`step`, `iteration`, `epoch`, ...), `value` and perhaps a time (`timestamp`,
`time`: Neptune, ClearML, Comet, Aim, a script's own `step,value` file): read alike, a time in
seconds or milliseconds since 1970 kept as the wall time. Steps are the Step column and the wall
times are kept. A folder's downloads are one run, each file one metric
(`run-train-tag-epoch_loss.csv` beside `run-validation-tag-epoch_loss.csv`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path

import numpy as np
import pandas as pd
from lossforensics.classifiers.roles import infer_role
from lossforensics.ingest._builder import FrameBuilder, Warnings
from lossforensics.ingest._source import (
    apply_run_name,
    head_text,
    metric_files,
    parts_as_folders,
)
from lossforensics.ingest.base import IngestResult
from lossforensics.ingest.series_file import json_list, number_rows, role_of_name

FORMAT = "tensorboard_export"

# the CSV download's header, as TensorBoard writes it
_HEADER = ("wall time", "step", "value")
# the columns of one metric's export from other trackers (Neptune, ClearML, Comet, Aim, a
# script's own `step,value`): a step, the value, and optionally when it was logged
_STEP_COLUMNS = frozenset({"step", "global_step", "iteration", "iter", "epoch"})
_TIME_COLUMNS = frozenset({"wall time", "wall_time", "walltime", "timestamp", "time"})
# a time column in milliseconds since 1970 (after 2001 in ms: 1e12)
_EPOCH_2001_MS = 1e12
# TensorBoard's name for a download: `run-<run>-tag-<tag>` (`run_<run>-tag-...` in old versions)
_DOWNLOAD_NAME = re.compile(r"^run[-_](?P<run>.*?)-tag-(?P<tag>.+)$")
# a JSON download's first column is a wall time in seconds since 1970: after 2001 (1e9 s)
_EPOCH_2001 = 1e9
# points a file must hold to be a curve
_MIN_POINTS = 2


def _csv_columns(text: str) -> tuple[str, ...]:
    first = text.splitlines()[0] if text else ""
    return tuple(c.strip().strip('"').lower() for c in first.lstrip("\ufeff").split(","))


def _csv_header(text: str) -> bool:
    """TensorBoard's `Wall time,Step,Value`, or one metric's export: a step column, `value`,
    and at most one time column, nothing else."""
    columns = _csv_columns(text)
    if columns == _HEADER:
        return True
    names = set(columns)
    return (
        len(names) == len(columns)
        and "value" in names
        and len(names & _STEP_COLUMNS) == 1
        and len(names & _TIME_COLUMNS) <= 1
        and names <= _STEP_COLUMNS | _TIME_COLUMNS | {"value"}
    )


def _json_rows(path: Path) -> np.ndarray | None:
    """The [wall time, step, value] rows of a JSON download, or None for any other file."""
    doc = json_list(path, _MIN_POINTS)
    rows = None if doc is None else number_rows(doc, len(_HEADER))
    if rows is None:
        return None
    wall, step = rows[:, 0], rows[:, 1]
    if not (np.isfinite(wall).all() and (wall >= _EPOCH_2001).all()):
        return None
    if not np.isfinite(step).all() or (step != np.round(step)).any():
        return None
    return rows


def sniff(path: Path) -> bool:
    """A CSV whose header is `Wall time,Step,Value` (or a step, `value` and at most a time
    column: `_csv_header`), or a JSON array of [wall time, step, value] rows whose wall times
    are Unix seconds."""
    path = Path(path)
    text = head_text(path)
    if not text:
        return False
    if text.lstrip().startswith("["):
        return _json_rows(path) is not None
    return _csv_header(text)


def pair_parts(paths: list[Path]) -> list[Path]:
    """Each folder holding two or more downloads replaced by the folder: one run."""
    return parts_as_folders(paths, lambda files: files if len(files) > 1 else None)


def metric_of(path: Path) -> str:
    """The metric a download holds, from its file name (the module docstring says how)."""
    stem = path.name.rsplit(".", 1)[0] if "." in path.name else path.name
    m = _DOWNLOAD_NAME.match(stem)
    if m is None:
        return stem
    run, tag = m["run"], m["tag"]
    return tag if run in ("", ".") else f"{run}/{tag}"


def _role(path: Path, metric: str) -> str:
    role = infer_role(metric)
    return role if role != "other" else role_of_name(path)


def _points(path: Path, warns: Warnings) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(steps, values, wall times) of one download."""
    rows = _json_rows(path) if (head_text(path) or "").lstrip().startswith("[") else None
    if rows is not None:
        return rows[:, 1].astype(np.int64), rows[:, 2], rows[:, 0]
    table = pd.read_csv(
        path, dtype=str, keep_default_na=False, skipinitialspace=True, encoding="utf-8-sig"
    )
    table.columns = [str(c).strip().lower() for c in table.columns]
    step_column = next(c for c in table.columns if c in _STEP_COLUMNS)
    time_column = next((c for c in table.columns if c in _TIME_COLUMNS), None)
    step = pd.to_numeric(table[step_column], errors="coerce").to_numpy(dtype=np.float64)
    value = pd.to_numeric(table["value"], errors="coerce").to_numpy(dtype=np.float64)
    wall = np.full(len(table), np.nan)
    if time_column is not None:
        wall = pd.to_numeric(table[time_column], errors="coerce").to_numpy(dtype=np.float64)
        wall = np.where(wall >= _EPOCH_2001_MS, wall / 1000.0, wall)
        wall = np.where(wall >= _EPOCH_2001, wall, np.nan)  # seconds since 1970, or unknown
    bad = ~np.isfinite(step) | (step != np.round(step))
    # a cell that is no number; a NaN the run logged is written `NaN`, and kept
    bad |= np.isnan(value) & (table["value"].str.strip().str.lower() != "nan").to_numpy()
    for row in np.flatnonzero(bad).tolist():
        warns.add("not a step and a number: row skipped", line=row + 2, kind="skip")
    keep = ~bad
    return step[keep].astype(np.int64), value[keep], wall[keep]


def read(
    path: Path, *, run: str | None = None, roles: Mapping[str, str] | None = None
) -> IngestResult:
    """Read one download, or a folder's downloads as one run."""
    files, run_name = metric_files(
        Path(path),
        sniff,
        none_here="no TensorBoard scalar download here",
        not_one="not a TensorBoard scalar download: a CSV headed `Wall time,Step,Value`, or a "
        "JSON array of [wall time, step, value] rows",
    )
    builder = FrameBuilder()
    run_code = builder.runs.code(run_name)
    own_roles: dict[str, str] = {}
    warnings = []
    for file in files:
        warns = Warnings(str(file))
        steps, values, wall = _points(file, warns)
        metric = metric_of(file)
        own_roles[metric] = _role(file, metric)
        code = builder.metrics.code(metric)
        builder.add(run_code, np.full(len(steps), code, dtype=np.int32), steps, values, wall)
        warns.add(
            f"one metric's export (a TensorBoard scalar download, or a step,value CSV): its "
            f"series is named by the file name, {metric!r} "
            f"({own_roles[metric].replace('_', ' ')})"
        )
        warnings.extend(warns.finish())
    frame = builder.build({**own_roles, **(roles or {})})
    return IngestResult(
        apply_run_name(frame, run), warnings, format=FORMAT, files=[str(f) for f in files]
    )
