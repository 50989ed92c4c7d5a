"""Shared signal primitives: what every label file measures a curve with.

All functions take plain numpy arrays (steps `x`, values `y`), never a frame, and are
vectorised: no Python loop runs per point. Long series are first reduced to equal-count
buckets (`bucket`): medians for levels and trends, block maxima for spikes, so the expensive
statistics (Theil-Sen, rolling medians, autocorrelation) cost the same on 1,000,000 points as on
a few thousand while a one-point spike still survives the reduction.

Losses can be negative or near zero (ELBOs, contrastive losses, a converged regression), so
relative changes are scaled by a robust spread of the curve (`scale`), never by the value
itself; log-domain helpers apply only where every value is positive.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import signal as sps
from scipy import stats

MAD_TO_SIGMA = 1.4826
TINY = 1e-12


# --------------------------------------------------------------------------------- cleaning


def finite_points(steps: np.ndarray, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(x, y) as float64 with the non-finite values dropped (steps keep their order)."""
    x = np.asarray(steps, dtype=np.float64)
    y = np.asarray(values, dtype=np.float64)
    keep = np.isfinite(y) & np.isfinite(x)
    return x[keep], y[keep]


def _blocks(y: np.ndarray, size: int) -> np.ndarray:
    """y as rows of `size` points, the last row padded with NaN."""
    n = len(y)
    rows = -(-n // size)
    padded = np.full(rows * size, np.nan)
    padded[:n] = y
    return padded.reshape(rows, size)


_REDUCERS = {"median": np.median, "mean": np.mean, "max": np.max, "min": np.min}


def _reduce_blocks(y: np.ndarray, size: int, how: str) -> np.ndarray:
    """One value per block of `size` points (the last block may be shorter). Full blocks are
    reduced as one 2-D array; nan-aware reducers are avoided (they are 20x slower)."""
    fn = _REDUCERS[how]
    full = len(y) // size
    out = fn(np.asarray(y[: full * size], dtype=np.float64).reshape(full, size), axis=1)
    if len(y) > full * size:
        out = np.append(out, fn(y[full * size:]))
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


# ------------------------------------------------------------------------------- smoothing


def odd_window(n: int, frac: float, lo: int = 1, hi: int | None = None) -> int:
    """An odd window of about `frac` of `n` points, clipped to [lo, hi or n]."""
    w = int(round(n * frac))
    w = max(lo, min(w, hi if hi is not None else n))
    w = max(1, min(w, n))
    return w if w % 2 else max(1, w - 1)


def rolling_median(y: np.ndarray, window: int, *, center: bool = True) -> np.ndarray:
    """Rolling median (edges use the points available): robust to one-point spikes."""
    if window <= 1 or len(y) == 0:
        return np.asarray(y, dtype=np.float64).copy()
    s = pd.Series(y, dtype=np.float64)
    return s.rolling(window, center=center, min_periods=1).median().to_numpy()


def rolling_mean(y: np.ndarray, window: int, *, center: bool = True) -> np.ndarray:
    if window <= 1 or len(y) == 0:
        return np.asarray(y, dtype=np.float64).copy()
    s = pd.Series(y, dtype=np.float64)
    return s.rolling(window, center=center, min_periods=1).mean().to_numpy()


def ewma(x: np.ndarray, y: np.ndarray, halflife: float) -> np.ndarray:
    """Exponentially weighted mean whose half-life is in steps, correct on uneven steps."""
    if len(y) == 0:
        return np.asarray(y, dtype=np.float64)
    times = pd.to_datetime(np.asarray(x, dtype=np.float64) - float(x[0]), unit="s")
    s = pd.Series(np.asarray(y, dtype=np.float64), index=times)
    return s.ewm(halflife=pd.Timedelta(seconds=max(float(halflife), 1e-9)),
                 times=times).mean().to_numpy()


def savgol(y: np.ndarray, window: int, polyorder: int = 2) -> np.ndarray:
    """Savitzky-Golay smoothing; falls back to the input when the window is too short."""
    window = min(window, len(y) if len(y) % 2 else len(y) - 1)
    if window <= polyorder + 1:
        return np.asarray(y, dtype=np.float64).copy()
    return sps.savgol_filter(np.asarray(y, dtype=np.float64), window, polyorder, mode="interp")


def smooth(
    x: np.ndarray, y: np.ndarray, frac: float = 0.05, max_points: int = 4000
) -> tuple[np.ndarray, np.ndarray]:
    """The curve a person sees through the noise: bucket medians, then a rolling median over
    about `frac` of the run. Returns (steps, level)."""
    xb, yb = bucket(x, y, max_points, "median")
    return xb, rolling_median(yb, odd_window(len(yb), frac))


# ------------------------------------------------------------------------------ spread


def robust_spread(y: np.ndarray) -> float:
    """Sigma-equivalent spread: MAD, else IQR, else 0; 0 for fewer than 2 points."""
    y = np.asarray(y, dtype=np.float64)
    if len(y) < 2:
        return 0.0
    mad = MAD_TO_SIGMA * float(np.median(np.abs(y - np.median(y))))
    if mad > 0:
        return mad
    q75, q25 = np.percentile(y, [75, 25])
    # more than half the values are equal: the typical spread is nil (outliers do not count)
    return float(q75 - q25) / 1.349 if q75 > q25 else 0.0


def noise_level(y: np.ndarray) -> float:
    """Point-to-point noise (sigma) from the MAD of first differences: trend-free."""
    y = np.asarray(y, dtype=np.float64)
    if len(y) < 3:
        return 0.0
    d = np.diff(y)
    # a systematic sample of 100k differences estimates a MAD as well as all of them
    return robust_spread(d[:: max(1, len(d) // 100_000)]) / np.sqrt(2.0)


def robust_range(y: np.ndarray, lo: float = 5.0, hi: float = 95.0) -> float:
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
    return max(robust_range(y), 3.0 * noise_level(y), 1e-9 * size, TINY)


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


def head_level(y: np.ndarray, frac: float = 0.1, min_points: int = 1) -> float:
    """Median of the first `frac` of the points."""
    k = max(min_points, int(np.ceil(len(y) * frac)))
    return float(np.median(y[:k]))


def tail_level(y: np.ndarray, frac: float = 0.1, min_points: int = 1) -> float:
    k = max(min_points, int(np.ceil(len(y) * frac)))
    return float(np.median(y[-k:]))


# ------------------------------------------------------------------------------ trends


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


def trend(x: np.ndarray, y: np.ndarray, max_points: int = 300) -> Trend:
    """Robust monotone trend: Theil-Sen + Mann-Kendall on at most `max_points` bucket medians."""
    x, y = bucket(np.asarray(x, np.float64), np.asarray(y, np.float64), max_points, "median")
    n = len(y)
    if n < 2 or np.ptp(x) == 0 or np.ptp(y) == 0:
        return Trend(0.0, 0.0, 0.0, 0.0, 1.0, n)
    if n == 2:  # one pair: its slope, and no significance to speak of
        slope = float((y[1] - y[0]) / (x[1] - x[0]))
        return Trend(slope, slope, slope, float(np.sign(slope)), 1.0, n)
    slope, _, low, high = stats.theilslopes(y, x)
    tau, p = stats.kendalltau(x, y)
    return Trend(float(slope), float(low), float(high), float(np.nan_to_num(tau)),
                 float(1.0 if np.isnan(p) else p), n)


def best_so_far(y: np.ndarray) -> np.ndarray:
    """Running minimum: the best loss reached by each point."""
    return np.minimum.accumulate(np.asarray(y, dtype=np.float64))


def stall_index(level: np.ndarray, tol: float = 0.05) -> int:
    """First index from which the best-so-far level improves by at most `tol` of the whole
    run's improvement (0 when the run never improves). `level` should be smoothed."""
    if len(level) < 2:
        return 0
    best = best_so_far(level)
    total = best[0] - best[-1]
    if total <= 0:
        return 0
    return int(np.argmax(best - best[-1] <= tol * total))


# ------------------------------------------------------------------------------ spikes


@dataclass(frozen=True)
class Spikes:
    """Upward excursions that came back down, like scipy.signal.find_peaks: indices into the
    input plus their properties (one entry per excursion)."""

    indices: np.ndarray     # index of each excursion's highest point
    heights: np.ndarray     # value minus the level before it
    z: np.ndarray           # height in units of the point-to-point noise
    before: np.ndarray      # level just before (median of the preceding window)
    widths: np.ndarray      # points above the threshold
    recovered: np.ndarray   # bool: came back to within half the height

    def __len__(self) -> int:
        return len(self.indices)


def _group_runs(flag: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Start and end (exclusive) indices of consecutive True runs."""
    d = np.diff(np.concatenate(([0], flag.astype(np.int8), [0])))
    return np.flatnonzero(d == 1), np.flatnonzero(d == -1)


def find_spikes(
    y: np.ndarray,
    *,
    z_min: float = 6.0,
    min_height: float = 0.0,
    window: int | None = None,
    max_points: int = 20000,
) -> Spikes:
    """Points that jump above the level of the `window` points before them by at least `z_min`
    noise sigmas and `min_height`, grouped into excursions. A long series is reduced to block
    maxima first (the threshold rises by the expected maximum of a block's noise)."""
    y = np.asarray(y, dtype=np.float64)
    n_all = len(y)
    empty = np.array([], dtype=np.int64)
    if n_all < 3:
        return Spikes(empty, *(np.array([]) for _ in range(4)), np.array([], dtype=bool))
    sigma = max(noise_level(y), TINY)
    size = max(1, -(-n_all // max_points))
    if size > 1:
        blocks = _blocks(y, size)
        level = _reduce_blocks(y, size, "median")
        peak_pos = np.nanargmax(blocks, axis=1)
        peaks = blocks[np.arange(len(blocks)), peak_pos]
        origin = np.minimum(np.arange(len(blocks)) * size + peak_pos, n_all - 1)
        z_min = z_min + np.sqrt(2.0 * np.log(size))
    else:
        level, peaks, origin = y, y, np.arange(n_all)
    n = len(level)
    k = window or max(3, min(50, n // 20))
    trailing = rolling_median(level, k, center=False)
    before = np.concatenate(([level[0]], trailing[:-1]))
    excess = peaks - before
    flag = (excess > z_min * sigma) & (excess > min_height)
    starts, ends = _group_runs(flag)
    if len(starts) == 0:
        return Spikes(empty, *(np.array([]) for _ in range(4)), np.array([], dtype=bool))
    # the highest point of each excursion (reduceat over the flagged runs)
    seg_max = np.maximum.reduceat(np.where(flag, excess, -np.inf), starts)
    owner = np.repeat(np.arange(len(starts)), ends - starts)
    member = np.flatnonzero(flag)  # in order, so it lines up with `owner`
    is_top = excess[member] == seg_max[owner]
    _, first = np.unique(owner[is_top], return_index=True)
    top = member[is_top][first]
    base = before[starts]
    after_idx = np.minimum(ends + k, n - 1)
    after = trailing[after_idx]
    heights = excess[top]
    recovered = (after - base) <= 0.5 * heights
    return Spikes(origin[top].astype(np.int64), heights, heights / sigma, base,
                  (ends - starts) * size, recovered)


# ------------------------------------------------------------------------------ periodicity


@dataclass(frozen=True)
class Periodicity:
    period: float      # in points of the input (0 when none)
    strength: float    # autocorrelation of the detrended series at that lag, in [-1, 1]
    cycles: float      # how many periods the series holds
    prominence: float = 0.0  # strength minus the lowest autocorrelation at a shorter lag


def autocorrelation(y: np.ndarray, max_lag: int) -> np.ndarray:
    """Normalised autocorrelation for lags 0..max_lag via FFT."""
    y = np.asarray(y, dtype=np.float64)
    y = y - y.mean()
    n = len(y)
    if n == 0 or not np.any(y):
        return np.zeros(max_lag + 1)
    nfft = 1 << int(np.ceil(np.log2(2 * n)))
    f = np.fft.rfft(y, nfft)
    acf = np.fft.irfft(f * np.conj(f), nfft)[: max_lag + 1]
    return acf / acf[0]


def dominant_period(
    y: np.ndarray, min_period: int = 3, max_period: int | None = None, max_points: int = 16384
) -> Periodicity:
    """The lag of the strongest autocorrelation peak after removing the slow trend."""
    y = np.asarray(y, dtype=np.float64)
    n_all = len(y)
    size = max(1, -(-n_all // max_points))
    yb = _reduce_blocks(y, size, "mean") if size > 1 else y
    n = len(yb)
    max_p = min(max_period // size if max_period else n // 3, n // 2)
    min_p = max(2, min_period // size)
    if n < 8 or max_p <= min_p:
        return Periodicity(0.0, 0.0, 0.0, 0.0)
    detrended = yb - rolling_mean(yb, odd_window(n, 1.0, lo=3, hi=2 * max_p + 1))
    acf = autocorrelation(detrended, max_p)
    peaks, _ = sps.find_peaks(acf)
    # a real cycle dips between its peaks: a bump on a slowly decaying ACF is not one
    lowest_before = np.minimum.accumulate(acf)
    prominence = acf[peaks] - lowest_before[peaks - 1]
    keep = (peaks >= min_p) & (prominence >= 0.05)
    peaks, prominence = peaks[keep], prominence[keep]
    if len(peaks) == 0:
        return Periodicity(0.0, 0.0, 0.0, 0.0)
    # harmonics (2P, 3P) correlate about as well as P itself: take the first strong peak
    i = int(np.argmax(acf[peaks] >= 0.9 * acf[peaks].max()))
    period = float(peaks[i] * size)
    return Periodicity(period, float(acf[peaks[i]]), n_all / period, float(prominence[i]))


# --------------------------------------------------------------------------- change points


def change_points(
    y: np.ndarray, *, max_changes: int = 5, min_size: int = 5, penalty: float | None = None
) -> np.ndarray:
    """Binary segmentation on the mean (least squares): sorted indices where a new segment
    starts. A split is kept while its cost reduction beats `penalty` (default: BIC-like,
    3 * sigma^2 * log n with sigma the point-to-point noise)."""
    y = np.asarray(y, dtype=np.float64)
    n = len(y)
    if n < 2 * min_size:
        return np.array([], dtype=np.int64)
    if penalty is None:
        penalty = 3.0 * max(noise_level(y), TINY) ** 2 * np.log(n)
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
