"""The pandas side of the notebook client, loaded only when a method takes or returns a
DataFrame: frames to the service's JSONL upload form, its series CSV and run listing back to
frames. Keeping it apart lets `from lossforensics import Client` stay free of pandas.
"""

from __future__ import annotations

import io
import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd
from lossforensics.classifiers.errors import InputError
from lossforensics.classifiers.frame import COLUMNS, make_frame, validate_frame


def runs_frame(items: Iterable[Mapping[str, Any]], columns: Sequence[str]) -> pd.DataFrame:
    """Run summaries -> a DataFrame; times as UTC timestamps, known columns first."""
    df = pd.DataFrame(list(items))
    for col in columns:
        if col not in df.columns:
            df[col] = pd.Series(dtype=object)
    for col in ("created_at", "diagnosed_at"):
        df[col] = pd.to_datetime(df[col], unit="s", utc=True)
    extra = [c for c in df.columns if c not in columns]
    return df[[*columns, *extra]]


_STEP_NAMES = ("step", "steps", "global_step", "_step", "iteration", "iter", "epoch", "x")
_WALL_NAMES = ("wall_time", "_timestamp", "timestamp")
_NOT_SERIES = {"run", "_runtime"}


def to_frame(source: Any, *, run: str) -> pd.DataFrame:
    """What a notebook holds -> a normalised frame (roles inferred from metric names where the
    source does not carry them):

    - a long DataFrame: columns `metric`, `step`, `value` (`run`, `role`, `wall_time` optional;
      the normalised frame is one);
    - a wide DataFrame, the shape after `pd.read_csv`: the step as the index or a column
      (`step`, `global_step`, `_step`, `iteration`, `iter`, `epoch`; else the row order), one
      numeric column per metric, an optional `run` column;
    - a dict of equal-length lists, `{"step": [...], "loss": [...], "val_loss": [...]}`
      (`None` is "not logged"; a float NaN is a logged NaN).

    In a wide DataFrame an empty (NaN) cell is "not logged" where the metric was logged
    sparsely (NaN between its values: a val metric every N steps); a metric logged every row
    keeps the NaNs after its last finite value, a run that diverged."""
    if isinstance(source, Mapping):
        return _from_columns(source, run=run)
    if not isinstance(source, pd.DataFrame):
        raise InputError(
            f"cannot upload a {type(source).__name__}: give a path, a DataFrame or a dict of lists"
        )
    if {"metric", "step", "value"} <= set(source.columns):
        return _from_long(source, run=run)
    return _from_wide(source, run=run)


def _from_long(df: pd.DataFrame, *, run: str) -> pd.DataFrame:
    if set(COLUMNS) <= set(df.columns):
        return validate_frame(df)
    frame = make_frame(
        df["run"].astype(str).to_numpy() if "run" in df.columns else run,
        df["metric"].astype(str).to_numpy(),
        pd.to_numeric(df["step"]).to_numpy(),
        pd.to_numeric(df["value"]).to_numpy(dtype=np.float64),
        df["wall_time"].to_numpy(dtype=np.float64) if "wall_time" in df.columns else None,
    )
    if "role" in df.columns:  # roles set in the notebook win over the inferred ones
        frame["role"] = df["role"].astype(str).to_numpy()
        frame = validate_frame(frame)
    return frame


def _from_columns(columns: Mapping[str, Any], *, run: str) -> pd.DataFrame:
    """A dict of lists: `None` cells are not logged, so they are dropped column by column."""
    lengths = {str(k): len(v) for k, v in columns.items()}
    if len(set(lengths.values())) > 1:
        raise InputError(
            "the dict's lists differ in length "
            f"({', '.join(f'{k}: {n}' for k, n in lengths.items())}); give every metric one "
            "value per step (None where it was not logged)"
        )
    df = pd.DataFrame({str(k): list(v) for k, v in columns.items()})
    logged = pd.DataFrame({str(k): [x is not None for x in v] for k, v in columns.items()})
    return _melt(df, run=run, logged=logged)


def _from_wide(df: pd.DataFrame, *, run: str) -> pd.DataFrame:
    return _melt(df, run=run, logged=None)


def _melt(df: pd.DataFrame, *, run: str, logged: pd.DataFrame | None) -> pd.DataFrame:
    lower = {str(c).lower(): c for c in df.columns}
    step_col = next((lower[n] for n in _STEP_NAMES if n in lower), None)
    if step_col is not None:
        steps = pd.to_numeric(df[step_col], errors="coerce").to_numpy(dtype=np.float64)
    elif str(df.index.name or "").lower() in _STEP_NAMES or not isinstance(df.index, pd.RangeIndex):
        steps = pd.to_numeric(pd.Series(df.index), errors="coerce").to_numpy(dtype=np.float64)
    else:
        steps = np.arange(len(df), dtype=np.float64)  # the row order is the step
    wall_col = next((lower[n] for n in _WALL_NAMES if n in lower), None)
    wall = (
        pd.to_numeric(df[wall_col], errors="coerce").to_numpy(dtype=np.float64)
        if wall_col is not None
        else np.full(len(df), np.nan)
    )
    runs = df["run"].astype(str).to_numpy() if "run" in df.columns else None
    skip = {step_col, wall_col} | {c for c in df.columns if str(c).lower() in _NOT_SERIES}
    has_step = np.isfinite(steps)
    parts: list[tuple[np.ndarray, str, np.ndarray]] = []
    for col in df.columns:
        if col in skip:
            continue
        values = pd.to_numeric(df[col], errors="coerce").to_numpy(dtype=np.float64)
        if logged is not None:  # a dict: None is not logged, text is not a metric
            keep = logged[col].to_numpy().copy()
            if np.isnan(values[keep]).any() and not pd.api.types.is_numeric_dtype(df[col]):
                text = df[col][keep & np.isnan(values)].map(lambda x: isinstance(x, str)).any()
                if text:
                    continue
        else:
            keep = _logged_cells(values)
            if pd.api.types.is_object_dtype(df[col]) or pd.api.types.is_string_dtype(df[col]):
                if not np.isfinite(values[keep]).any():
                    continue  # a text column, not a metric
        keep &= has_step
        if keep.any():
            parts.append((np.flatnonzero(keep), str(col), values))
    if not parts:
        raise InputError(
            "no metric to upload: give numeric columns beside the step "
            f"(columns: {', '.join(map(str, df.columns))})"
        )
    rows = np.concatenate([idx for idx, _, _ in parts])
    metric = np.concatenate([np.full(len(idx), name, dtype=object) for idx, name, _ in parts])
    value = np.concatenate([v[idx] for idx, _, v in parts])
    order = np.lexsort((np.arange(len(rows)), rows))  # the order the points were logged
    return make_frame(
        run if runs is None else runs[rows][order],
        metric[order],
        steps[rows][order].astype(np.int64),
        value[order],
        wall[rows][order],
    )


def _logged_cells(values: np.ndarray) -> np.ndarray:
    """The cells of one wide column that hold a logged value (see `to_frame`)."""
    present = ~np.isnan(values)
    where = np.flatnonzero(present)
    if not len(where):
        return present
    first, last = where[0], where[-1]
    if not present[first : last + 1].all():  # logged sparsely: a NaN cell is a gap
        return present
    keep = present.copy()
    keep[last + 1 :] = True  # logged every row, then NaN to the end: a diverged run
    return keep


def frame_to_jsonl(frame: pd.DataFrame) -> bytes:
    """A normalised frame as JSONL long form, one point a line:
    {"run", "metric", "role", "step", "value", "wall_time"}. Non-finite values are written as
    the NaN / Infinity / -Infinity tokens the service's JSONL reader keeps as evidence; roles
    ride along, so overrides made in the notebook survive the trip. Built column-wise."""
    frame = validate_frame(frame)
    if frame.empty:
        raise InputError("the frame has no points to upload")
    cols = [
        '{"run":' + _json_strings(frame["run"]),
        ',"metric":' + _json_strings(frame["metric"]),
        ',"role":' + _json_strings(frame["role"]),
        ',"step":' + frame["step"].astype(str),
        ',"value":' + _json_numbers(frame["value"].to_numpy()),
        ',"wall_time":' + _json_numbers(frame["wall_time"].to_numpy(), nan="null") + "}",
    ]
    lines = cols[0].str.cat(cols[1:])  # type: ignore[arg-type]  # pandas-stubs: others may be Series
    return ("\n".join(lines.tolist()) + "\n").encode("utf-8")


def _json_strings(col: pd.Series) -> pd.Series:
    """JSON-quote a string column, once per distinct value."""
    text = col.astype(str)
    quoted = {v: json.dumps(v) for v in pd.unique(text)}
    return text.map(quoted).astype(object)


def _json_numbers(values: np.ndarray, nan: str = "NaN") -> pd.Series:
    text = pd.Series(values.astype(str), dtype=object)
    text[np.isnan(values)] = nan
    text[np.isposinf(values)] = "Infinity"
    text[np.isneginf(values)] = "-Infinity"
    return text


def frame_from_csv(content: bytes, *, run: str) -> pd.DataFrame:
    """The service's series CSV (the frame's columns; non-finite values as nan / inf / -inf)
    -> a validated normalised frame. `run` names the rows when the CSV has no run column."""
    df = pd.read_csv(
        io.BytesIO(content),
        dtype={"run": str, "metric": str, "role": str},
        keep_default_na=False,
        na_values={"value": ["nan", "NaN", ""], "wall_time": ["nan", "NaN", ""]},
    )
    for col in ("value", "wall_time"):
        df[col] = pd.to_numeric(df[col], errors="raise").astype(np.float64)
    if "run" not in df.columns:
        df.insert(0, "run", run)
    return validate_frame(df)
