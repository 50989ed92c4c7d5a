"""Weights & Biases chart exports ("Export CSV" on a panel).

Layout: every cell quoted; the first column is the chart's x-axis (`Step`, `epoch`, `_step`,
or a time axis); then `<run name> - <metric>` per run, each followed by `__MIN`/`__MAX`
companions; runs logged at different cadences leave empty cells. Run names may contain ' - '
themselves, so a header is split at its LAST ' - '.

The companions are kept as their own metrics (`train/loss__MAX`) with role `other`: where the
chart was not bucketed they repeat the value, and giving them the base's role would double
every series a classifier reads. Where W&B bucketed the points (MIN/MAX differ from the value)
the value is a bucket mean that hides spikes; a warning then names the `__MAX` metric to
promote (`roles={'train/loss__MAX': 'train_loss'}`).

The runs-table export (one row per run: Name, State, config and summary columns) is not a
curve; `is_runs_table` lets detection say so.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import numpy as np
from lossforensics.classifiers.errors import EmptyInputError, UnknownFormatError
from lossforensics.ingest._builder import FrameBuilder, Warnings
from lossforensics.ingest._csv import BadCells, CsvHeader, iter_chunks, melt_chunk, sniff_header
from lossforensics.ingest._source import apply_run_name, default_run_name, require_nonempty
from lossforensics.ingest._steps import integral_steps
from lossforensics.ingest._values import Cells
from lossforensics.ingest.base import IngestResult

FORMAT = "wandb_csv"
SEPARATOR = " - "
COMPANIONS = ("__MIN", "__MAX")
_TIME_AXES = {
    "wall time",
    "relative time (process)",
    "relative time (wall)",
    "_timestamp",
    "_runtime",
    "time",
}
_RUNS_TABLE_HINTS = {"state", "notes", "user", "tags", "created", "runtime", "sweep"}


def is_runs_table(header: CsvHeader) -> bool:
    """The W&B runs-table export: `Name` plus bookkeeping columns, no time axis."""
    low = {n.lower() for n in header.stripped}
    return "name" in low and len(low & _RUNS_TABLE_HINTS) >= 2


def _is_wandb(header: CsvHeader) -> bool:
    rest = header.stripped[1:]
    paired = sum(SEPARATOR in n for n in rest)
    return bool(rest) and paired >= max(1, (len(rest) + 1) // 2) and not is_runs_table(header)


def sniff(path: Path) -> bool:
    """An x-axis column, then mostly `<run> - <metric>` columns."""
    header = sniff_header(Path(path))
    return header is not None and _is_wandb(header)


def split_column(name: str, fallback_run: str) -> tuple[str, str]:
    """'<run> - train/loss__MAX' -> ('<run>', 'train/loss__MAX'), split at the LAST ' - '."""
    if SEPARATOR in name:
        run, metric = name.rsplit(SEPARATOR, 1)
        if run.strip() and metric.strip():
            return run.strip(), metric.strip()
    return fallback_run, name


def _base_of(metric: str) -> str | None:
    for suffix in COMPANIONS:
        if metric.endswith(suffix):
            return metric[: -len(suffix)]
    return None


def _fractional(cells: Cells) -> bool:
    x = cells.values[cells.keep & np.isfinite(cells.values)]
    return bool(len(x)) and bool(np.any(x != np.floor(x)))


def _x_axis(cells: Cells, is_time: bool | None, start: int, warns: Warnings, line: int):
    """(steps, row_ok, wall) for one chunk of the x column."""
    n = len(cells.values)
    x = np.where(cells.keep, cells.values, np.nan)
    if is_time is None:  # a fractional axis (epoch 0.25, 0.5, ...): the row order is the step
        return np.arange(start, start + n, dtype=np.int64), np.ones(n, bool), None
    if is_time:
        steps = np.arange(start, start + n, dtype=np.int64)
        wall = np.where(x > 1e11, x / 1000.0, np.where(x > 1e8, x, np.nan))
        return steps, np.ones(n, bool), wall
    steps, ok = integral_steps(x)
    if (~ok & np.isfinite(x)).any():
        warns.add(
            "x-axis values that are not whole numbers: rows skipped", line=line, kind="fractional x"
        )
    return steps, ok, None


def read(
    path: Path, *, run: str | None = None, roles: Mapping[str, str] | None = None
) -> IngestResult:
    path = Path(path)
    require_nonempty(path)
    header = sniff_header(path)
    if header is None or not _is_wandb(header):
        raise UnknownFormatError(
            "not a W&B chart export: expected an x-axis column then "
            "'<run> - <metric>' columns on line 1",
            file=str(path),
            line=1,
        )
    warns = Warnings(str(path))
    builder = FrameBuilder()
    names = header.stripped
    fallback = default_run_name(path)
    columns = list(range(1, len(names)))
    pairs = [split_column(names[j], fallback) for j in columns]
    run_codes = np.array([builder.runs.code(r) for r, _ in pairs], dtype=np.int32)
    metric_codes = np.array([builder.metrics.code(m) for _, m in pairs], dtype=np.int32)
    defaults = {m: "other" for _, m in pairs if _base_of(m) is not None}
    where = {p: j for j, p in zip(columns, pairs, strict=True)}
    watch = []  # (base column, __MAX column, run, __MAX metric): to spot a bucketed export
    for j, (r, m) in zip(columns, pairs, strict=True):
        if m.endswith("__MAX") and (r, m[:-5]) in where:
            watch.append((where[(r, m[:-5])], j, r, m))
    bucketed: dict[tuple[str, str], None] = {}
    is_time: bool | None = names[0].lower() in _TIME_AXES  # None: a fractional axis
    if is_time:
        warns.add(f"x-axis {names[0]!r} is a time: steps are the row order")
    bad = BadCells()
    rows = 0
    for chunk in iter_chunks(path, header):
        for line, why in chunk.skipped:
            warns.add(f"row skipped: {why}", line=line, kind="row skipped (wrong field count)")
        if rows == 0 and not is_time and _fractional(chunk.cells(0)):
            warns.add(f"x-axis {names[0]!r} has fractional values: steps are the row order")
            is_time = None
        steps, ok, wall = _x_axis(chunk.cells(0), is_time, rows, warns, chunk.first_line)
        melt_chunk(chunk, header, columns, metric_codes, run_codes, steps, ok, builder, bad, wall)
        for base_col, max_col, r, m in watch:
            if (r, m) not in bucketed:
                base = chunk.cells(base_col).values
                top = chunk.cells(max_col).values
                if np.any(top > base + 1e-12 * np.abs(base)):
                    bucketed[(r, m)] = None
        rows += len(chunk.frame)
    if bucketed:
        shown = ", ".join(f"{r} - {m}" for r, m in list(bucketed)[:3])
        warns.add(
            f"export is bucketed: values are bucket means and spikes may show only in "
            f"the __MAX column(s) ({shown}{', ...' if len(bucketed) > 3 else ''}); "
            f"they have role 'other' unless you override it"
        )
    bad.report(warns)
    if builder.points == 0:
        raise EmptyInputError(f"no numeric points in {rows} data row(s)", file=str(path))
    frame = apply_run_name(builder.build(roles, default_roles=defaults, warns=warns), run)
    return IngestResult(frame, warns.finish(), format=FORMAT, files=[str(path)])
