"""How big is a change: robust spreads, noise, a sign-safe yardstick, log-domain helpers and
robust head/tail levels. Negative and near-zero losses are scaled by spread, never by value."""

from __future__ import annotations

import numpy as np
from lossforensics.classifiers.signals.reduce import median

# a normal distribution's sigma is 1.4826 times its median absolute deviation
MAD_TO_SIGMA = 1.4826
# any yardstick below 1e-12 is zero: a floor that keeps divisions finite on flat curves
TINY = 1e-12
# a normal distribution's interquartile range is 1.349 sigma (the fallback when the MAD is 0)
_IQR_TO_SIGMA = 1.349
_QUARTILES = (75, 25)  # the upper and lower quartile, in percent
# first differences need 3 points to give a median of more than one difference
NOISE_MIN_POINTS = 3
# a systematic sample of 100k differences estimates a MAD as well as all of them, much faster
_NOISE_SAMPLE = 100_000
# the yardstick is never below 3 noise sigmas: a change smaller than that is noise, whatever
# the curve's range
_SCALE_NOISE_MULTIPLE = 3.0
# ... nor below a billionth of the curve's size: a flat curve at 1e6 is not measured in 1e-12s
_SCALE_SIZE_SHARE = 1e-9


def robust_spread(y: np.ndarray) -> float:
    """Sigma-equivalent spread: MAD, else IQR, else 0; 0 for fewer than 2 points."""
    y = np.asarray(y, dtype=np.float64)
    if len(y) < 2:
        return 0.0
    mad = MAD_TO_SIGMA * median(np.abs(y - median(y)))
    if mad > 0:
        return mad
    q75, q25 = np.percentile(y, list(_QUARTILES))
    # more than half the values are equal: the typical spread is nil (outliers do not count)
    return float(q75 - q25) / _IQR_TO_SIGMA if q75 > q25 else 0.0


def noise_level(y: np.ndarray) -> float:
    """Point-to-point noise (sigma) from the MAD of first differences: trend-free."""
    y = np.asarray(y, dtype=np.float64)
    if len(y) < NOISE_MIN_POINTS:
        return 0.0
    # every k-th first difference, y[i + 1] - y[i] for i = 0, k, 2k, ...: np.diff(y)[::k]
    # without differencing the points the sample skips
    k = max(1, (len(y) - 1) // _NOISE_SAMPLE)
    return robust_spread(y[1::k] - y[: len(y) - 1 : k]) / np.sqrt(2.0)


def robust_range(
    y: np.ndarray,
    # the 5th to 95th percentile: how far the curve travels, ignoring its 5% most extreme points
    lo: float = 5.0,
    hi: float = 95.0,  # to the 95th percentile, for the same reason
) -> float:
    """Spread between two percentiles: how far a curve travels, ignoring outliers."""
    if len(y) == 0:
        return 0.0
    a, b = np.percentile(np.asarray(y, dtype=np.float64), [lo, hi])
    return float(b - a)


def scale(y: np.ndarray) -> float:
    """A positive yardstick for 'how big is a change' that works for negative and near-zero
    losses: the curve's robust range, never below its noise or a tiny fraction of its size."""
    y = np.asarray(y, dtype=np.float64)
    if len(y) == 0:
        return 1.0
    size = float(np.max(np.abs(y)))
    return max(
        robust_range(y), _SCALE_NOISE_MULTIPLE * noise_level(y), _SCALE_SIZE_SHARE * size, TINY
    )


def relative_change(before: float, after: float, yardstick: float) -> float:
    """(after - before) / yardstick: positive is a rise, works whatever the sign of the loss."""
    return float((after - before) / max(yardstick, TINY))


def all_positive(y: np.ndarray) -> bool:
    return bool(len(y)) and bool(np.all(np.asarray(y) > 0))


def log_ratio(before: float, after: float) -> float | None:
    """ln(after / before) when both are positive (a factor of change), else None."""
    if before > 0 and after > 0:
        return float(np.log(after / before))
    return None


def safe_log(y: np.ndarray) -> np.ndarray:
    """Natural log for positive curves; a sign-preserving log1p otherwise."""
    y = np.asarray(y, dtype=np.float64)
    if all_positive(y):
        return np.log(y)
    return np.sign(y) * np.log1p(np.abs(y))


def head_level(
    y: np.ndarray,
    # the first 10% of the points: enough to out-vote noise, early enough to be the start
    frac: float = 0.1,
    min_points: int = 1,
) -> float:
    """Median of the first `frac` of the points."""
    k = max(min_points, int(np.ceil(len(y) * frac)))
    return median(np.asarray(y)[:k])


def span_median(y: np.ndarray, lo: float, hi: float) -> float:
    """Median of the points between two fractions of the series (by position), at least one."""
    a = int(lo * len(y))
    return median(np.asarray(y)[a : max(int(hi * len(y)), a + 1)])


def tail_level(
    y: np.ndarray,
    # the last 10% of the points: enough to out-vote noise, late enough to be the end
    frac: float = 0.1,
    min_points: int = 1,
) -> float:
    k = max(min_points, int(np.ceil(len(y) * frac)))
    return median(np.asarray(y)[-k:])
