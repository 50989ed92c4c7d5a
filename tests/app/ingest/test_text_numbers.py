"""A text column's numbers read by pandas' C parser (`_text_numbers`) are pd.to_numeric's, value
bits included, or the parser steps aside: `text_cells` gives the same cells either way."""

from __future__ import annotations

import random

import numpy as np
import pandas as pd
import pytest
from lossforensics.ingest import _text_numbers, _values
from lossforensics.ingest._values import text_cells


def _both(col, monkeypatch):
    """(fast, exact) cells of `col`, and whether the parser read the fast ones."""
    read, parsed_numbers = [], _values.parsed_numbers

    def counted(c, parse):
        values = parsed_numbers(c, parse)
        read.append(values is not None)
        return values

    with monkeypatch.context() as m:
        m.setattr(_text_numbers, "MIN_CELLS", 1)
        m.setattr(_values, "parsed_numbers", counted)
        fast = text_cells(col)
    with monkeypatch.context() as m:
        m.setattr(_values, "parsed_numbers", lambda c, parse: None)
        exact = text_cells(col)
    return fast, exact, any(read)


def _assert_same(fast, exact):
    assert (fast.values.view(np.uint64) == exact.values.view(np.uint64)).all()
    assert (fast.keep == exact.keep).all() and (fast.bad == exact.bad).all()


def _column(cells, dtype="str"):
    return pd.Series(pd.array(cells, dtype=dtype))


@pytest.mark.parametrize(
    ("odd", "fast_reads"),
    [
        ("NaN", True),  # a diverged run's token: a value
        (" -nan(ind) ", True),
        (None, True),  # a missing cell
        ("inf", True),
        ("-Infinity", True),
        ("+INF", True),
        ("-0", True),  # among floats: -0.0 both ways
        ("-0.0", True),
        ("  2.5  ", True),
        ("\t2.5", True),
        ("5.", True),
        ("+.5", True),
        ("1E+05", True),
        ("0.30000000000000004441", True),  # more digits than a double holds
        ("123456789012345678901234567890", True),  # past uint64: a float both ways
        ("18446744073709551615", True),
        ("1.7976931348623159e308", True),  # past the largest double: inf both ways
        ("1e500", True),
        ("4.9e-325", True),  # below the least: 0.0
        ("9007199254740993", True),  # past 2**53: rounded the same
        ("abc", False),  # not a number: bad, reported
        ("True", False),  # the parser reads booleans, pd.to_numeric does not
        ("1_000", False),
        ("0x10", False),
        ("\u0661\u0662", False),  # digits that are not ASCII
        ("1\x1f2", False),  # the parser's separator
        ("1\n2", False),  # a line break
        ("1.5\x00abc", False),  # a NUL byte: pd.to_numeric stops at it, the cell is bad
        ("2\x005", False),
        ('"1.5"', False),
        ("", False),
        ("   ", False),
    ],
)
def test_odd_cell_reads_the_same(monkeypatch, odd, fast_reads):
    cells = [repr(1 / (i + 1)) for i in range(50)]
    cells[25] = odd
    fast, exact, read = _both(_column(cells), monkeypatch)
    _assert_same(fast, exact)
    assert read is fast_reads


def test_whole_numbers_and_na_valued_columns_take_to_numeric(monkeypatch):
    ints = [str(i) for i in range(-25, 25)]
    ints[25] = "-0"  # as int64 the parser would drop the sign that pd.to_numeric keeps
    fast, exact, read = _both(_column([*ints, "NaN"]), monkeypatch)
    _assert_same(fast, exact)
    assert not read
    floats = [repr(i / 3) for i in range(50)]
    fast, exact, read = _both(
        _column([*floats, "NaN"], pd.StringDtype(na_value=pd.NA)), monkeypatch
    )
    _assert_same(fast, exact)
    assert not read


def test_random_numbers_parse_the_same(monkeypatch):
    """Every form a logger writes, in columns with NaN tokens and missing cells."""
    rng = random.Random(11)
    for _ in range(20):
        cells = []
        for _ in range(3000):
            x = rng.uniform(-1, 1) * 10.0 ** rng.randint(-330, 307)
            form = rng.choice(("r", ".17g", ".25e", ".30f", ".6g", "int", "big", "e", "pad"))
            if form == "int":
                text = str(rng.randint(-(10**15), 10**15))
            elif form == "big":
                text = str(rng.randint(-(2**63) + 1, 2**63 - 1))
            elif form == "e":
                text = f"{rng.randint(1, 99999)}e{rng.randint(-330, 300)}"
            elif form == "pad":
                text = f" {x!r} "
            else:
                text = repr(x) if form == "r" else format(x, form)
            cells.append(rng.choice((text,) * 20 + ("NaN", None)))
        fast, exact, read = _both(_column(cells), monkeypatch)
        _assert_same(fast, exact)
        assert read
