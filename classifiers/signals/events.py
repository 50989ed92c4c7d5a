"""Events in a curve: spikes against the level before them (indices plus properties, like
scipy.signal.find_peaks) and periodicity (autocorrelation: dominant period and strength)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from lossforensics.classifiers.signals.reduce import _blocks, _reduce_blocks, bucket
from lossforensics.classifiers.signals.smoothing import (
    odd_window,
    rolling_mean,
    rolling_median,
    rolling_median_at,
    rolling_min,
    shave_spikes,
)
from lossforensics.classifiers.signals.spread import TINY, noise_level, safe_log
from scipy import signal as sps

# a spike needs a point before it and one after: fewer than 3 points hold no excursion
_SPIKE_MIN_POINTS = 3
# the level a spike is measured against is the median of the window before it: 1/20 (5%) of
# the series, so it follows the loss's descent
_LEVEL_WINDOW_DIVISOR = 20
_LEVEL_WINDOW_MIN = 3  # at least 3 points: a median one earlier spike cannot move
_LEVEL_WINDOW_MAX = 50  # further back the loss has moved on for its own reasons
# the level before a point is a median only where the window's minimum leaves room for a spike,
# unless more than 1/8 of the points do (a climbing curve): then every window is read at once
_SORTED_LEVELS_SHARE = 8
# a period is sought only up to a third of the series by default: three cycles to call it one
_DEFAULT_MIN_CYCLES_IN_SERIES = 3
# an autocorrelation over fewer than 8 points has no peak worth reading
_PERIOD_MIN_POINTS = 8
# the moving mean removing the slow trend is at least 3 points wide: narrower removes nothing
_DETREND_MIN_WINDOW = 3
# an ACF peak must rise 5 points of correlation above the lowest value before it: a bump on a
# slowly decaying ACF is not a cycle
_MIN_PROMINENCE = 0.05
# harmonics (2P, 3P) correlate about as well as P: the first peak within 90% of the best is P
_HARMONIC_SHARE = 0.9
# a fundamental of a fractional number of points (an epoch of 45 steps logged every 2) has no
# lag of its own: the ACF peaks at 2P, a whole number, and splits P's peak between its two
# neighbours. P/k is then read on the ACF between the lags (the spectrum's cosine sum: the
# band-limited interpolation of the ACF), at its highest within half a point of P/k; within 70%
# of the peak at P (the series' samples fall at other phases of each cycle, which blurs a sharp
# edge), it is the fundamental
_FRACTIONAL_SHARE = 0.7
# ...looked for down to P/3 (the cycles of a fractional period repeat their sampling every 2 or 3)
_FRACTIONAL_DIVISORS = (3, 2)
# ...read at this many lags across the point around P/k
_FRACTIONAL_PROBES = 5
# a loss is read for a cycle only with 8 bucket means, as for any period
_CYCLE_MIN_POINTS = 8
# a loss cycle is at least 4 points long: shorter repeats are what shave_spikes leaves of noise
_CYCLE_MIN_PERIOD = 4
# ... and the longest period tried is never below 5 points, however few cycles fit
_CYCLE_MIN_LONGEST = 5


@dataclass(frozen=True)
class Spikes:
    """Upward excursions that came back down, like scipy.signal.find_peaks: indices into the
    input plus their properties (one entry per excursion)."""

    indices: np.ndarray  # index of each excursion's highest point
    heights: np.ndarray  # value minus the level before it
    z: np.ndarray  # height in units of the point-to-point noise
    before: np.ndarray  # level just before (median of the preceding window)
    widths: np.ndarray  # points above the threshold
    recovered: np.ndarray  # bool: came back to within half the height

    def __len__(self) -> int:
        return len(self.indices)


def _no_spikes() -> Spikes:
    return Spikes(
        np.zeros(0, dtype=np.int64),
        np.zeros(0),
        np.zeros(0),
        np.zeros(0),
        np.zeros(0),
        np.zeros(0, dtype=bool),
    )


def _group_runs(flag: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Start and end (exclusive) indices of consecutive True runs."""
    d = np.diff(np.concatenate(([0], flag.astype(np.int8), [0])))
    return np.flatnonzero(d == 1), np.flatnonzero(d == -1)


def _block_argmax(y: np.ndarray, size: int) -> np.ndarray:
    """Position of each block's maximum within its block of `size` points (the last block may
    be shorter), NaN ignored (np.nanargmax's): full blocks are read in place unless a NaN needs
    padding them out."""
    if np.isnan(y).any():
        return np.nanargmax(_blocks(y, size), axis=1)
    full = len(y) // size
    pos = np.argmax(y[: full * size].reshape(full, size), axis=1)
    return np.append(pos, np.argmax(y[full * size :])) if len(y) > full * size else pos


def _level_before(
    level: np.ndarray, k: int, peaks: np.ndarray, margin: float
) -> tuple[np.ndarray, Callable[[np.ndarray], np.ndarray]]:
    """The level before each point (the trailing median of the `k` points before it; the first
    point's own value), exact wherever `peaks` may rise more than `margin` above it (where a
    spike may be), and the trailing median at any indices. A median is never under its window's
    minimum, so where `peaks` minus that minimum is not over `margin` the minimum stands in,
    and only the other windows are sorted (a few on a trained curve)."""
    if np.isfinite(level).all():
        lowest = np.concatenate(([level[0]], rolling_min(level, k, center=False)[:-1]))
        maybe = np.flatnonzero(peaks - lowest > margin)
        if len(maybe) * _SORTED_LEVELS_SHARE <= len(level):
            before = lowest
            inner = maybe[maybe > 0]
            before[inner] = rolling_median_at(level, k, inner - 1, center=False)
            return before, lambda at: rolling_median_at(level, k, at, center=False)
    trailing = rolling_median(level, k, center=False)
    return np.concatenate(([level[0]], trailing[:-1])), lambda at: trailing[at]


def find_spikes(
    y: np.ndarray,
    *,
    # 6 noise sigmas: Gaussian noise passes it about once in a billion points
    z_min: float = 6.0,
    min_height: float = 0.0,
    window: int | None = None,
    # block maxima beyond this many points: a one-point spike survives, the cost stays flat
    max_points: int = 20000,
    noise: float | None = None,
) -> Spikes:
    """Points that jump above the level of the `window` points before them by at least `z_min`
    noise sigmas and `min_height`, grouped into excursions. A long series is reduced to block
    maxima first (the threshold rises by the expected maximum of a block's noise). `noise` is
    `noise_level(y)` when the caller has it already."""
    y = np.asarray(y, dtype=np.float64)
    n_all = len(y)
    if n_all < _SPIKE_MIN_POINTS:
        return _no_spikes()
    sigma = max(noise_level(y) if noise is None else noise, TINY)
    size = max(1, -(-n_all // max_points))
    if size > 1:
        level = _reduce_blocks(y, size, "median")
        origin = np.minimum(np.arange(len(level)) * size + _block_argmax(y, size), n_all - 1)
        peaks = y[origin]
        z_min = z_min + np.sqrt(2.0 * np.log(size))
    else:
        level, peaks, origin = y, y, np.arange(n_all)
    n = len(level)
    k = window or max(_LEVEL_WINDOW_MIN, min(_LEVEL_WINDOW_MAX, n // _LEVEL_WINDOW_DIVISOR))
    before, trailing_at = _level_before(level, k, peaks, max(z_min * sigma, min_height))
    excess = peaks - before
    flag = (excess > z_min * sigma) & (excess > min_height)
    starts, ends = _group_runs(flag)
    if len(starts) == 0:
        return _no_spikes()
    # the highest point of each excursion (reduceat over the flagged runs)
    seg_max = np.maximum.reduceat(np.where(flag, excess, -np.inf), starts)
    owner = np.repeat(np.arange(len(starts)), ends - starts)
    member = np.flatnonzero(flag)  # in order, so it lines up with `owner`
    is_top = excess[member] == seg_max[owner]
    _, first = np.unique(owner[is_top], return_index=True)
    top = member[is_top][first]
    base = before[starts]
    after_idx = np.minimum(ends + k, n - 1)
    after = trailing_at(after_idx)
    heights = excess[top]
    # came back within half its height, with at least two points after it to show it
    recovered = ((after - base) <= 0.5 * heights) & (ends + 2 <= n)
    return Spikes(
        origin[top].astype(np.int64),
        heights,
        heights / sigma,
        base,
        (ends - starts) * size,
        recovered,
    )


# ------------------------------------------------------------------------------ periodicity


@dataclass(frozen=True)
class Periodicity:
    period: float  # in points of the input (0 when none)
    strength: float  # autocorrelation of the detrended series at that lag, in [-1, 1]
    cycles: float  # how many periods the series holds
    prominence: float = 0.0  # strength minus the lowest autocorrelation at a shorter lag


def autocorrelation(y: np.ndarray, max_lag: int) -> np.ndarray:
    """Normalised autocorrelation for lags 0..max_lag via FFT."""
    power = _power_spectrum(y)
    return np.zeros(max_lag + 1) if power is None else _acf_of(power, max_lag)


def _acf_of(power: np.ndarray, max_lag: int) -> np.ndarray:
    """The normalised autocorrelation for lags 0..max_lag from its spectrum (`_power_spectrum`)."""
    acf = np.fft.irfft(power, 2 * (len(power) - 1))[: max_lag + 1]
    return acf / acf[0]


def _power_spectrum(y: np.ndarray) -> np.ndarray | None:
    """|FFT|^2 of the mean-free series zero-padded to twice its length (a power of two): the
    autocorrelation's spectrum without wrap-around. None for a constant or empty series."""
    y = np.asarray(y, dtype=np.float64)
    y = y - y.mean()
    if len(y) == 0 or not np.any(y):
        return None
    nfft = 1 << int(np.ceil(np.log2(2 * len(y))))
    f = np.fft.rfft(y, nfft)
    return (f * np.conj(f)).real


def _acf_between_lags(power: np.ndarray, lags: np.ndarray) -> np.ndarray:
    """The normalised autocorrelation at fractional lags: the inverse transform of `power`
    (an rfft's) summed as cosines at each lag."""
    nfft = 2 * (len(power) - 1)
    weight = np.full(len(power), 2.0)
    weight[0] = weight[-1] = 1.0
    k = np.arange(len(power))
    waves = np.cos(2 * np.pi * np.outer(lags, k) / nfft)
    return (waves @ (weight * power)) / float(np.dot(weight, power))


def dominant_period(
    y: np.ndarray,
    # a period of 3 points is the shortest that is a shape rather than an alternation
    min_period: int = 3,
    max_period: int | None = None,
    # block means beyond 2^14 points: the FFT stays cheap, cycles of a few blocks survive
    max_points: int = 16384,
) -> Periodicity:
    """The lag of the strongest autocorrelation peak after removing the slow trend."""
    y = np.asarray(y, dtype=np.float64)
    n_all = len(y)
    size = max(1, -(-n_all // max_points))
    yb = _reduce_blocks(y, size, "mean") if size > 1 else y
    n = len(yb)
    max_p = min(max_period // size if max_period else n // _DEFAULT_MIN_CYCLES_IN_SERIES, n // 2)
    min_p = max(2, min_period // size)
    if n < _PERIOD_MIN_POINTS or max_p <= min_p:
        return Periodicity(0.0, 0.0, 0.0, 0.0)
    detrended = yb - rolling_mean(yb, odd_window(n, 1.0, lo=_DETREND_MIN_WINDOW, hi=2 * max_p + 1))
    power = _power_spectrum(detrended)
    if power is None:
        return Periodicity(0.0, 0.0, 0.0, 0.0)
    acf = _acf_of(power, max_p)
    peaks, _ = sps.find_peaks(acf)
    # a real cycle dips between its peaks: a bump on a slowly decaying ACF is not one
    lowest_before = np.minimum.accumulate(acf)
    prominence = acf[peaks] - lowest_before[peaks - 1]
    keep = (peaks >= min_p) & (prominence >= _MIN_PROMINENCE)
    peaks, prominence = peaks[keep], prominence[keep]
    if len(peaks) == 0:
        return Periodicity(0.0, 0.0, 0.0, 0.0)
    # harmonics (2P, 3P) correlate about as well as P itself: take the first strong peak
    i = int(np.argmax(acf[peaks] >= _HARMONIC_SHARE * acf[peaks].max()))
    lag, strength = _fractional_fundamental(power, acf, int(peaks[i]), min_p)
    period = lag * size
    return Periodicity(period, strength, n_all / period, float(prominence[i]))


def _fractional_fundamental(
    power: np.ndarray, acf: np.ndarray, lag: int, min_lag: int
) -> tuple[float, float]:
    """(lag, autocorrelation) of the cycle's fundamental: `lag` itself, or lag/k (k in
    _FRACTIONAL_DIVISORS, the shortest first) when lag/k is no whole number of points and the
    ACF between the lags around it peaks there (highest inside the probed point, the ACF dipping
    by _MIN_PROMINENCE before it, as for a peak at a lag) within _FRACTIONAL_SHARE of the
    peak at `lag` without exceeding it."""
    strength = float(acf[lag])
    for k in _FRACTIONAL_DIVISORS:
        sub = lag / k
        if lag % k == 0 or sub - 0.5 < min_lag:
            continue
        # the ACF between two lags stays near theirs: neither within half the bar, no peak
        # between them can reach it (and the cosine sums, the costly part, are not read)
        near = float(acf[int(sub) : int(sub) + 2].max())
        if near < 0.5 * _FRACTIONAL_SHARE * strength:
            continue
        lags = sub + np.linspace(-0.5, 0.5, _FRACTIONAL_PROBES)
        between = _acf_between_lags(power, lags)
        best = int(np.argmax(between))
        peak = float(between[best])
        inside = 0 < best < len(lags) - 1
        dipped = float(acf[1 : int(sub)].min()) <= peak - _MIN_PROMINENCE
        # P's samples line up cycle for cycle and P/k's cannot, so P/k correlates less: more
        # is the interpolation overshooting between the samples of a spiky (broadband) series
        if inside and dipped and _FRACTIONAL_SHARE * strength <= peak <= strength:
            return float(lags[best]), peak
    return float(lag), strength


def loss_cycle(
    x: np.ndarray,
    y: np.ndarray,
    # three repeats before a shape is called a cycle: two could be coincidence
    min_cycles: float = 3.0,
    # bucket means beyond 2^14 points, as dominant_period reduces
    max_points: int = 16384,
) -> Periodicity:
    """A loss curve read for a repeating shape, with the period in steps: bucket means on long
    series, one- and two-point spikes shaved off (random bad batches are no cycle), log scale
    when positive, then dominant_period with at least `min_cycles` cycles."""
    xb, yb = bucket(np.asarray(x, np.float64), np.asarray(y, np.float64), max_points, "mean")
    if len(yb) < _CYCLE_MIN_POINTS:
        return Periodicity(0.0, 0.0, 0.0, 0.0)
    per = dominant_period(
        safe_log(shave_spikes(yb)),
        min_period=_CYCLE_MIN_PERIOD,
        max_period=max(int(len(yb) / min_cycles), _CYCLE_MIN_LONGEST),
    )
    step = float(np.median(np.diff(xb)))
    return Periodicity(per.period * step, per.strength, per.cycles, per.prominence)
