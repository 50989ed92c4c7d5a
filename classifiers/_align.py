"""Private helpers for the classifiers that compare two series of one run (train vs val, loss vs
metric, loss vs LR) or read a series in source order: put them on one step axis, estimate their
noise without the trend, pick matching metrics.

Validation is usually logged far less often than training (every epoch, every 1,000 steps,
sometimes 5 points in all), so comparisons happen at the evaluation steps: the train loss at an
evaluation is the median of the train points logged over the stretch that led to it.
"""

from __future__ import annotations

import re
from collections import Counter

import numpy as np
import pandas as pd
from lossforensics.classifiers.run import RunSeries
from lossforensics.classifiers.signals import (
    MAD_TO_SIGMA,
    TINY,
    bucket,
    finite_points,
    group_medians,
    scale,
)

# evaluations read at most (bucket medians beyond): a val curve is tens to hundreds of points,
# 2000 keeps every one of them and bounds a val series logged every step. One value for every
# classifier: train_at_evals is kept with the run under it, and they share that alignment
MAX_EVALS = 2000
# the train's starting level is the median of its first 2% of points: the untrained loss,
# steadier than the first batch alone
TRAIN_START_SHARE = 0.02
# the train level at an evaluation is the median of the 3 train points up to it
TRAIN_AT_EVAL_POINTS = 3
# second differences need 4 points to give a median worth reading; fewer use first differences
_SECOND_DIFF_MIN_POINTS = 4
# white noise of sigma has second differences of variance 6 sigma^2 (1 + 4 + 1)
_SECOND_DIFF_VARIANCE = 6.0
# two step axes in different units: one ends below 5% of the other (epochs 0..19 against
# optimizer steps 0..15000); closer ranges are the same unit logged over a shorter stretch
_OTHER_UNIT_SHARE = 0.05
# noise is never below a millionth of the curve's scale: a perfectly smooth synthetic curve
# would otherwise turn any change into an infinite z-score
_NOISE_FLOOR_SHARE = 1e-6


def detrended_noise(y: np.ndarray) -> float:
    """Point-to-point noise (sigma) from the MAD of second differences: unlike first
    differences it ignores a steady trend, so a smooth 10-point val curve reads as quiet."""
    y = np.asarray(y, dtype=np.float64)
    if len(y) < _SECOND_DIFF_MIN_POINTS:
        return float(np.std(np.diff(y))) / np.sqrt(2.0) if len(y) >= 2 else 0.0
    d2 = np.diff(y, 2)
    return (
        MAD_TO_SIGMA * float(np.median(np.abs(d2 - np.median(d2)))) / np.sqrt(_SECOND_DIFF_VARIANCE)
    )


def finite_curve(
    run: RunSeries,
    role: str,
    metric: str | None = None,
    # bucket medians enough to keep a run's shape, few enough that every label reads them fast
    max_points: int = 4000,
) -> tuple[np.ndarray, np.ndarray]:
    """A role's curve (its primary metric, or `metric`) as finite (steps, values), reduced to at
    most `max_points` bucket medians. Empty arrays when the run lacks it. Kept with the run
    (RunSeries.measured): several labels read the same reduced train loss, and reducing 1M points
    is the costly part."""
    name = metric or run.primary(role)

    def compute() -> tuple[np.ndarray, np.ndarray]:
        curve = run.curve(role, name) if name is not None else None
        if curve is None:
            return np.array([]), np.array([])
        x, y = finite_points(curve.steps, curve.values)
        x, y = bucket(x, y, max_points, "median")
        x.flags.writeable = False  # shared between classifiers: nobody may edit it
        y.flags.writeable = False
        return x, y

    return run.measured(("finite_curve", name, max_points), compute)


def train_at_evals(run: RunSeries, max_evals: int) -> np.ndarray:
    """The train loss over the stretch leading to each val evaluation (levels_at of the
    finite, reduced train curve at the finite val curve of at most `max_evals` points). Kept
    with the run: overfit and distribution_mismatch read the same alignment."""

    def compute() -> np.ndarray:
        vx, _ = finite_curve(run, "val_loss", max_points=max_evals)
        tx, ty = finite_curve(run, "train_loss")
        train = levels_at(tx, ty, vx)
        train.flags.writeable = False  # shared between classifiers: nobody may edit it
        return train

    return run.measured(("train_at_evals", max_evals), compute)


def shared_axis(x_src: np.ndarray, x_at: np.ndarray) -> np.ndarray:
    """`x_at` mapped onto the axis of `x_src` when the two clearly use different units (an
    epoch index 0..19 against optimizer steps 0..15000): evaluation i is placed at the end of
    its share of the source's range. Unchanged when the ranges overlap normally."""
    if len(x_src) == 0 or len(x_at) == 0:
        return x_at
    src_lo, src_hi = float(x_src[0]), float(x_src[-1])
    at_lo, at_hi = float(x_at[0]), float(x_at[-1])
    span_src, span_at = src_hi - src_lo, at_hi - at_lo
    if (
        span_src <= 0
        or span_at <= 0
        or not (at_hi < _OTHER_UNIT_SHARE * src_hi or src_hi < _OTHER_UNIT_SHARE * at_hi)
    ):
        return x_at
    frac = (x_at - at_lo + 1.0) / (span_at + 1.0)
    return src_lo + frac * span_src


def levels_at(x_src: np.ndarray, y_src: np.ndarray, x_at: np.ndarray) -> np.ndarray:
    """For each step in `x_at` (sorted), the median of the source points logged after the
    previous step of `x_at` and up to this one: the train loss over the stretch that led to
    each evaluation. NaN where that stretch holds no source point."""
    x_src, y_src, x_at = np.asarray(x_src), np.asarray(y_src), np.asarray(x_at)
    out = np.full(len(x_at), np.nan)
    if len(x_src) == 0 or len(x_at) == 0:
        return out
    x_at = shared_axis(x_src, np.asarray(x_at, dtype=np.float64))
    owner = np.searchsorted(x_at, x_src, side="left")  # first evaluation at or after the point
    keep = owner < len(x_at)
    if not keep.any():
        return out
    owned = owner[keep]
    if np.all(owned[1:] >= owned[:-1]):  # a step-sorted source: its evaluations without a sort
        evals = owned[np.r_[True, owned[1:] != owned[:-1]]]
    else:
        evals = np.unique(owned)
    out[evals] = _group_medians(owned, y_src[keep])
    return out


def _group_medians(group: np.ndarray, y: np.ndarray) -> np.ndarray:
    """The median of y within each group, groups in sorted order: the numbers of pandas'
    groupby().median() (middle value, or the two middle ones halved; NaN skipped) from one
    sort, without a Series and a groupby per call."""
    finite = ~np.isnan(y)
    if not finite.all():  # pandas skips NaN; a group of NaN only has a NaN median
        return pd.Series(y).groupby(group).median().to_numpy()
    return group_medians(group, y)


def trailing_median(x: np.ndarray, y: np.ndarray, at: float, points: int) -> float:
    """Median of the last `points` values at or before step `at` (NaN if none)."""
    end = int(np.searchsorted(x, at, side="right"))
    seg = y[max(0, end - points) : end]
    return float(np.median(seg)) if len(seg) else float("nan")


def leading_median(x: np.ndarray, y: np.ndarray, at: float, points: int) -> float:
    """Median of the first `points` values after step `at` (NaN if none)."""
    start = int(np.searchsorted(x, at, side="right"))
    seg = y[start : start + points]
    return float(np.median(seg)) if len(seg) else float("nan")


# a score over every class or entity, beside the per-class ones (seqeval's `eval_overall_f1`
# beside `eval_T005_f1`; scikit-learn's `macro avg`, `weighted avg`)
_AGGREGATE = re.compile(r"(^|[^a-z])(overall|macro|micro|weighted|avg|average|mean)([^a-z]|$)")
# tied score names ending in the same score, this many or more: a breakdown by class
_BREAKDOWN = 3


def closest_name(names: list[str], target: str) -> str | None:
    """The name sharing the longest prefix with `target`: pairs `eval_g3_accuracy` with
    `eval_g3_loss` when six eval sets are logged. Ties keep the given order, except in a
    per-class breakdown (`_BREAKDOWN` or more tied names ending in the same score: seqeval's
    `eval_T005_f1`, `eval_T007_f1`, ...), where a score over every class (`eval_overall_f1`)
    comes first: one entity's score moves with its 25 examples, not with the run."""
    if not names:
        return None
    lengths = [len(_common_prefix(n.lower(), target.lower())) for n in names]
    best = max(lengths)
    tied = [n for n, k in zip(names, lengths, strict=True) if k == best]
    ends = Counter(re.split(r"[^a-z0-9]+", n.lower())[-1] for n in tied)
    if ends and max(ends.values()) >= _BREAKDOWN:
        return next((n for n in tied if _AGGREGATE.search(n.lower())), tied[0])
    return tied[0]


def _common_prefix(a: str, b: str) -> str:
    n = 0
    for ca, cb in zip(a, b, strict=False):
        if ca != cb:
            break
        n += 1
    return a[:n]


def floor(noise: float, level_scale: float) -> float:
    """A noise estimate never below a millionth of the curve's scale (a synthetic, perfectly
    smooth curve would otherwise turn any change into an infinite z-score)."""
    return max(float(noise), _NOISE_FLOOR_SHARE * float(level_scale), TINY)


# a score's noise is at least half its smallest step between two printed values (`score_noise`)
_HALF_STEP = 0.5


def score_noise(y: np.ndarray) -> float:
    """A held-out score's noise: its detrended noise, and never under half its smallest step
    between two printed values (nor a millionth of its scale, `floor`). A score taken on n
    examples moves in steps of 1/n: an accuracy at 0.5 six times and 0.56 once has a detrended
    noise of 0 (most of its second differences are), against which its one move read as
    714,286 sigmas of gain; it is known to half a step, 0.03."""
    y = np.asarray(y, dtype=np.float64)
    steps = np.diff(np.unique(y[np.isfinite(y)]))
    step = float(steps.min()) if len(steps) else 0.0
    return floor(max(detrended_noise(y), _HALF_STEP * step), scale(y))
