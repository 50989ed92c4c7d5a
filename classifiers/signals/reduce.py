"""Cleaning and reduction: finite points, and equal-count buckets that keep a long series'
shape (medians for levels, block maxima so a one-point spike survives)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from lossforensics.classifiers.signals._narrow_rows import (
    NARROW_MAX,
    narrow_row_means,
    narrow_row_medians,
)


def finite_points(steps: np.ndarray, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(x, y) as float64 with the non-finite values dropped (steps keep their order). When
    every point is finite nothing is copied: read-only views (of the input where it is float64
    already), as several classifiers read the same long curve."""
    x = np.asarray(steps, dtype=np.float64)
    y = np.asarray(values, dtype=np.float64)
    keep = np.isfinite(y)
    if not np.issubdtype(np.asarray(steps).dtype, np.integer):  # integer steps are finite
        keep &= np.isfinite(x)
    if keep.all():
        return _read_only(x), _read_only(y)
    return x[keep], y[keep]


def _read_only(a: np.ndarray) -> np.ndarray:
    view = a.view()
    view.flags.writeable = False
    return view


# Points a group holds on average from which each group's median is one partition of its slice
# (O(n)) rather than its place in one sort of every point (O(n log n)): above it the partitions'
# per-call cost (~10 us) is paid for; below it one sort is cheaper
_PARTITION_GROUP_POINTS = 256
# Groups that are runs of a sorted group column are sorted as rows padded to the longest run,
# unless that pads them to more than this many times the values
_CONTIGUOUS_PAD = 2
# Group numbers spanning fewer than this fit int16 once shifted to start at 0, which numpy's
# stable sort orders by radix (several times faster than its merge sort of int64)
_INT16_SPAN = 2**15


def group_medians(group: np.ndarray, y: np.ndarray) -> np.ndarray:
    """np.median of `y` (no NaN) within each group, groups in sorted order: the same numbers
    (the middle value, or the two middle ones halved; a zero's sign aside) from two sorts
    instead of a median call per group (~10 us of dispatch each on short groups); a few large
    groups (a long curve folded into phase bins) are each partitioned instead."""
    if len(group) and len(group) >= _PARTITION_GROUP_POINTS * (int(np.ptp(group)) + 1):
        order = np.argsort(group, kind="stable")
        g = group[order]
        return _sliced_medians(y[order], np.flatnonzero(np.r_[True, g[1:] != g[:-1]]))
    if len(group) > 1 and bool(np.all(group[1:] >= group[:-1])):
        rows = _contiguous_medians(group, y)
        if rows is not None:
            return rows
    # by value, then a stable sort by group: lexsort((y, group))'s order of the values within
    # each group (ties are equal values), at half its cost; the group numbers as int16 where
    # they fit (numpy's radix sort)
    by_value = np.argsort(y)
    g = group[by_value]
    small = len(g) > 0 and np.issubdtype(g.dtype, np.integer) and int(np.ptp(g)) < _INT16_SPAN
    key = (g - g.min()).astype(np.int16) if small else g
    by_group = np.argsort(key, kind="stable")
    g, v = g[by_group], y[by_value][by_group]
    starts = np.flatnonzero(np.r_[True, g[1:] != g[:-1]])
    count = np.diff(np.r_[starts, len(g)])
    low, high = v[starts + (count - 1) // 2], v[starts + count // 2]
    return np.where(count % 2 == 1, high, (low + high) / 2)


def _contiguous_medians(group: np.ndarray, y: np.ndarray) -> np.ndarray | None:
    """group_medians of groups that are runs of `group` (sorted: a curve's points by the
    evaluation that follows them): each run laid in a row padded with +inf, the rows sorted,
    the middle value(s) read, without sorting every value and then every group. None where
    the rows would pad to more than twice the values, or a zero is among them (equal zeros of
    either sign sort in any order, and the general path fixes which one a median reads)."""
    starts = np.flatnonzero(np.r_[True, group[1:] != group[:-1]])
    count = np.diff(np.r_[starts, len(group)])
    width = int(count.max())
    if len(starts) * width > _CONTIGUOUS_PAD * len(group) or not np.all(y != 0):
        return None
    rows = np.full((len(starts), width), np.inf)
    run = np.repeat(np.arange(len(starts)), count)
    rows[run, np.arange(len(group)) - starts[run]] = y
    rows.sort(axis=1)
    at = np.arange(len(starts))
    low, high = rows[at, (count - 1) // 2], rows[at, count // 2]
    return np.where(count % 2 == 1, high, (low + high) / 2)


def _sliced_medians(v: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """The middle value (or two middle ones halved) of each slice v[starts[i]:starts[i + 1]]."""
    ends = np.r_[starts[1:], len(v)]
    out = np.empty(len(starts))
    for i, (lo, hi) in enumerate(zip(starts.tolist(), ends.tolist(), strict=True)):
        h = (hi - lo) // 2
        if (hi - lo) % 2:
            out[i] = np.partition(v[lo:hi], h)[h]
        else:
            part = np.partition(v[lo:hi], (h - 1, h))
            out[i] = (part[h - 1] + part[h]) / 2
    return out


# past this many values a median is selected among the few around it (`_bracketed`): 1.7x
# cheaper than partitioning 10k (a noise estimate's differences)
_BRACKET_MIN_POINTS = 4096
# ...located by a strided sample of about this many values...
_BRACKET_SAMPLE = 1024
# ...the bracket reaching this many of the sample rank's standard deviations (a binomial
# sqrt(s)/2) either side of the middle: a miss (about 1 in 400 on shuffled values, more on a
# sample that strides in step with a pattern) costs one extra pass, never a wrong value
_BRACKET_Z = 3.0


def _bracketed(a: np.ndarray, ranks: tuple[int, ...]) -> np.ndarray | None:
    """The values of the given ranks (ascending, 0 the smallest) of a long NaN-free float64
    array: a strided sample's quantiles bracket them, the values outside are only counted, and
    those inside are partitioned at the ranks shifted by the count below. None when the counts
    show a rank outside the bracket, a bracket of one value (ties fill it: it would hold
    most of the array), or the value is a zero (whose sign a partition of every value may
    pick differently among equal zeros)."""
    n = a.size
    sample = np.sort(a[:: max(1, n // _BRACKET_SAMPLE)])
    s = len(sample)
    reach = _BRACKET_Z * np.sqrt(s) / 2 + 1
    lo = sample[max(int(ranks[0] / n * s - reach), 0)]
    hi = sample[min(int(ranks[-1] / n * s + reach) + 1, s - 1)]
    if lo == hi:  # one value around the middle (a rounded log's differences): no bracket
        return None
    below = int(np.count_nonzero(a < lo))
    inside = a[(a >= lo) & (a <= hi)]
    at = [r - below for r in ranks]
    if at[0] < 0 or at[-1] >= len(inside):
        return None
    picked = np.partition(inside, at)[at]
    return None if (picked == 0).any() else picked


def median(y: np.ndarray) -> float:
    """np.median of a 1-D array, bit for bit (the middle value, or the two middle ones
    halved), from one partition: np.median's dispatch, NaN check and mean-of-a-slice cost ~3x
    the arithmetic on the short stretches classifiers take medians of; on a long array
    (_BRACKET_MIN_POINTS), from the values around the middle alone (`_bracketed`). Empty,
    NaN-holding or non-float64 input goes to np.median itself."""
    a = np.asarray(y)
    n = a.size
    if a.dtype != np.float64 or a.ndim != 1 or n == 0:
        return float(np.median(a))
    h = n // 2
    if n >= _BRACKET_MIN_POINTS and not np.isnan(a).any():
        middle = _bracketed(a, (h,) if n % 2 else (h - 1, h))
        if middle is not None:
            return float(middle[0] if n % 2 else (middle[0] + middle[1]) / 2.0)
    if n % 2:
        part = np.partition(a, h)
        mid = part[h]
    else:
        part = np.partition(a, (h - 1, h))
        mid = (part[h - 1] + part[h]) / 2.0
    if np.isnan(mid) or np.isnan(part[n - 1 :]).any() or np.isnan(a).any():
        return float(np.median(a))
    return float(mid)


def nan_row_medians(rows: np.ndarray) -> np.ndarray:
    """np.nanmedian(rows, axis=1) of a 2-D float64 array, bit for bit (a zero's sign aside;
    NaN, without its warning, for a row of NaN only), from one sort of the rows: each row's
    middle value, or its two middle values halved, among those that are not NaN (sorted
    last). np.nanmedian masks the NaNs and sorts the masked array, ~20x the cost on a few
    short rows."""
    rows = np.asarray(rows, dtype=np.float64)
    if rows.ndim != 2 or rows.shape[1] == 0:
        return np.nanmedian(rows, axis=1)
    ordered = np.sort(rows, axis=1)
    count = rows.shape[1] - np.count_nonzero(np.isnan(rows), axis=1)
    pick = np.arange(len(rows))
    low = ordered[pick, np.maximum(count - 1, 0) // 2]
    high = ordered[pick, count // 2 - (count == 0)]
    out = np.where(count % 2 == 1, high, (low + high) / 2)
    return np.where(count == 0, np.nan, out)


def _blocks(y: np.ndarray, size: int) -> np.ndarray:
    """y as rows of `size` points, the last row padded with NaN."""
    n = len(y)
    rows = -(-n // size)
    padded = np.full(rows * size, np.nan)
    padded[:n] = y
    return padded.reshape(rows, size)


def _row_median(rows: np.ndarray, axis: int | None = None) -> np.ndarray:
    """np.median of each row, bit for bit (the middle value, or the halved sum of the two middle
    values), from one sort instead of np.median's per-call machinery; rows with a NaN go to
    np.median, which gives NaN for them."""
    if rows.ndim != 2 or axis != 1 or np.isnan(rows).any():
        return np.median(rows, axis=axis)
    if 2 <= rows.shape[1] <= NARROW_MAX:  # buckets of a few points: no sort of every row
        return narrow_row_medians(rows)
    s = np.sort(rows, axis=1)
    h = s.shape[1] // 2
    return s[:, h].copy() if s.shape[1] % 2 else (s[:, h - 1] + s[:, h]) / 2.0


def _row_mean(rows: np.ndarray, axis: int | None = None) -> np.ndarray:
    """np.mean of each row, bit for bit; narrow rows from whole-column sums (_narrow_rows)."""
    if (
        rows.ndim == 2
        and axis == 1
        and 2 <= rows.shape[1] <= NARROW_MAX
        and rows.flags.c_contiguous
    ):
        return narrow_row_means(rows)
    return np.mean(rows, axis=axis)


_REDUCERS: dict[str, Callable[..., Any]] = {
    "median": _row_median,
    "mean": _row_mean,
    "max": np.max,
    "min": np.min,
}


def _reduce_blocks(y: np.ndarray, size: int, how: str) -> np.ndarray:
    """One value per block of `size` points (the last block may be shorter). Full blocks are
    reduced as one 2-D array; nan-aware reducers are avoided (they are 20x slower)."""
    fn = _REDUCERS[how]
    full = len(y) // size
    out = fn(np.asarray(y[: full * size], dtype=np.float64).reshape(full, size), axis=1)
    if len(y) > full * size:
        tail = y[full * size :]
        out = np.append(out, median(tail) if how == "median" else fn(tail))
    return out


def bucket(
    x: np.ndarray, y: np.ndarray, max_points: int, how: str = "median"
) -> tuple[np.ndarray, np.ndarray]:
    """At most `max_points` equal-count buckets: (bucket mean step, reduced value).

    `how` is median (levels, trends), mean (periodicity), max or min (spikes survive).
    A series already short enough comes back unchanged."""
    n = len(y)
    if n <= max_points:
        return x, y
    size = -(-n // max_points)
    return _reduce_blocks(x, size, "mean"), _reduce_blocks(y, size, how)
