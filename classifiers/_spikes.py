"""What makes an upward excursion a bad-batch spike rather than part of something larger: the
yardsticks loss_spikes judges signals.find_spikes' candidates with.

- local_noise: the point-to-point noise around each candidate, not the run's average. A loss
  near its floor often jitters by a larger factor late in training than early (small losses,
  same batch noise), so one run-wide sigma makes the late jitter look like spikes.
- noise_beside_jumps: the curve's noise with the jumps to 10x their neighbours left out. Jumps of
  orders of magnitude that recur on a short log (a detector alternating 1e15 and 0.07) make most
  of its first differences, and a noise read from those hides each jump in the others.
- diverged: the run had already blown up before the candidate, for good: its level (a
  trailing median) had come back about to where the run started, giving back nearly all of its
  progress (its best so far read from full windows only: one low first batch is no best the run
  held), and stays there to the end. The jumps of a run that has blown up and thrashes (even if
  it dips back down now and then) belong to the divergence, which exploding reports; a loss
  spike rises from a trained level and comes back to it (a jump after which the run stays blown
  up, even below its peak, did not), and a blow-up the run comes back from, however high and
  however many jumps it takes, is an excursion, its jumps the spikes it is made of. A level
  only partly degraded keeps its spikes (bad batches do damage training, and a noisy curve's
  best-so-far is biased low).
- excursion_width: how much of a recurring cycle the loss spends raised. A bad batch that
  recurs (every epoch, every N steps) is a narrow excursion in a long period; data sorted and
  never shuffled makes a sawtooth that rises and falls across the whole period. Folding the
  trend-free loss by the period and measuring the share of the phase above half the profile's
  peak tells the two apart by shape, whatever the period.
"""

from __future__ import annotations

import numpy as np
from lossforensics.classifiers import signals

# diverged: the trailing level is a median over this share of the run: long enough to ride out a
# spike of a few points, short enough to follow a real blow-up within a twentieth of the run
_LEVEL_WINDOW = 0.05
# ...and over at least this many (bucketed) points, so a short run still gets a median
_LEVEL_WINDOW_MIN = 3
# diverged: the start is the first point or the median of this many first points if higher (one
# low first point must not make the run look as if it began trained)
_START_POINTS = 3
# diverged: share of the progress so far the level must have given back to count as blown up:
# nearly all, so a level only partly degraded by bad batches keeps its spikes
_GIVEN_BACK = 0.9
# diverged: the curve is bucketed to at most this many points before the trailing median (cost
# stays flat on long runs; far more than any window needs)
_MAX_LEVEL_POINTS = 4000


def noise_beside_jumps(ly: np.ndarray, jump_log: float) -> float | None:
    """The point-to-point noise of the log-scale curve `ly` without the inner points that
    stand `jump_log` or more above both their neighbours (None when there are none, or too few
    points are left for `signals.noise_level`): the noise the jumps are to be judged against
    must not be made of them. An end point has one neighbour: a first point high above the next
    is a loss's first drop as often as a jump, and a last one shows no return."""
    higher = np.zeros(len(ly), dtype=bool)
    higher[1:-1] = (ly[1:-1] - ly[:-2] >= jump_log) & (ly[1:-1] - ly[2:] >= jump_log)
    if not higher.any():
        return None
    rest = ly[~higher]
    noise = signals.noise_level(rest)
    return noise if noise > 0 else None


def local_noise(y: np.ndarray, idx: np.ndarray, half_window: int) -> np.ndarray:
    """Robust point-to-point noise (sigma) in the `half_window` points on each side of every
    index in `idx`, leaving out the two differences that touch the point itself (the spike's own
    rise and fall). MAD of first differences, as signals.noise_level, but per neighbourhood."""
    y = np.asarray(y, dtype=np.float64)
    idx = np.asarray(idx, dtype=np.int64)
    d = np.diff(y)
    if len(idx) == 0 or len(d) < 2:
        return np.zeros(len(idx))
    # differences d[j] = y[j+1] - y[j]; the spike at i owns d[i-1] and d[i]
    offsets = np.concatenate((np.arange(-half_window - 1, -1), np.arange(1, half_window + 1)))
    pos = idx[:, None] + offsets[None, :]
    inside = (pos >= 0) & (pos < len(d))
    vals = np.where(inside, d[np.clip(pos, 0, len(d) - 1)], np.nan)
    centre = signals.nan_row_medians(vals)[:, None]  # np.nanmedian's numbers, ~6x faster
    mad = signals.nan_row_medians(np.abs(vals - centre))
    return np.nan_to_num(mad * signals.MAD_TO_SIGMA / np.sqrt(2.0))


def diverged(
    x: np.ndarray,
    y: np.ndarray,
    spike_steps: np.ndarray,
    min_rise: float,
    max_points: int = _MAX_LEVEL_POINTS,
) -> np.ndarray:
    """For each candidate at `spike_steps`: had the curve (`x`, `y`, in the candidates' scale:
    log for positive losses) blown up before it for good, i.e. had its trailing level (bucket
    medians, then a trailing median over _LEVEL_WINDOW, 5% of the run) given back _GIVEN_BACK
    (90%) of the progress made so far from its start (its first point, or the median of its
    first three if higher), and at least `min_rise`, from just before the candidate to the end?
    Or was it blown up from just after the candidate (the trailing level of the window of points
    that follow it) to the end, so that it never came back to a trained level?"""
    spike_steps = np.asarray(spike_steps)
    xb, yb = signals.bucket(np.asarray(x, np.float64), np.asarray(y, np.float64), max_points)
    if len(yb) < 2 or len(spike_steps) == 0:
        return np.zeros(len(spike_steps), dtype=bool)
    window = signals.odd_window(len(yb), _LEVEL_WINDOW, lo=_LEVEL_WINDOW_MIN)
    level = signals.rolling_median(yb, window, center=False)
    # the start: the first point, unless the next two say it was a low outlier (a fast first
    # drop makes the median of the first three far too low a start)
    start = max(float(yb[0]), float(np.median(yb[:_START_POINTS])))
    # the best so far counts full windows only: a trailing median over the first point or two
    # is that point, and one low first batch would set a best the run never held, making its
    # ordinary level read as progress given back
    full = np.arange(len(level)) >= window - 1
    best = signals.best_so_far(np.where(full, level, np.maximum(level, start)))
    progress = start - best
    given_back = level - best
    blown_now = (given_back >= min_rise) & (given_back >= _GIVEN_BACK * progress)
    blown_for_good = np.logical_and.accumulate(blown_now[::-1])[::-1]
    # the level just before the candidate's own bucket (its own jump must not count), blown up
    # from there to the end: a blow-up the run later comes back from is an excursion, its jumps
    # the spikes it is made of
    at = np.searchsorted(xb, spike_steps, side="left") - 1
    before = np.where(at >= 0, blown_for_good[np.clip(at, 0, len(xb) - 1)], False)
    # ...and from the points right after it to the end: a jump after which the run stays blown
    # up did not recover to a trained level, however far it fell back from its peak (a bad
    # batch that sets the run back for a while and is then learnt past did recover)
    after = np.minimum(at + 1 + window, len(xb) - 1)
    return before | (blown_for_good[after] & (after > at + 1))


# An excursion raised for under this share of its period is a recurring spike, not a sawtooth
# (loss_spikes, unshuffled and the explains table share it)
SPIKE_WIDTH = 0.08

# Phase bins a period is folded into: enough to resolve a one-point excursion in a long period,
# few enough that each bin holds several cycles' points
MAX_PHASE_BINS = 50
# ...and at least this many, so a short period still has a raised and a resting part to compare
MIN_PHASE_BINS = 4
# Fewest points worth folding: fewer cannot fill the bins with more than one point each
_MIN_FOLD_POINTS = 8
# Share of the run the trend is smoothed over before folding: wide enough to leave the cycle in
# the residual, narrow enough to take out the run's descent
_TREND_FRAC = 0.1


def trend_residual(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """The trend-free curve excursion_width folds: `y` (in log scale for positive losses) minus
    its level smoothed over _TREND_FRAC (10%) of the run. One curve's residual serves every
    period it is folded by (unshuffled folds it at the period and at the epoch)."""
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    ly = np.log(y) if signals.all_positive(y) else y
    xs, level = signals.smooth(x, ly, frac=_TREND_FRAC)
    return ly - np.interp(x, xs, level)


def excursion_width(
    x: np.ndarray, y: np.ndarray, period: float, *, residual: np.ndarray | None = None
) -> float:
    """Share (0..1) of a cycle of `period` steps during which the loss is raised: the trend-free
    curve (trend_residual: `y` minus a smoothed level over _TREND_FRAC, 10% of the run, in log
    scale for positive losses; `residual` when the caller has it) folded by phase into
    MIN_PHASE_BINS to MAX_PHASE_BINS bins (one a logged point per period at most), the median of
    each bin, and the share of bins above half of the highest one (both relative to the
    profile's median). NaN when the period or the curve is too short to fold."""
    x = np.asarray(x, dtype=np.float64)
    if period <= 0 or len(y) < _MIN_FOLD_POINTS:
        return float("nan")
    resid = trend_residual(x, y) if residual is None else residual
    per_period = period / max(float(np.median(np.diff(x))), signals.TINY)
    bins = int(max(MIN_PHASE_BINS, min(MAX_PHASE_BINS, round(per_period))))
    # phase bins as int16 (at most MAX_PHASE_BINS): group_medians' stable sort of them is then
    # numpy's radix sort
    which = (((x - x[0]) / period) % 1.0 * bins).astype(np.int16)
    counts = np.bincount(which, minlength=bins)
    if (counts == 0).any() or np.isnan(resid).any():  # a NaN bin makes the whole profile NaN
        return float("nan")
    profile = signals.group_medians(which, resid)
    profile = profile - np.median(profile)
    peak = float(profile.max())
    return float(np.mean(profile > 0.5 * peak)) if peak > 0 else float("nan")
