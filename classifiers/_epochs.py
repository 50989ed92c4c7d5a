"""Epoch structure of a run: how many steps an epoch holds, and how much of the loss's wiggle
the position inside the epoch explains. Shared by unshuffled (the sawtooth is the finding) and
loss_spikes (a jump that recurs every epoch is the data order's, not a bad batch)."""

from __future__ import annotations

import re

import numpy as np
from lossforensics.classifiers import signals
from lossforensics.classifiers.run import Curve, RunSeries
from scipy import special, stats

_EPOCH = re.compile(r"(^|/)epoch$")
# an epoch metric logged as 2.9999999 is epoch 3: float sums of fractional epochs fall short
_EPOCH_ROUNDING = 1e-9
# the validation cadence hints at the epoch once 3 evaluations give 2 gaps to take a median of
_MIN_VAL_POINTS = 3
# a fractional epoch metric gives steps per epoch from 3 logs on: 2 gaps to take a median of
_MIN_FRACTION_LOGS = 3
# an epoch folds into phases only when it holds 4 logged points: fewer cannot trace a shape
_MIN_PHASES = 4


def epoch_curve(run: RunSeries) -> Curve | None:
    """The run's logged `epoch` metric (`epoch`, `train/epoch`: role other), None without one."""
    names = [m for m in run.metrics("other") if _EPOCH.search(m.lower())]
    return run.curve("other", names[0]) if names else None


def epoch_starts(run: RunSeries) -> np.ndarray:
    """The steps where a logged `epoch` metric's integer part steps up: the first logged step
    of each epoch after the first (empty without an epoch metric)."""
    c = epoch_curve(run)
    if c is None:
        return np.zeros(0, dtype=np.int64)
    ok = np.isfinite(c.values)
    steps, ep = c.steps[ok], np.floor(c.values[ok] + _EPOCH_ROUNDING)
    return steps[1:][np.diff(ep) > 0]


def epoch_length(run: RunSeries) -> tuple[float | None, str | None]:
    """Steps per epoch and where it came from: an `epoch` metric (where its integer part
    changes; logged as a fraction with fewer boundaries, its steps over its epochs), else the
    validation cadence (a hint only: some runs evaluate twice an epoch, or
    every other); (None, None) if neither says. Kept with the run: unshuffled (its skip and its
    measurement) and loss_spikes read it."""
    length: tuple[float | None, str | None] = run.measured(
        ("epoch_length",), lambda: _epoch_length(run)
    )
    return length


def _epoch_length(run: RunSeries) -> tuple[float | None, str | None]:
    starts = epoch_starts(run)
    if len(starts) >= 2:
        return float(np.median(np.diff(starts))), "epoch"
    rate = _steps_per_fractional_epoch(run)
    if rate is not None:
        return rate, "epoch"
    val = run.curve("val_loss")
    if val is not None and len(val) >= _MIN_VAL_POINTS:
        return float(np.median(np.diff(val.steps))), "val_cadence"
    return None, None


def _steps_per_fractional_epoch(run: RunSeries) -> float | None:
    """Steps per epoch from an epoch metric logged as a fraction (the HF Trainer's `epoch`:
    0.06, 0.12, ...), where fewer than 3 epochs begin in the log: the median of its steps over
    its epochs between logs. None when the metric is whole epochs or absent."""
    c = epoch_curve(run)
    if c is None:
        return None
    ok = np.isfinite(c.values)
    steps, ep = c.steps[ok].astype(np.float64), c.values[ok]
    if len(ep) < _MIN_FRACTION_LOGS or np.allclose(ep, np.round(ep)):
        return None
    de, ds = np.diff(ep), np.diff(steps)
    fwd = (de > 0) & (ds > 0)
    return float(np.median(ds[fwd] / de[fwd])) if fwd.sum() >= 2 else None


def epoch_fold(
    x: np.ndarray,
    y: np.ndarray,
    epoch: float,
    # mean buckets: enough for a few points in every phase of hundreds of epochs
    max_points: int = 20000,
) -> tuple[float, float, float]:
    """How much of the loss's wiggle the position inside the epoch explains: the detrended
    (log) loss grouped by phase in the epoch (one bin per logged point of an epoch), one-way
    ANOVA. Returns (share of variance explained, F-test p-value, epochs seen); (0, 1, epochs)
    when an epoch holds fewer than 4 points (`_MIN_PHASES`). This asks the label's question
    directly: does the loss trace the same shape every epoch? (An autocorrelation peak can miss
    a shape whose class blocks are a point or two long.)"""
    xb, zb = signals.bucket(np.asarray(x, np.float64), signals.safe_log(y), max_points, "mean")
    epochs = float((xb[-1] - xb[0]) / epoch) if len(xb) > 1 else 0.0
    m = int(round(epoch / float(np.median(np.diff(xb))))) if len(xb) > 1 else 0
    if m < _MIN_PHASES or len(zb) < 2 * m:
        return 0.0, 1.0, epochs
    res = zb - signals.rolling_median(zb, m | 1)  # one epoch wide: the trend, not the sawtooth
    res = res - res.mean()
    # the steps from the first are never negative, nor is the epoch: there fmod is Python's %
    # to the bit (no sign to carry over), at less than half the cost of numpy's %
    pos = np.minimum((np.fmod(xb - xb[0], epoch) / epoch * m).astype(np.int64), m - 1)
    count = np.bincount(pos, minlength=m)
    means = np.bincount(pos, weights=res, minlength=m) / np.maximum(count, 1)
    between = float(np.sum(count * means**2))
    total = float(np.sum(res**2))
    k, n = int(np.count_nonzero(count)), len(res)
    if total <= 0 or k < 2 or n <= k:
        return 0.0, 1.0, epochs
    f = (between / (k - 1)) / max((total - between) / (n - k), signals.TINY)
    return between / total, f_test_p(f, k - 1, n - k), epochs


def f_test_p(f: float, dfn: int, dfd: int) -> float:
    """stats.f.sf(f, dfn, dfd): inside the distribution's support, the special function it
    evaluates (fdtrc), without the ~35 us of argument handling a call; at the support's ends
    and for non-finite input, stats.f.sf itself."""
    if 0.0 < f < np.inf and dfn > 0 and dfd > 0:
        return float(special.fdtrc(dfn, dfd, f))
    return float(stats.f.sf(f, dfn, dfd))
