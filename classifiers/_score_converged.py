"""A held-out score that has converged, or learned most of what it could: the model gets the
held-out data right, or has come most of the way there.

The first bounded held-out score whose name says its direction (accuracy up, error rate down),
read over the second half of its evaluations (their median), sits within `CONVERGED_ROOM` of its
best end: the bound (1, or 100 for a percentage) for a score that rises, 0 for one that falls. A
model there swings its val loss by the confidence of a handful of examples (no instability:
oscillating), and does well on the held-out data (no data unlike the training data:
distribution_mismatch).

A score that closed at least `LEARNED_ROOM` (half) of the room it had at its first evaluation
by the median of its second half (`score_learned`: top-1 0.66 -> 0.90) learned the held-out
data with the training data: whatever the val loss does beside it (Ultralytics' classifier val
loss, computed on softmaxed outputs, is squeezed near a floor), the two splits are not data of
different kinds. Data unlike the training data keeps its score near where it started.
"""

from __future__ import annotations

import numpy as np
from lossforensics.classifiers._align import finite_curve
from lossforensics.classifiers._score_stall import CONVERGED_ROOM, score_scale
from lossforensics.classifiers.metric_mismatch import name_direction
from lossforensics.classifiers.run import RunSeries

# a held-out score that closed half the room it had at its first evaluation learned the held-out
# data: a split unlike the training data moves its score by a small share of that room
LEARNED_ROOM = 0.5
# evaluations needed to read a first value and a second half
_LEARNED_MIN_EVALS = 4


def score_converged(run: RunSeries) -> bool:
    """Whether the run's first bounded, direction-named held-out score has converged; kept with
    the run (oscillating, distribution_mismatch and underfit all ask)."""
    converged: bool = run.measured(("score_converged",), lambda: _converged(run))
    return converged


def _converged(run: RunSeries) -> bool:
    found = _first_bounded_score(run, 2)
    if found is None:
        return False
    y, sign, bound = found
    level = float(np.median(y[len(y) // 2 :]))
    room = bound - level if sign > 0 else level
    return room <= CONVERGED_ROOM * bound


def score_learned(run: RunSeries) -> bool:
    """Whether the run's first bounded, direction-named held-out score converged or closed
    `LEARNED_ROOM` of the room it had at its first evaluation by its second half."""
    if score_converged(run):
        return True
    found = _first_bounded_score(run, _LEARNED_MIN_EVALS)
    if found is None:
        return False
    y, sign, bound = found
    first, level = float(y[0]), float(np.median(y[len(y) // 2 :]))
    room = bound - first if sign > 0 else first
    return room > 0 and (level - first) * sign >= LEARNED_ROOM * room


def _first_bounded_score(run: RunSeries, min_evals: int) -> tuple[np.ndarray, int, float] | None:
    """The first held-out score whose name says its direction and whose values are bounded
    (a fraction or a percentage): its finite values, direction and bound; None when it has
    under `min_evals` values or no score qualifies."""
    for name in run.metrics("val_score"):
        sign = name_direction(name)
        _, y = finite_curve(run, "val_score", name)
        bound = score_scale(y) if len(y) >= 2 else None
        if sign == 0 or bound is None:
            continue
        return (y, sign, bound) if len(y) >= min_evals else None
    return None
