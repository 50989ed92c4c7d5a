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
from lossforensics.classifiers.frame import validate_frame


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
    lines = cols[0].str.cat(cols[1:])
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
