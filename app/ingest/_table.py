"""The core of every 'one row per step' CSV (Keras CSVLogger, Lightning CSVLogger, Ultralytics
results.csv): a step column, then one metric per column, melted chunk by chunk. A `run`,
`experiment` or `trial` column names separate runs, and so does a `model` column naming two
models or more (a comparison appended in one table); a `segment` or `phase` column names
sessions of one run (`_segments`); neither is a metric. A `split`, `mode`, `type`, `subset` or
`set` column whose cells name a split (`epoch,type,loss` with rows of `train`, `validation`, `test`)
says whose each row's metrics are: a row of any split but train names its metrics under it
(`validation/loss`; its `lr` repeats the train rows' and is dropped), as JSON lines' `mode`
does; merged into one series they would interleave the splits' values. A `phase` column whose
cells name splits (`train`, `val`) is such a split column, not sessions."""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from pathlib import Path

import numpy as np
import pandas as pd
from lossforensics.classifiers.errors import EmptyInputError
from lossforensics.classifiers.roles import infer_role
from lossforensics.ingest._builder import FrameBuilder, Warnings
from lossforensics.ingest._csv import BadCells, CsvHeader, iter_chunks, melt_chunk
from lossforensics.ingest._segments import RUN_KEYS, SEGMENT_KEYS, key_column
from lossforensics.ingest._split_words import held_out_splits, names_splits
from lossforensics.ingest._steps import integral_steps
from lossforensics.ingest._values import text_cells
from lossforensics.ingest.base import IngestResult

# columns that may name each row's split (`_split_words` judges their cells)
_SPLIT_COLUMNS = ("split", "mode", "type", "subset", "set")
# rows a step column must repeat one value over (with a metric on as many) to be a counter that
# never advanced, or hold fractions over to be a fractional epoch: two rows at one step are a
# train row and a val row as often as anything
_STILL_ROWS = 3
# a column naming the model each row belongs to, and the models it must name to split the runs
_MODEL_COLUMNS = ("model", "model_name", "arch", "architecture")
_MIN_MODELS = 2


def _models_column(names: tuple[str, ...], frame: pd.DataFrame) -> int | None:
    """A `model` column whose cells name two models or more (`MLP`, then `CNN`): a comparison
    of models appended in one table, each its own run (read as one, the second model's start
    was a resume)."""
    col = key_column(names, _MODEL_COLUMNS)
    if col is None:
        return None
    cells = frame[col].dropna()
    if pd.api.types.is_numeric_dtype(cells.dtype):
        return None
    return col if cells.astype(str).str.strip().nunique() >= _MIN_MODELS else None


def _step_in_row_order(frame: pd.DataFrame, step_col: int, columns: Sequence[int]) -> str | None:
    """Why a step column's rows, not its values, are the steps, or None. Read on the first
    chunk, which holds every row of such a log:
    - one value on every row (at least `_STILL_ROWS`) beside a metric logged on as many: the
      counter never advanced (Keras' CSVLogger appended by a loop of `fit(epochs=1)` writes
      epoch 0 on every row);
    - fractions of an epoch on most rows, never going back (a Trainer callback writing its
      fractional `epoch`, 0.0168, 0.0337, ...): the whole-number rows alone would be a few."""
    cells = text_cells(frame[step_col])
    raw = np.where(cells.keep, cells.values, np.nan)
    steps, ok = integral_steps(raw)
    finite = raw[np.isfinite(raw)]
    if (
        len(finite) >= _STILL_ROWS
        and (~ok & np.isfinite(raw)).sum() > len(finite) / 2
        and np.all(np.diff(finite) >= 0)
    ):
        return "holds fractions of an epoch (a Trainer's fractional epoch)"
    if len(frame) < _STILL_ROWS or not ok.all() or np.unique(steps).size != 1:
        return None
    values = frame.iloc[:, list(columns)].apply(pd.to_numeric, errors="coerce")
    if (values.notna().sum(axis=0) >= _STILL_ROWS).any():
        return "holds one value on every row (a loop of fit(epochs=1) appending to one log)"
    return None


def _text(col: pd.Series) -> pd.Series:
    """A key column's cells with the padding of aligned tables stripped."""
    return col.str.strip() if col.dtype == object else col


def read_step_table(
    path: Path,
    header: CsvHeader,
    *,
    fmt: str,
    run: str,
    step_col: int | None,
    roles: Mapping[str, str] | None,
    na_values: Sequence[str] = ("",),
    exclude: Collection[int] = (),
    rename: Mapping[str, str] | None = None,
    default_roles: Mapping[str, str] | None = None,
) -> IngestResult:
    """Read a step-per-row table. `step_col` None: the row order is the step (and a warning
    says so). `exclude`: column positions that are not series. `rename`: metric display names.
    `default_roles`: the reader's role choices, under the caller's `roles`."""
    warns = Warnings(str(path))
    builder = FrameBuilder()
    run_code = builder.runs.code(run)
    names = header.stripped
    run_col = key_column(names, RUN_KEYS)
    seg_col = key_column(names, SEGMENT_KEYS)
    split_at = key_column(names, _SPLIT_COLUMNS)
    split_col: int | None = None
    columns: list[int] = []
    codes = np.empty(0, dtype=np.int32)
    bad = BadCells()
    rows_seen = 0
    no_step = 0
    first_no_step: int | None = None
    still_col: int | None = None  # a step column that never advanced, read as the row order
    for chunk in iter_chunks(path, header, na_values=na_values):
        if rows_seen == 0:  # the first chunk says whether a split or model column is one
            if split_at is not None and names_splits(chunk.frame[split_at]):
                split_col = split_at
            elif seg_col is not None and names_splits(chunk.frame[seg_col]):
                split_col, seg_col = seg_col, None  # `phase` cells of train and val: splits
            if run_col is None:
                run_col = _models_column(names, chunk.frame)
            keys = {step_col, run_col, seg_col, split_col}
            columns = [
                j for j in range(len(names)) if j not in keys and j not in exclude and names[j]
            ]
            codes = np.array(
                [builder.metrics.code((rename or {}).get(names[j], names[j])) for j in columns],
                dtype=np.int32,
            )
            why = (
                _step_in_row_order(chunk.frame, step_col, columns)
                if step_col is not None and split_col is None and run_col is None
                else None
            )
            if why is not None and step_col is not None:
                warns.add(
                    f"the {names[step_col]!r} column {why}: the row order is used as the step"
                )
                still_col, step_col = step_col, None
        for line, why in chunk.skipped:
            warns.add(f"row skipped: {why}", line=line, kind="row skipped (wrong field count)")
        n = len(chunk.frame)
        if step_col is None:
            steps, ok = np.arange(rows_seen, rows_seen + n, dtype=np.int64), np.ones(n, bool)
        else:
            cells = text_cells(chunk.frame[step_col])
            steps, ok = integral_steps(np.where(cells.keep, cells.values, np.nan))
            blank = chunk.frame.drop(columns=[step_col]).isna().all(axis=1).to_numpy()
            missing = ~ok & ~blank
            if missing.any():
                no_step += int(missing.sum())
                line = chunk.first_line + int(np.flatnonzero(missing)[0])
                first_no_step = line if first_no_step is None else first_no_step
        row_runs = labels = None
        if run_col is not None:  # a sweep in one table: each value its own run
            row_runs = builder.named_runs(_text(chunk.frame[run_col]), names[run_col], run_code)
        if seg_col is not None:
            labels = builder.label_codes(_text(chunk.frame[seg_col]))
        splits = [("", ok)]
        if split_col is not None:
            words = held_out_splits(chunk.frame[split_col])
            splits = [(w, ok & (words == w)) for w in np.unique(words)]
        for word, rows_ok in splits:
            cols, split_codes = columns, codes
            if word:  # a held-out split's rows: its metrics named under it, its lr the train's
                kept = [i for i, j in enumerate(columns) if infer_role(names[j]) != "lr"]
                cols = [columns[i] for i in kept]
                split_codes = np.array(
                    [
                        builder.metrics.code(f"{word}/{builder.metrics.names[codes[i]]}")
                        for i in kept
                    ],
                    dtype=np.int32,
                )
            melt_chunk(
                chunk,
                header,
                cols,
                split_codes,
                run_code,
                steps,
                rows_ok,
                builder,
                bad,
                row_runs=row_runs,
                labels=labels,
            )
        rows_seen += n
    if step_col is None:
        if still_col is None:
            warns.add("no step column: the row order is used as the step")
    elif no_step:
        warns.add(
            f"{no_step} row(s) without a whole-number {names[step_col]!r} skipped",
            line=first_no_step,
        )
    bad.report(warns)
    if builder.points == 0:
        detail = f" ({bad.count} non-numeric cell(s))" if bad.count else ""
        raise EmptyInputError(
            f"no numeric points in {rows_seen} data row(s){detail}", file=str(path)
        )
    frame = builder.build(roles, default_roles=default_roles, warns=warns)
    return IngestResult(frame, warns.finish(), format=fmt, files=[str(path)])
