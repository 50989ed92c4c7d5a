"""Numbers read out of many lines of one shape at once.

Lines with the same skeleton (`_plan`) have their digits at the same places, so when they are
ASCII their bytes form a matrix, one row a line, and a number printed at a span is arithmetic
on its columns: an integer is its digits times powers of ten; a decimal `-12.5000` is its
digits as one integer over 10^4, which is exactly the double `float("-12.5000")` gives (both
are correctly rounded, and integers under 2^53 and powers of ten up to 10^22 are exact); so is
`1.5e-05`, 15 over 10^6. Other numbers (nan, inf, more than 15 digits, an exponent past 22)
and non-ASCII lines are read with `float`/`int`.
A packed column of one value throughout is kept as a view of that value (`compact`).
"""

from __future__ import annotations

import calendar
import ctypes
import ctypes.util
import re
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from lossforensics.ingest.console._plan import COUNTER_NAMES

MAX_BYTES = 1 << 24  # a larger group is read with float/int, not as one matrix
_DECIMAL = re.compile(r"([-+]?)(0*)(?:\.(0*))?(?:([eE])([-+]?)(0+))?")
_EXACT_POWER = 22  # 10^k is an exact double up to here
_POWERS = np.asarray([float(10**k) for k in range(_EXACT_POWER + 1)])
_SKELETON = str.maketrans("0123456789", "0000000000")
_EXACT_DIGITS = 15
MAX_DIGITS = 18  # a counter printed with more digits is no count (nor an int64): taken as absent


# a counter printed rounded to a magnitude (`step:26K`, LeRobot's format_big_number): only a
# style whose counter pattern takes the letter reads one (see Style.rounded_steps)
MAGNITUDES = {"K": 10**3, "M": 10**6, "B": 10**9, "T": 10**12}


def counter(digits: str) -> int:
    """An epoch / step / batch number as printed (`26K` is 26000; `1,000` with its thousands
    grouped, where a style's counter pattern takes the commas); -1 (not printed) when it has
    more than MAX_DIGITS digits (a line of fuzz, an id): neither a crash nor a step."""
    digits = digits.replace(",", "")
    scale = MAGNITUDES.get(digits[-1:], 1)
    if scale > 1:
        digits = digits[:-1]
    significant = digits.lstrip("0")
    return int(digits) * scale if len(significant) <= MAX_DIGITS else -1


class Group:
    """Lines of one shape (the same length, digits at the same places)."""

    def __init__(self, lines: list[str]) -> None:
        self.lines = lines
        self.matrix: np.ndarray | None = None
        width = len(lines[0]) if lines else 0
        if lines and len(lines) * (width + 1) <= MAX_BYTES:
            data = "\n".join(lines).encode("utf-8", "surrogatepass") + b"\n"
            if len(data) == len(lines) * (width + 1):  # ASCII: a byte a character
                self.matrix = np.frombuffer(data, dtype=np.uint8).reshape(len(lines), width + 1)

    def texts(self, a: int, b: int) -> list[str]:
        return [ln[a:b] for ln in self.lines]

    def ints(self, a: int, b: int) -> np.ndarray:
        """The integer printed at [a, b) (digits only) on every line (-1 past MAX_DIGITS)."""
        if self.matrix is None or b - a > MAX_DIGITS:
            return np.asarray(list(map(counter, self.texts(a, b))), dtype=np.int64)
        digits = self.matrix[:, a:b].astype(np.int64) - 48
        if digits.size and not ((digits >= 0) & (digits <= 9)).all():  # `26K`: counter reads it
            return np.asarray(list(map(counter, self.texts(a, b))), dtype=np.int64)
        return digits @ (10 ** np.arange(b - a - 1, -1, -1, dtype=np.int64))

    def floats(self, a: int, b: int) -> np.ndarray:
        """The number printed at [a, b) on every line, as `float` reads it (NaN if it cannot)."""
        shape = self.lines[0][a:b].translate(_SKELETON) if self.lines else ""
        m = _DECIMAL.fullmatch(shape)
        whole, frac = (len(m[2]), len(m[3] or "")) if m else (0, 0)
        long_exponent = bool(m and m[6] and len(m[6]) > 4)
        if self.matrix is None or not m or not 0 < whole + frac <= _EXACT_DIGITS or long_exponent:
            return floats(self.texts(a, b))
        start = a + len(m[1])
        mantissa = self.ints(start, start + whole) if whole else 0
        if frac:
            at = start + whole + 1
            mantissa = mantissa * 10**frac + self.ints(at, at + frac)
        mantissa = np.broadcast_to(np.asarray(mantissa, dtype=np.float64), (len(self.lines),))
        if m[6] is None:
            value = mantissa / 10.0**frac
        else:  # E-notation: digits x 10^(exponent - fraction digits), one exact operation
            shift = self.ints(a + m.start(6), a + m.end(6))
            shift = frac - (-shift if m[5] == "-" else shift)
            if np.abs(shift).max() > _EXACT_POWER:
                return floats(self.texts(a, b))
            value = np.where(
                shift >= 0,
                mantissa / _POWERS[np.maximum(shift, 0)],
                mantissa * _POWERS[np.maximum(-shift, 0)],
            )
        value = np.array(value, dtype=np.float64)
        return -value if m[1] == "-" else value

    def walls(self, stamp: tuple[int, ...], days: dict[int, float]) -> np.ndarray:
        """Seconds since the epoch (UTC) of the timestamp at the plan's spans: `y-mo-d h:mi`
        from `stamp[0]`, the seconds at [stamp[2], stamp[3]), the fraction after its separator
        at [stamp[4], stamp[5]) when there is one. An impossible date gives NaN."""
        a, _, s0, s1, f0, f1 = stamp
        date = self.ints(a, a + 4) * 10_000 + self.ints(a + 5, a + 7) * 100
        date += self.ints(a + 8, a + 10)
        unique, where = np.unique(date, return_inverse=True)
        for d in unique.tolist():
            if d not in days:
                days[d] = _day(d)
        day = np.asarray([days[d] for d in unique.tolist()], dtype=np.float64)[where]
        clock = self.ints(a + 11, a + 13) * 3600 + self.ints(a + 14, a + 16) * 60
        wall = day + (clock + self.ints(s0, s1))
        if f1 and f1 - f0 - 1 <= _EXACT_DIGITS:  # digits over 10^k, as float("0.<digits>")
            wall = wall + self.ints(f0 + 1, f1) / 10.0 ** (f1 - f0 - 1)
        elif f1:
            wall = wall + floats(["0." + t[1:] for t in self.texts(f0, f1)])
        return wall


def line_counters(
    lines: Sequence[str], pid: np.ndarray, at: np.ndarray, plans: Sequence[Any]
) -> np.ndarray:
    """The counters (`_plan.COUNTER_NAMES`) printed on lines[at] (-1 where one is not
    printed), read at each line's plan's counter spans, the lines of one plan together."""
    width = len(COUNTER_NAMES)
    out = np.full((len(at), width), -1, dtype=np.int64)
    of = pid[at]
    for p in np.unique(of).tolist():
        rows = np.flatnonzero(of == p)
        group = Group([lines[i] for i in at[rows].tolist()])
        spans = plans[p].counters
        for k in range(width):
            a, b = spans[2 * k], spans[2 * k + 1]
            if a >= 0:
                out[rows, k] = group.ints(a, b)
    return out


def compact(column: np.ndarray) -> np.ndarray:
    """The column, or a read-only view of its one value when every entry holds the same bits
    (no memory a row: most logs have no batch counter, one run, one session)."""
    if len(column) < 2:
        return column
    bits = column.view(f"u{column.itemsize}")
    if (bits == bits[0]).all():
        return np.broadcast_to(column[:1].copy(), column.shape)
    return column


def is_constant(column: np.ndarray) -> bool:
    """A column `compact` made a view of one value."""
    return column.ndim == 1 and len(column) > 1 and column.strides[0] == 0


def _day(date: int) -> float:
    y, rest = divmod(date, 10_000)
    mo, d = divmod(rest, 100)
    try:
        seconds = calendar.timegm((y, mo, d, 0, 0, 0))
    except (ValueError, OverflowError):
        return float("nan")
    return float(seconds) if seconds >= 0 else float("nan")  # as `_prefix` reads a stamp


def floats(values: list[str]) -> np.ndarray:
    try:
        return np.asarray(values, dtype=np.float64)
    except (ValueError, OverflowError):
        return np.array([_float(v) for v in values], dtype=np.float64)


def _float(v: str) -> float:
    try:
        return float(v.rstrip("x"))  # Paddle's `infxxx`: a value padded with x to six places
    except (ValueError, OverflowError):
        return float("nan")


def _malloc_trim() -> Callable[[int], int] | None:
    name = ctypes.util.find_library("c")
    try:
        return getattr(ctypes.CDLL(name), "malloc_trim", None) if name else None
    except OSError:
        return None


_TRIM = _malloc_trim()


def release_freed_memory() -> None:
    """Hand memory freed after reading back to the system before the frame is built. The text
    and the parser's chunks were many blocks of under a few MB, which glibc's malloc keeps in
    its heap once freed (its mmap threshold rises with each large block freed), so without this
    the frame is built on top of the dead chunks and the peak is theirs too (the same call as
    dask's worker memory trimming). No-op where malloc_trim does not exist."""
    if _TRIM is not None:
        _TRIM(0)
