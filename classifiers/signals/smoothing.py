"""Smoothing on possibly uneven steps: rolling median/mean, EWMA with a half-life in steps,
Savitzky-Golay, and `smooth`, the level a person sees through the noise."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
from lossforensics.classifiers.signals.reduce import bucket, nan_row_medians
from scipy import ndimage
from scipy import signal as sps

# pandas' private rolling kernels are used only if they give the public path's numbers on this
# small unsorted series (medians and means both differ from any one value)
_KERNEL_CHECK_SERIES = (3.0, 1.0, 4.0, 1.0, 5.0, 9.0, 2.0)
_KERNEL_CHECK_WINDOW = 3  # centred and odd: partial edge windows and full ones both checked
# a rolling median whose stacked windows hold at most 4096 values (a short series) is taken
# from one sort of them; on longer series scipy's rank filter is cheaper, whatever the window
# (at 10k points: 3x at 9 points wide, 1.3x at 5)
_SORTED_MAX_VALUES = 4096
# up to 7 points wide, a few whole-array min/max passes beat n tiny sorts
_NETWORK_WINDOW_MAX = 7
# the default smoothing window, a share of the run: a rolling median over 5% hides single-batch
# noise and keeps the run's turns
SMOOTH_FRAC = 0.05
# a curve under 40 points has too few to spare for a rolling median (a 5% window would be one or
# two points): it is read point by point
SMOOTH_MIN_POINTS = 40


def smoothing_frac(points: int) -> float:
    """The rolling median's share of a curve of `points` finite points: SMOOTH_FRAC, or 0
    (unsmoothed) under SMOOTH_MIN_POINTS."""
    return SMOOTH_FRAC if points >= SMOOTH_MIN_POINTS else 0.0


# a half-life below a nanosecond of pandas' time axis is zero: no smoothing, no division by 0
_MIN_HALFLIFE = 1e-9


def _private_kernels() -> tuple[Any, Any]:
    """The kernels behind Series.rolling().mean()/.median(), called directly on finite series
    (a Series and a Rolling cost 3x the sums). They are private to pandas (no public API takes
    window bounds), so they are used only where they import and give the public path's numbers
    on a small check; otherwise (None, None) and every call goes through Series.rolling."""
    try:
        from pandas._libs.window.aggregations import roll_mean, roll_median_c

        y = np.array(_KERNEL_CHECK_SERIES)
        w = _KERNEL_CHECK_WINDOW
        stop = np.arange(2, len(y) + 2, dtype=np.int64)  # window 3, centred: pandas' bounds
        start, stop = (stop - w).clip(0, len(y)), stop.clip(0, len(y))
        s = pd.Series(y).rolling(w, center=True, min_periods=1)
        if np.allclose(roll_mean(y, start, stop, 1), s.mean()) and np.allclose(
            roll_median_c(y, start, stop, 1), s.median()
        ):
            return roll_mean, roll_median_c
    except Exception:  # pragma: no cover - another pandas: the public path
        pass
    return None, None  # pragma: no cover


_roll_mean_c, _roll_median_c = _private_kernels()


def odd_window(n: int, frac: float, lo: int = 1, hi: int | None = None) -> int:
    """An odd window of about `frac` of `n` points, clipped to [lo, hi or n]."""
    w = int(round(n * frac))
    w = max(lo, min(w, hi if hi is not None else n))
    w = max(1, min(w, n))
    return w if w % 2 else max(1, w - 1)


def rolling_median(y: np.ndarray, window: int, *, center: bool = True) -> np.ndarray:
    """Rolling median (edges use the points available): robust to one-point spikes.

    The numbers of pandas' `rolling(window, center, min_periods=1).median()`; on a finite
    short series from one sort of the stacked windows (pandas' skip list and its per-call
    set-up cost more than the arithmetic there), on a longer one from scipy's rank filter
    with the edges from pandas' kernel called directly."""
    y = np.asarray(y, dtype=np.float64)
    if window <= 1 or len(y) == 0:
        return y.copy()
    if np.isfinite(y).all():  # (pandas reads inf as NaN: those series go through pandas)
        offset = (window - 1) // 2 if center else 0
        if len(y) * window <= _SORTED_MAX_VALUES:
            return _sorted_rolling_median(y, window, offset)
        if window <= _NETWORK_WINDOW_MAX and len(y) >= window:
            return _network_rolling_median(y, window, offset)
        if _roll_median_c is not None:
            return _ranked_rolling_median(y, window, offset)
    s = pd.Series(y, dtype=np.float64)
    return s.rolling(window, center=center, min_periods=1).median().to_numpy()


def _sorted_rolling_median(y: np.ndarray, window: int, offset: int) -> np.ndarray:
    """Point i's median over y[i + 1 + offset - window : i + 1 + offset] (clipped to the
    series; pandas' window bounds): the windows stacked +inf-padded (y is finite), sorted, and
    the middle one or two of each window's real values, halved as pandas halves them."""
    n = len(y)
    padded = np.concatenate((np.full(window - 1 - offset, np.inf), y, np.full(offset, np.inf)))
    windows = np.lib.stride_tricks.sliding_window_view(padded, window)
    if window <= _NETWORK_WINDOW_MAX:  # a few whole-array min/max passes beat n tiny sorts
        rows = np.stack(_sorted_columns([windows[:, k] for k in range(window)]), axis=1)
    else:
        rows = np.sort(windows, axis=1)
    stop = np.arange(1 + offset, n + 1 + offset)
    count = np.minimum(stop, n) - np.clip(stop - window, 0, n)
    at = np.arange(n)
    low, high = rows[at, (count - 1) // 2], rows[at, count // 2]
    return np.where(count % 2 == 1, high, (low + high) / 2)


def _sorted_columns(cols: list[np.ndarray]) -> list[np.ndarray]:
    """Equal-length columns sorted across (row by row: the first column holds each row's
    smallest value) by an odd-even transposition network of whole-array min/max passes."""
    cols = list(cols)
    for r in range(len(cols)):
        for k in range(r % 2, len(cols) - 1, 2):
            cols[k], cols[k + 1] = (
                np.minimum(cols[k], cols[k + 1]),
                np.maximum(cols[k], cols[k + 1]),
            )
    return cols


def _network_rolling_median(y: np.ndarray, window: int, offset: int) -> np.ndarray:
    """A long finite series and a window of at most _NETWORK_WINDOW_MAX points (shave_spikes'
    5 over a whole run): the full windows from a sorting network over `window` shifted views
    of the series (no stacked copy of the windows, no per-window sort: ~3x cheaper than the
    rank filter at 10k points), the few partial windows at the ends (under `window` each) one
    by one: the middle of the sorted values, or the two middle ones halved, as pandas does."""
    n = len(y)
    # point i's window is y[i + 1 + offset - window : i + 1 + offset]: whole from lo to hi
    lo, hi = window - 1 - offset, n - offset
    cols = _sorted_columns([y[k : k + hi - lo] for k in range(window)])
    h = window // 2
    out = np.empty(n)
    out[lo:hi] = cols[h] if window % 2 else (cols[h - 1] + cols[h]) / 2
    for i in (*range(lo), *range(hi, n)):
        part = sorted(y[max(i + 1 + offset - window, 0) : i + 1 + offset].tolist())
        mid = len(part) // 2
        out[i] = part[mid] if len(part) % 2 else (part[mid - 1] + part[mid]) / 2
    return out


def _ranked_rolling_median(
    y: np.ndarray, window: int, offset: int, start: int = 0, stop: int | None = None
) -> np.ndarray:
    """Points `start` to `stop` (all by default) of a finite series: where the window lies
    wholly inside the series (points `lo` to `hi`, one slice), its middle value(s) from scipy's
    rank filter over the points those windows hold (a selection, so the same numbers, ~5x
    faster than the skip list); the partial windows at the series' edges from pandas' own
    kernel, called directly. Slices, not masks: the index arithmetic cost a third of the
    filter."""
    n = len(y)
    stop = n if stop is None else stop
    # point i's window is y[i + 1 + offset - window : i + 1 + offset]: whole from lo up to hi
    lo = min(window - 1 - offset, n)
    hi = max(n - offset, lo)
    out = np.empty(stop - start)
    first, last = max(lo, start), min(hi, stop)  # the span's points with whole windows
    if last > first:  # scipy centres the window starting at s on s + window // 2
        held = np.ascontiguousarray(y[first + 1 + offset - window : last + offset])
        at = slice(window // 2, window // 2 + last - first)
        if window % 2:
            out[first - start : last - start] = ndimage.median_filter(held, size=window)[at]
        else:  # pandas' even-count median: the two middle values, halved
            low = ndimage.rank_filter(held, window // 2 - 1, size=window)[at]
            high = ndimage.rank_filter(held, window // 2, size=window)[at]
            out[first - start : last - start] = (low + high) / 2
    # (two aranges joined: np.r_ parses its slices in Python, ~5x the cost)
    edge = np.concatenate((np.arange(start, min(lo, stop)), np.arange(max(hi, start), stop)))
    if len(edge):
        ends = edge + (1 + offset)
        out[edge - start] = np.asarray(
            _roll_median_c(
                np.ascontiguousarray(y), np.clip(ends - window, 0, n), np.minimum(ends, n), 1
            )
        )
    return out


def rolling_median_span(
    y: np.ndarray, window: int, start: int, stop: int, *, center: bool = True
) -> np.ndarray:
    """`rolling_median(y, window, center=center)[start:stop]` from the windows of those points
    alone: a long curve's head or tail without its middle. Each of those windows, whole or cut
    by y's own ends, holds the same points in the stretch of y they span, so the median of
    that stretch is the same there; the rank filter reads only the stretch, and no partial
    window is computed at its cut ends."""
    y = np.asarray(y, dtype=np.float64)
    n = len(y)
    start, stop = max(start, 0), min(stop, n)
    if stop <= start:
        return np.empty(0)
    offset = (window - 1) // 2 if center else 0
    lo, hi = max(start + 1 + offset - window, 0), min(stop + offset, n)  # the windows' points
    long = (hi - lo) * window > _SORTED_MAX_VALUES and window > _NETWORK_WINDOW_MAX
    if long and _roll_median_c is not None and np.isfinite(y[lo:hi]).all():
        return _ranked_rolling_median(y, window, offset, start, stop)
    return rolling_median(y[lo:hi], window, center=center)[start - lo : stop - lo]


def rolling_median_at(
    y: np.ndarray, window: int, at: np.ndarray, *, center: bool = True
) -> np.ndarray:
    """`rolling_median(y, window, center=center)[at]` from those windows alone (pandas' bounds,
    each window's median by reduce.nan_row_medians). For the level at a few points of a long
    series; a series holding a non-finite value goes through rolling_median whole."""
    y = np.asarray(y, dtype=np.float64)
    at = np.asarray(at, dtype=np.intp)
    if window <= 1 or len(y) == 0 or not np.isfinite(y).all():
        return rolling_median(y, window, center=center)[at]
    n = len(y)
    stop = at + 1 + ((window - 1) // 2 if center else 0)  # pandas' window bounds, clipped
    start = np.clip(stop - window, 0, n)
    stop = np.minimum(stop, n)
    cols = start[:, None] + np.arange(window)
    # a clipped window's missing places are NaN, which the row median leaves out
    return nan_row_medians(np.where(cols < stop[:, None], y[np.minimum(cols, n - 1)], np.nan))


def rolling_min(y: np.ndarray, window: int, *, center: bool = True) -> np.ndarray:
    """The smallest value in each of rolling_median's windows (the same bounds, edges clipped):
    a floor the rolling median never goes under, at a fraction of its cost. Finite `y`."""
    y = np.asarray(y, dtype=np.float64)
    if window <= 1 or len(y) == 0:
        return y.copy()
    # scipy's window at i starts at i - window // 2 - origin: origin 0 is pandas' centred
    # window, (window - 1) // 2 its trailing one; 'nearest' pads with an edge value, which the
    # clipped window holds anyway
    origin = 0 if center else (window - 1) // 2
    return ndimage.minimum_filter1d(y, window, mode="nearest", origin=origin)


def rolling_mean(y: np.ndarray, window: int, *, center: bool = True) -> np.ndarray:
    """pandas' `rolling(window, center, min_periods=1).mean()`; on a finite series its kernel
    is called directly with pandas' window bounds (a Series and a Rolling cost 3x the sums)."""
    if window <= 1 or len(y) == 0:
        return np.asarray(y, dtype=np.float64).copy()
    y = np.ascontiguousarray(y, dtype=np.float64)
    if _roll_mean_c is not None and np.isfinite(y).all():  # (pandas reads inf as NaN)
        n, offset = len(y), (window - 1) // 2 if center else 0
        stop = np.arange(1 + offset, n + 1 + offset, dtype=np.int64)
        return np.asarray(_roll_mean_c(y, np.clip(stop - window, 0, n), np.clip(stop, 0, n), 1))
    s = pd.Series(y, dtype=np.float64)
    return s.rolling(window, center=center, min_periods=1).mean().to_numpy()


def ewma(x: np.ndarray, y: np.ndarray, halflife: float) -> np.ndarray:
    """Exponentially weighted mean whose half-life is in steps, correct on uneven steps."""
    if len(y) == 0:
        return np.asarray(y, dtype=np.float64)
    times = pd.to_datetime(np.asarray(x, dtype=np.float64) - float(x[0]), unit="s")
    s = pd.Series(np.asarray(y, dtype=np.float64), index=times)
    return (
        # pandas-stubs: halflife is float only, times an ndarray or Series; pandas takes a
        # Timedelta half-life with a DatetimeIndex of times
        s.ewm(halflife=pd.Timedelta(seconds=max(float(halflife), _MIN_HALFLIFE)), times=times)  # type: ignore[arg-type]
        .mean()
        .to_numpy()
    )


def savgol(y: np.ndarray, window: int, polyorder: int = 2) -> np.ndarray:
    """Savitzky-Golay smoothing; falls back to the input when the window is too short."""
    window = min(window, len(y) if len(y) % 2 else len(y) - 1)
    if window <= polyorder + 1:
        return np.asarray(y, dtype=np.float64).copy()
    return sps.savgol_filter(np.asarray(y, dtype=np.float64), window, polyorder, mode="interp")


def smooth(
    x: np.ndarray,
    y: np.ndarray,
    frac: float = SMOOTH_FRAC,
    # bucket medians first: 4000 keep a run's shape and bound the rolling median's cost
    max_points: int = 4000,
) -> tuple[np.ndarray, np.ndarray]:
    """The curve a person sees through the noise: bucket medians, then a rolling median over
    about `frac` of the run. Returns (steps, level). A classifier reading a role of its run
    asks the run (RunSeries.smoothed), which smooths each curve once for every label."""
    xb, yb = bucket(np.asarray(x), np.asarray(y), max_points, "median")
    return xb, rolling_median(yb, odd_window(len(yb), frac))


def shave_spikes(
    y: np.ndarray,
    # a median over 5 points cuts excursions of 1-2 points and keeps anything wider
    width: int = 5,
) -> np.ndarray:
    """The curve with upward excursions narrower than about width/2 points cut down to the local
    median: cycles and trends stay, one- and two-point spikes go."""
    return np.minimum(np.asarray(y, dtype=np.float64), rolling_median(y, width))
