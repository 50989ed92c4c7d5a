"""Writing the normalised frame out (what `lossforensics convert` does): CSV and JSON lines
that the csv/jsonl readers read straight back (roles included), and Parquet.

NaN and +-inf are values, so they are written as `nan`/`inf` in CSV and as the `NaN` /
`Infinity` tokens Python's json reads in JSON lines (strict JSON has no way to say them).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TextIO

import numpy as np
import pandas as pd

EXPORT_FORMATS: tuple[str, ...] = ("csv", "jsonl", "parquet")


def write_csv(frame: pd.DataFrame, out: TextIO | Path) -> None:
    frame.to_csv(out, index=False, na_rep="nan", lineterminator="\n")


def _json_numbers(values: np.ndarray) -> pd.Series:
    """Shortest round-trip reprs, with Python json's NaN/Infinity tokens."""
    text = pd.Series(values.astype(str), dtype=object)
    text[np.isnan(values)] = "NaN"
    text[np.isposinf(values)] = "Infinity"
    text[np.isneginf(values)] = "-Infinity"
    return text


def _json_strings(col: pd.Series) -> pd.Series:
    """Each distinct string JSON-encoded once (runs and metrics repeat a lot)."""
    codes, uniques = pd.factorize(col.astype(str))
    encoded = np.array([json.dumps(u) for u in uniques], dtype=object)
    return pd.Series(encoded[codes] if len(codes) else [], dtype=object)


def jsonl_lines(frame: pd.DataFrame) -> pd.Series:
    """One JSON object per row, built column-wise."""
    return (
        '{"run": '
        + _json_strings(frame["run"])
        + ', "metric": '
        + _json_strings(frame["metric"])
        + ', "role": '
        + _json_strings(frame["role"])
        + ', "step": '
        + pd.Series(frame["step"].to_numpy().astype(str), dtype=object)
        + ', "value": '
        + _json_numbers(frame["value"].to_numpy(np.float64))
        + ', "wall_time": '
        + _json_numbers(frame["wall_time"].to_numpy(np.float64))
        + ', "seq": '
        + pd.Series(frame["seq"].to_numpy().astype(str), dtype=object)
        + ', "segment": '
        + pd.Series(frame["segment"].to_numpy().astype(str), dtype=object)
        + "}"
    )


def write_jsonl(frame: pd.DataFrame, out: TextIO) -> None:
    if len(frame):
        out.write("\n".join(jsonl_lines(frame).tolist()))
        out.write("\n")


def write_parquet(frame: pd.DataFrame, out: Path) -> None:
    frame.to_parquet(out, index=False)
