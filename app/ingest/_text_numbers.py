"""The numbers of a text column parsed by pandas' C CSV parser, a column at a time.

pd.to_numeric parses each cell of a text column (a CSV column that holds a `NaN` token, as a
diverged run's do) with the C function the CSV parser uses for a float column (pandas'
precise_xstrtod, with the same infinity spellings), one Python object at a time: the cells
written one a line and read back by the parser cost about half. A fast path only: None, and
the caller parses with pd.to_numeric, unless the parser reads every cell as a float (a cell
that is not a number, holds the separator or a line break, or a column the parser reads as
whole numbers or booleans: as int64 `-0` would lose the sign pd.to_numeric keeps)."""

from __future__ import annotations

import csv
import io

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

MIN_CELLS = 1_000  # fewer cells: the parser's fixed cost is more than pd.to_numeric's
_SEPARATOR = "\x1f"  # no number holds it: a cell that does is two fields, and refused
_NEWLINE = pa.scalar("\n", pa.large_string())


def parsed_numbers(col: pd.Series, parse: np.ndarray) -> np.ndarray | None:
    """The values of the `parse` cells of the text column `col` (NaN elsewhere), read by the C
    parser; None where that could differ from pd.to_numeric of those cells."""
    count = int(parse.sum())
    if count < MIN_CELLS:
        return None
    cells = pa.array(col.array).filter(pa.array(parse)).cast(pa.large_string())
    lines = pa.LargeListArray.from_arrays(pa.array([0, count], pa.int64()), cells)
    text = pc.binary_join(lines, _NEWLINE)[0].as_buffer().to_pybytes()
    try:
        column = pd.read_csv(
            io.BytesIO(text),
            header=None,
            names=[0],
            sep=_SEPARATOR,
            na_filter=False,
            skip_blank_lines=False,
            quoting=csv.QUOTE_NONE,
            on_bad_lines="error",
            index_col=False,
            encoding="utf-8",
            engine="c",
        )[0]
    except (ValueError, pd.errors.ParserError):
        return None
    if column.dtype != np.float64 or len(column) != count:
        return None
    values = np.full(len(col), np.nan)
    values[parse] = column.to_numpy()
    return values
