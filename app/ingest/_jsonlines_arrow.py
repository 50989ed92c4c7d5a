"""JSON lines of plain numbers read by pyarrow's C++ JSON reader: the frame `flat_frame` would
build from the same lines, without a Python dict per line (~3x cheaper on a 10k-line log).

A fast path only: it answers None, and the caller parses the lines with the standard library,
whenever pyarrow's reading could differ from the standard library's:

- a line that does not start with `{` (blank lines, a BOM, indentation), or a line pyarrow
  reads as more or fewer than one object;
- any value that is not a number or null: text, booleans, lists, nested objects (pyarrow also
  reads dates out of text) keep the exact path, which names and counts them;
- tokens the standard library refuses and pyarrow accepts (`-NaN`, `Inf`, `-Inf`), or reads
  otherwise: `-0` among floats (pyarrow keeps the minus sign, Python's int 0 does not), integers
  at or past 2**63 (Python keeps them whole: a value that large in a text that may hold such
  an integer literal, 19 digits or more, steps aside);
- anything pyarrow itself refuses (a key twice in one object, a number past a double, invalid
  UTF-8).

What is left reads the same both ways: numbers are rounded to the nearest double by both
parsers, a missing key and `null` are missing, `NaN` becomes the logged-NaN marker
(`_values.LOGGED_NAN`) as `_jsonlines.parse_json` makes it, and the columns come in order of
first appearance, which is the order pyarrow adds them in.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.json as pa_json
from lossforensics.ingest._values import LOGGED_NAN

_OPEN = ord("{")
_NEWLINE = ord("\n")
_INT64_LIMIT = 2.0**63  # a double this large may stand for an integer Python keeps exact
_INT64_DIGITS = 18  # 2**63 has 19 digits: a run of more than 18 may be such an integer
_ZERO, _NINE, _POINT, _MINUS = ord("0"), ord("9"), ord("."), ord("-")
_E = np.frombuffer(b"eE", dtype=np.uint8)
_EXPONENT = np.frombuffer(b"eE+", dtype=np.uint8)  # what stands before an exponent's digits
_FLOAT_MARKS = np.frombuffer(b".eE", dtype=np.uint8)  # what may follow a float's integer part
_MAX_BLOCK = 1 << 30  # pyarrow's block size is an int32: larger texts take the exact path


def object_line_starts(body: bytes) -> np.ndarray | None:
    """Byte offset of each line of `body` (whole lines, each ending in a newline), when every
    line opens with `{`; None otherwise."""
    if not body or body[0] != _OPEN or body[-1] != _NEWLINE:
        return None
    raw = np.frombuffer(body, dtype=np.uint8)
    starts = np.flatnonzero(raw[:-1] == _NEWLINE) + 1
    if not (raw[starts] == _OPEN).all():
        return None
    return np.concatenate(([0], starts))


def arrow_frame(text: bytes, rows: int) -> pd.DataFrame | None:
    """The flat frame of `rows` lines of JSON objects (`text`, whole lines opening with `{`),
    read by pyarrow; None when it could differ from `flat_frame` of the parsed lines."""
    table = read_table(text)
    if table is None or table.num_rows != rows or table.num_columns == 0:
        return None
    return number_frame(dict(zip(table.column_names, table.columns, strict=True)), text)


def read_table(text: bytes, *, documents: bool = False) -> pa.Table | None:
    """pyarrow's read of `text`, one row per JSON object; None when it holds a token pyarrow
    reads and the standard library refuses, or pyarrow refuses it. `documents`: an object may
    span lines (a pretty-printed document), not one object a line."""
    if len(text) >= _MAX_BLOCK or holds(text, b"-NaN", b"N"):
        return None
    if holds(text, b"Inf", b"I") and text.count(b"Inf") != text.count(b"Infinity"):
        return None
    options = pa_json.ReadOptions(use_threads=False, block_size=len(text) + 1)
    parse = pa_json.ParseOptions(newlines_in_values=documents)
    try:
        table = pa_json.read_json(pa.BufferReader(text), read_options=options, parse_options=parse)
        table.column_names  # noqa: B018  # a key that is not UTF-8 fails here, not in the read
    except (pa.ArrowException, ValueError):
        return None
    return table


def holds(text: bytes, token: bytes, mark: bytes) -> bool:
    """`token in text`, where `mark` is one byte of `token`: a text of numbers seldom holds the
    byte, and a search for one byte (memchr) costs ~50x less than one for the token (~0.3 ms
    on a 500 KB log)."""
    return mark in text and token in text


def number_frame(
    columns: dict[str, pa.ChunkedArray | pa.Array], text: bytes
) -> pd.DataFrame | None:
    """The columns pyarrow read from `text` as from_records types the same values parsed by
    the standard library; None when a column holds anything but numbers and nulls, or a number
    the two read otherwise."""
    values: dict[str, np.ndarray] = {}
    for name, column in columns.items():
        numbers = _numbers(column)
        if numbers is None:
            return None
        values[name] = numbers
    if any(_large(v) for v in values.values()) and _long_integer(text):
        return None
    return pd.DataFrame(values)


def _large(values: np.ndarray) -> bool:
    """A finite float at or past 2**63: an integer literal there is whole in Python."""
    return values.dtype == np.float64 and bool(
        (np.isfinite(values) & (np.abs(values) >= _INT64_LIMIT)).any()
    )


def _long_integer(text: bytes) -> bool:
    """Whether `text` may hold an integer literal of 2**63 or more: a run of 19 digits or more
    neither after a decimal point or exponent mark nor before one (in a key or a string too:
    then it only costs the fast path)."""
    raw = np.frombuffer(text, dtype=np.uint8)
    bounds = np.concatenate(([-1], np.flatnonzero((raw < _ZERO) | (raw > _NINE)), [len(raw)]))
    long = np.flatnonzero(np.diff(bounds) - 1 > _INT64_DIGITS)
    if not len(long):
        return False
    padded = np.concatenate((raw, [0]))  # bounds -1 and len(raw) read a 0: no mark
    before, after = padded[bounds[long]], padded[bounds[long + 1]]
    sign_of = padded[np.maximum(bounds[long] - 1, -1)]
    exponent = np.isin(before, _EXPONENT) | ((before == _MINUS) & np.isin(sign_of, _E))
    decimal = (before == _POINT) | exponent | np.isin(after, _FLOAT_MARKS)
    return bool((~decimal).any())


def _numbers(column: pa.ChunkedArray | pa.Array) -> np.ndarray | None:
    """A column as from_records types it: int64 when whole and complete, float64 (missing:
    NaN, a logged NaN: LOGGED_NAN) when not; None for anything but numbers and nulls."""
    kind = column.type
    if pa.types.is_null(kind):  # a key only ever null: missing everywhere
        return np.full(len(column), np.nan)
    if pa.types.is_int64(kind):
        if column.null_count == 0:
            return column.to_numpy()
        return column.to_numpy(zero_copy_only=False).astype(np.float64)
    if not pa.types.is_float64(kind):
        return None
    values = np.array(column.to_numpy(zero_copy_only=False), dtype=np.float64)
    if ((values == 0) & np.signbit(values)).any():
        return None
    logged = np.isnan(values)
    if column.null_count:
        logged &= column.is_valid().to_numpy(zero_copy_only=False)
    values[logged] = LOGGED_NAN
    return values
