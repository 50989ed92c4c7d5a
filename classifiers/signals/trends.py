"""Monotone trends (Theil-Sen + Mann-Kendall), best-so-far and stall points, and change points
(binary segmentation on the mean)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from lossforensics.classifiers.signals._theil_kendall import theil_kendall
from lossforensics.classifiers.signals.reduce import bucket
from lossforensics.classifiers.signals.spread import TINY, noise_level
from scipy import stats

# the default change-point penalty: 3 sigma^2 log n, BIC-like (a split must explain more than
# noise would over n points)
_BIC_PENALTY_FACTOR = 3.0


@dataclass(frozen=True)
class Trend:
    """Theil-Sen slope (per step) with its 95% interval and Kendall's tau with its p-value."""

    slope: float
    low: float
    high: float
    tau: float
    p_value: float
    n: int

    def change(self, x0: float, x1: float) -> float:
        """How far the trend line moves between two steps."""
        return self.slope * (x1 - x0)


def trend(
    x: np.ndarray,
    y: np.ndarray,
    # Theil-Sen is O(n^2): 300 bucket medians hold a trend's shape at a fixed small cost
    max_points: int = 300,
) -> Trend:
    """Robust monotone trend: Theil-Sen + Mann-Kendall on at most `max_points` bucket medians."""
    x, y = bucket(np.asarray(x, np.float64), np.asarray(y, np.float64), max_points, "median")
    n = len(y)
    if n < 2 or np.ptp(x) == 0 or np.ptp(y) == 0:
        return Trend(0.0, 0.0, 0.0, 0.0, 1.0, n)
    if n == 2:  # one pair: its slope, and no significance to speak of
        slope = float((y[1] - y[0]) / (x[1] - x[0]))
        return Trend(slope, slope, slope, float(np.sign(slope)), 1.0, n)
    if np.isfinite(x).all() and np.isfinite(y).all():
        slope, low, high, tau, p = theil_kendall(x, y)  # scipy's numbers, ~10x cheaper
    else:
        slope, _, low, high = stats.theilslopes(y, x)
        tau, p = stats.kendalltau(x, y)
    return Trend(
        float(slope),
        float(low),
        float(high),
        float(np.nan_to_num(tau)),
        float(1.0 if np.isnan(p) else p),
        n,
    )


def best_so_far(y: np.ndarray) -> np.ndarray:
    """Running minimum: the best loss reached by each point."""
    return np.minimum.accumulate(np.asarray(y, dtype=np.float64))


def stall_index(
    level: np.ndarray,
    # within 5% of the whole run's improvement of the final best: what is left is a polish
    tol: float = 0.05,
) -> int:
    """First index from which the best-so-far level improves by at most `tol` of the whole
    run's improvement (0 when the run never improves). `level` should be smoothed."""
    if len(level) < 2:
        return 0
    best = best_so_far(level)
    total = best[0] - best[-1]
    if total <= 0:
        return 0
    return int(np.argmax(best - best[-1] <= tol * total))


def change_points(
    y: np.ndarray,
    *,
    # a loss curve has a handful of regimes (warmup, LR steps): 5 splits cover them
    max_changes: int = 5,
    # a segment of fewer than 5 points is a spike, not a regime
    min_size: int = 5,
    penalty: float | None = None,
) -> np.ndarray:
    """Binary segmentation on the mean (least squares): sorted indices where a new segment
    starts. A split is kept while its cost reduction beats `penalty` (default: BIC-like,
    3 * sigma^2 * log n with sigma the point-to-point noise)."""
    y = np.asarray(y, dtype=np.float64)
    n = len(y)
    if n < 2 * min_size:
        return np.array([], dtype=np.int64)
    if penalty is None:
        penalty = _BIC_PENALTY_FACTOR * max(noise_level(y), TINY) ** 2 * np.log(n)
    segments = [(0, n)]
    found: list[int] = []
    for _ in range(max_changes):  # a handful of splits, each a vectorised O(n) scan
        best = (0.0, -1, -1)
        for a, b in segments:
            gain, at = _best_split(y[a:b], min_size)
            if at > 0 and gain > best[0]:
                best = (gain, a + at, a)
        if best[1] < 0 or best[0] < penalty:
            break
        found.append(best[1])
        seg = next(s for s in segments if s[0] == best[2])
        segments.remove(seg)
        segments += [(seg[0], best[1]), (best[1], seg[1])]
    return np.array(sorted(found), dtype=np.int64)


def _best_split(y: np.ndarray, min_size: int) -> tuple[float, int]:
    """Largest drop in squared error from splitting y in two; (gain, index)."""
    n = len(y)
    if n < 2 * min_size:
        return 0.0, -1
    c1 = np.cumsum(y)
    c2 = np.cumsum(y * y)
    k = np.arange(min_size, n - min_size + 1)
    left = c2[k - 1] - c1[k - 1] ** 2 / k
    right = (c2[-1] - c2[k - 1]) - (c1[-1] - c1[k - 1]) ** 2 / (n - k)
    total = c2[-1] - c1[-1] ** 2 / n
    gains = total - left - right
    i = int(np.argmax(gains))
    return float(gains[i]), int(k[i])


def average_ranks(y: np.ndarray) -> np.ndarray:
    """Ranks from 1, ties sharing their average rank (scipy's rankdata 'average')."""
    y = np.asarray(y, dtype=np.float64)
    order = np.argsort(y, kind="mergesort")
    ordered = y[order]
    bounds = np.flatnonzero(np.r_[True, ordered[1:] != ordered[:-1], True])
    mean_rank = (bounds[:-1] + bounds[1:] + 1) / 2.0  # (first + last) / 2, ranks from 1
    ranks = np.empty(len(y))
    ranks[order] = np.repeat(mean_rank, np.diff(bounds))
    return ranks


def spearman(a: np.ndarray, b: np.ndarray) -> float:
    """Spearman's rank correlation of two finite series of the same length, 0 when either is
    constant: the number scipy's spearmanr gives (Pearson's on average ranks, computed as it
    does), without its per-call input handling, which costs several times the arithmetic on
    the tens of evaluations a val curve holds."""
    if len(a) < 2 or np.ptp(a) == 0 or np.ptp(b) == 0:
        return 0.0
    ranked = np.empty((len(a), 2))
    ranked[:, 0], ranked[:, 1] = average_ranks(a), average_ranks(b)
    matrix = np.asarray(np.corrcoef(ranked, rowvar=False))  # 2 x 2 for two columns
    return float(matrix[1, 0])
