"""Medians and means of the rows of a narrow 2-D array (a long curve cut into buckets of a few
points): whole-column arithmetic instead of numpy's per-row sort and reduction, which on rows
of 2 to 7 values cost ~10x the arithmetic (10k points in buckets of 3: ~100 us a sort)."""

from __future__ import annotations

import numpy as np

# up to 7 values a row, a few whole-column min/max passes beat a sort of every row (as the
# stacked rolling median's network, smoothing._NETWORK_WINDOW_MAX)
NARROW_MAX = 7
# the rows the summation-order check reads: enough that a pairwise or regrouped sum, which
# rounds differently, differs on some of them
_CHECK_ROWS = 2000
# ... with magnitudes spread over e^(+-3) and more, so that sums cancel and round often
_CHECK_LOG_SPREAD = 3.0


def narrow_row_medians(rows: np.ndarray) -> np.ndarray:
    """np.median of each row of a finite (no NaN) float64 array of 2 to NARROW_MAX columns:
    the columns sorted by an odd-even transposition network, the middle one, or the two
    middle ones halved (the same selection and arithmetic as a sort; a zero's sign aside)."""
    width = rows.shape[1]
    cols = [rows[:, k] for k in range(width)]
    for r in range(width):
        for k in range(r % 2, width - 1, 2):
            cols[k], cols[k + 1] = (
                np.minimum(cols[k], cols[k + 1]),
                np.maximum(cols[k], cols[k + 1]),
            )
    h = width // 2
    return cols[h].copy() if width % 2 else (cols[h - 1] + cols[h]) / 2.0


def _column_means(rows: np.ndarray) -> np.ndarray:
    """Each row's values added left to right, over the row length."""
    total = rows[:, 0] + rows[:, 1]
    for k in range(2, rows.shape[1]):
        total += rows[:, k]
    return total / rows.shape[1]


def _numpy_sums_in_order() -> bool:
    """Whether np.mean(rows, axis=1) of every narrow width adds each row left to right, as
    this numpy does (its pairwise summation starts at 8 values): checked on rows whose sums
    round differently in any other order, else np.mean is used."""
    rng = np.random.default_rng(0)
    for width in range(2, NARROW_MAX + 1):
        rows = rng.normal(size=(_CHECK_ROWS, width)) * rng.lognormal(
            _CHECK_LOG_SPREAD, _CHECK_LOG_SPREAD, (_CHECK_ROWS, width)
        )
        if not np.array_equal(_column_means(rows), np.mean(rows, axis=1)):
            return False  # pragma: no cover - another numpy: np.mean itself
    return True


_IN_ORDER = _numpy_sums_in_order()


def narrow_row_means(rows: np.ndarray) -> np.ndarray:
    """np.mean(rows, axis=1) of a float64 array of 2 to NARROW_MAX columns, bit for bit: the
    columns added in numpy's own order, where the import-time check found it."""
    if not _IN_ORDER:  # pragma: no cover - another numpy
        return np.mean(rows, axis=1)
    return _column_means(rows)
