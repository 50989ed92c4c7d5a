"""Turning parsed cells into values, vectorised: which cells are numbers, which are a logged NaN
(evidence, kept), which are simply missing (a sparse row: dropped) and which are not numbers at
all (skipped and reported)."""

from __future__ import annotations

import struct
from dataclasses import dataclass

import numpy as np
import pandas as pd
from lossforensics.ingest._text_numbers import parsed_numbers

# A NaN with its own payload: the JSON readers map a literal `NaN` token to it, so a logged NaN
# stays distinguishable from a key a record simply did not have (pandas fills those with NaN).
LOGGED_NAN_BITS = 0x7FF80000DEADBEEF
LOGGED_NAN = struct.unpack("<d", struct.pack("<Q", LOGGED_NAN_BITS))[0]
_NAN_TOKENS = ("nan", "-nan", "+nan", "nan(ind)", "-nan(ind)")


@dataclass
class Cells:
    """One column's cells: `values` (float64), `keep` (a value to store: a number or a logged
    NaN), `bad` (present but not a number)."""

    values: np.ndarray
    keep: np.ndarray
    bad: np.ndarray


# a number printed inside the object that held it: `tensor(3.1304, device='cuda:0',
# grad_fn=<DivBackward0>)`, `array([0.69])`, `np.float64(0.5)`
_WRAPPED = (
    r"^\s*(?:tensor|array|np\.float\d*|numpy\.float\d*)\(\s*\[?\s*"
    r"([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)\s*\]?\s*[,)]"
)


def text_cells(col: pd.Series) -> Cells:
    """Cells read from text (CSV): missing cells are NA after parsing, 'nan'/'inf'/'Infinity'
    tokens are values, anything else that is not a number is bad."""
    if pd.api.types.is_bool_dtype(col.dtype):
        n = len(col)
        return Cells(np.full(n, np.nan), np.zeros(n, bool), np.ones(n, bool))
    if pd.api.types.is_numeric_dtype(col.dtype):
        values = col.to_numpy(dtype=np.float64, na_value=np.nan)
        keep = ~np.isnan(values)
        return Cells(values, keep, np.zeros(len(values), bool))
    missing = col.isna().to_numpy()
    token = _nan_tokens(col) if isinstance(col.dtype, pd.StringDtype) else None
    num = _read_numbers(col, missing, token)
    if num is not None:  # every cell a number (never NaN), a NaN token or missing: none is bad
        return Cells(num, ~missing, np.zeros(len(num), bool))
    parsed = pd.to_numeric(_without_nan_tokens(col, token), errors="coerce")
    num = (
        parsed.to_numpy(dtype=np.float64, na_value=np.nan)
        if isinstance(parsed, pd.Series)
        else np.asarray(parsed, dtype=np.float64)
    )
    unparsed = np.isnan(num) & ~missing
    bad = unparsed.copy()
    if unparsed.any():
        tokens = col[unparsed].astype(str).str.strip().str.lower()
        bad[unparsed] = ~tokens.isin(_NAN_TOKENS).to_numpy()
    if bad.any():  # a printed tensor or array (`str(loss)` without `.item()`): its number
        inner = pd.to_numeric(
            col[bad].astype(str).str.extract(_WRAPPED, expand=False), errors="coerce"
        ).to_numpy(dtype=np.float64, na_value=np.nan)
        rows = np.flatnonzero(bad)[~np.isnan(inner)]
        num = num.copy()
        num[rows] = inner[~np.isnan(inner)]
        bad[rows] = False
    return Cells(num, ~missing & ~bad, bad)


def _read_numbers(
    col: pd.Series, missing: np.ndarray, token: np.ndarray | None
) -> np.ndarray | None:
    """pd.to_numeric's values of a NaN-valued string column (what read_csv gives; a pd.NA-valued
    one is parsed to a masked array, integers exact), its NaN tokens (`token`) NaN, from the C
    parser (`_text_numbers`); None where that path steps aside."""
    if token is None or not isinstance(col.dtype, pd.StringDtype) or col.dtype.na_value is pd.NA:
        return None
    return parsed_numbers(col, ~missing & ~token)


def _nan_tokens(col: pd.Series) -> np.ndarray:
    """Which cells of a string column are NaN tokens, by the string kernels; none, without
    them, when the column's text holds no n or N (every token holds one after lowering, and
    only N lowers to n): a column of plain numbers costs two byte searches, not a strip, a
    lower and a lookup of each cell."""
    if isinstance(col.array, pd.arrays.ArrowStringArray) and not _holds_n(col.array):
        return np.zeros(len(col), dtype=bool)
    return col.str.strip().str.lower().isin(_NAN_TOKENS).to_numpy(dtype=bool, na_value=False)


def _holds_n(cells: pd.arrays.ArrowStringArray) -> bool:
    """Whether the text behind an arrow string column (all of it, past a slice too) holds an n
    or an N."""
    for chunk in cells.__arrow_array__().chunks:
        data = chunk.buffers()[2]
        text = b"" if data is None else data.to_pybytes()
        if b"n" in text or b"N" in text:
            return True
    return False


def _without_nan_tokens(col: pd.Series, token: np.ndarray | None) -> pd.Series | np.ndarray:
    """A text column with its NaN tokens made missing: pd.to_numeric gives them NaN either way,
    but after a failed parse per cell (~0.5 us each, so a diverged run's tail of 'NaN' cost
    more than its numbers). `token`: the tokens the string kernels found (`_nan_tokens`); the
    caller still decides which unparsed cells are NaN tokens, so a cell they miss is only slower.
    With tokens in a NaN-valued string column (what read_csv gives), the cells come back as
    the object array pd.to_numeric would parse, the tokens missing (NaN) too: Series.mask costs
    as much again as the parse. (A pd.NA-valued column is parsed to a masked array: masked.)"""
    if token is None or not token.any() or not isinstance(col.dtype, pd.StringDtype):
        return col
    if col.dtype.na_value is pd.NA:
        return col.mask(token)
    cells = col.to_numpy(dtype=object, na_value=np.nan)
    cells[token] = np.nan
    return cells


def json_cells(col: pd.Series) -> Cells:
    """Cells parsed from JSON: numbers (not booleans) are values, the LOGGED_NAN payload is a
    logged NaN, pandas' own NaN is a missing key, a number written as text (`"0.5234"`, `"nan"`:
    `json.dump(h, f, default=str)`, the usual way past NumPy's float32 not being JSON
    serialisable) is read as `text_cells` reads a CSV cell, other strings, booleans and lists are
    bad."""
    if pd.api.types.is_float_dtype(col.dtype) or pd.api.types.is_integer_dtype(col.dtype):
        values = col.to_numpy(dtype=np.float64, na_value=np.nan)
        logged = values.view(np.uint64) == LOGGED_NAN_BITS
        keep = ~np.isnan(values) | logged
        values = np.where(logged, np.nan, values)
        return Cells(values, keep, np.zeros(len(values), bool))
    kinds = col.map(type)
    numeric = kinds.isin([float, int]).to_numpy()
    values = np.full(len(col), np.nan)
    if numeric.any():
        values[numeric] = col[numeric].to_numpy(dtype=np.float64)
    logged = values.view(np.uint64) == LOGGED_NAN_BITS
    missing = kinds.isin([type(None)]).to_numpy() | (numeric & np.isnan(values) & ~logged)
    values = np.where(logged, np.nan, values)
    keep = numeric & ~missing
    bad = ~numeric & ~missing
    text = kinds.isin([str]).to_numpy()
    if text.any():
        cells = text_cells(pd.Series(col.to_numpy(dtype=object)[text], dtype=object))
        values[text], keep[text], bad[text] = cells.values, cells.keep, cells.bad
    return Cells(values, keep, bad)
