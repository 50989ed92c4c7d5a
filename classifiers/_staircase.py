"""Memorisation read from the training loss alone: a staircase whose steps are the epochs.

When a model starts to memorise its training examples, the loss falls when it sees them again:
at each epoch boundary the loss drops to a new level and stays there, while within an epoch
(examples it has not yet seen this time round) it barely moves. Multi-epoch fine-tunes of large
models show this plainly. The drops are permanent, unlike the unshuffled sawtooth that climbs
back within each epoch, and they come without a learning-rate step at the boundary (a schedule
stepped per epoch drops the loss there too, for another reason). Without a validation curve
this is the one sign of overfitting the log holds; with one, overfit reads the validation loss.
"""

from __future__ import annotations

import numpy as np
from lossforensics.classifiers import signals
from lossforensics.classifiers._epochs import epoch_starts
from lossforensics.classifiers.run import RunSeries

# an epoch is read only with 10 logged train points in it: its head and end levels are medians
# of a fifth of them, at least 2 points each
_MIN_EPOCH_POINTS = 10
# an epoch's head and end levels are the medians of its first and last fifth
_EDGE_SHARE = 0.2
# a boundary drop counts when the loss fell by 5% of its level across it ...
_MIN_DROP_REL = 0.05
# ... at 2 boundaries or more: one drop could be anything, a repeated one is the pattern
MIN_STEPS = 2
# the drops at the boundaries hold at least two thirds of the loss's fall over the read epochs:
# most of the learning happens where examples are seen again
_BOUNDARY_SHARE = 2.0 / 3.0
# the drops are permanent: within the epochs the loss climbs back by under a third of them (a
# sawtooth that climbs back to where it was is the unshuffled data order's)
_CLIMB_BACK = 1.0 / 3.0
# a learning rate that moved by over 10% across a boundary was stepped there: its own drop
_LR_STEP_REL = 0.1
# the learning rate around a boundary is the median of its 3 points on each side
_LR_SIDE_POINTS = 3


def _lr_stepped(run: RunSeries, at: int) -> bool:
    lr = run.curve("lr")
    if lr is None:
        return False
    i = int(np.searchsorted(lr.steps, at))
    before = lr.values[max(0, i - _LR_SIDE_POINTS) : i]
    after = lr.values[i : i + _LR_SIDE_POINTS]
    before, after = before[np.isfinite(before)], after[np.isfinite(after)]
    if not len(before) or not len(after):
        return False
    b, a = float(np.median(before)), float(np.median(after))
    return abs(a - b) > _LR_STEP_REL * max(abs(b), signals.TINY)


def staircase(run: RunSeries) -> dict | None:
    """The epoch staircase of the per-step training loss: None when the run has no epoch
    metric, too few points an epoch, or no staircase (drops under the bars, or most of the fall
    within epochs)."""
    curve = run.detailed("train_loss")
    starts = epoch_starts(run)
    if curve is None or len(starts) < MIN_STEPS:
        return None
    x, y = signals.finite_points(curve.steps, curve.values)
    edges = np.r_[x[0] if len(x) else 0, starts, np.inf]
    heads, ends = [], []
    for lo, hi in zip(edges[:-1], edges[1:], strict=True):
        part = y[(x >= lo) & (x < hi)]
        if len(part) < _MIN_EPOCH_POINTS:
            heads.append(np.nan)
            ends.append(np.nan)
            continue
        k = max(2, int(_EDGE_SHARE * len(part)))
        heads.append(float(np.median(part[:k])))
        ends.append(float(np.median(part[-k:])))
    head, end = np.asarray(heads), np.asarray(ends)
    drops = (end[:-1] - head[1:]) / np.maximum(np.abs(end[:-1]), signals.TINY)
    read = np.isfinite(drops)
    if read.sum() < MIN_STEPS or any(_lr_stepped(run, int(s)) for s in starts[read]):
        return None
    at_boundaries = float(np.sum((end[:-1] - head[1:])[read]))
    within = float(np.nansum(np.maximum(head - end, 0.0)))
    climbed = float(np.nansum(np.maximum(end - head, 0.0)))
    share = at_boundaries / max(at_boundaries + within, signals.TINY)
    stepped = int(np.sum(drops[read] >= _MIN_DROP_REL))
    if stepped < MIN_STEPS or share < _BOUNDARY_SHARE:
        return None
    if climbed > _CLIMB_BACK * at_boundaries:
        return None  # the loss climbs back within the epochs: a sawtooth (unshuffled's)
    return {
        "reading": "staircase",
        "epoch_boundaries": int(read.sum()),
        "boundary_drops": stepped,
        "boundary_share": share,
        "climb_back_share": climbed / max(at_boundaries, signals.TINY),
        "median_boundary_drop_rel": float(np.median(drops[read])),
        "first_epoch_level": float(head[np.isfinite(head)][0]),
        "last_epoch_level": float(end[np.isfinite(end)][-1]),
        "first_step": int(x[0]),
        "last_step": int(x[-1]),
    }
