"""A held-out score that never changed: the model's predictions on held-out data stayed the same.

An accuracy (or any bounded score) that reads exactly the same value at every evaluation, from
the first to the last, means the evaluated model gave the same answers each time: typically it
predicts the majority class (the score is that class's share), or no update reaches the weights
that are evaluated. A model that learns moves such a score by at least one example now and then;
over `MIN_EVALS` evaluations or more an identical value is no coincidence.

It is read as nothing learned only where the validation loss agrees: after the first third of
the evaluations the validation loss found no new best by `VAL_GAIN` (5%) of the first third's
best. A model stuck on the majority class still moves its loss a little as its confidence in
that class settles on the class prior; a model that learns something its frozen score cannot
show (the score is broken, or measured at a fixed threshold the model has not crossed yet)
moves its loss far more, and that disagreement is metric_mismatch's to report.

A validation loss that reads exactly the same value at every one of `MIN_EVALS` evaluations or
more, while the training loss moved, says the same without a score: the evaluated outputs never
changed (a triplet loss at its margin, 0.2000, epoch after epoch: the embeddings collapsed to one
point; a constant prediction; weights that are not updated). A loss moves with any change of the
outputs, so an identical value is no coincidence; exactly 0 is left out (nothing to lose).

A score of exactly 0 is left out (an unused or broken metric reads 0 as often as a model that
gets nothing right), and so is a score within `CONVERGED_ROOM` of its best end (98% accuracy, or
a 1% error rate, held for a few evaluations is a converged model, not a frozen one): the best end
is 0 for a score whose name says lower is better (error, WER), the bound for any other.
"""

from __future__ import annotations

import numpy as np
from lossforensics.classifiers._align import finite_curve
from lossforensics.classifiers._score_stall import CONVERGED_ROOM, score_scale
from lossforensics.classifiers.metric_mismatch import name_direction
from lossforensics.classifiers.run import RunSeries

# identical at four evaluations or more: a learning model's score moves by one example now and
# then, and fewer evaluations than four can repeat by chance
MIN_EVALS = 4
# the validation loss found no new best after the first third beyond 5% of that third's best:
# a majority-class model settling on the class prior moves it a few percent, learning more
VAL_GAIN = 0.05
# the validation loss is read in thirds of its evaluations, the first against the rest
_PARTS = 3
# the validation loss needs a first third and something after it
_MIN_VAL_POINTS = 3


def _frozen_score(run: RunSeries) -> tuple[str, float, int] | None:
    """The first bounded held-out score identical at every one of its evaluations (at least
    `MIN_EVALS`), strictly above 0 and short of `CONVERGED_ROOM` of its best end."""
    for name in run.metrics("val_score"):
        _, y = finite_curve(run, "val_score", name)
        if len(y) < MIN_EVALS or np.ptp(y) != 0:
            continue
        value, bound = float(y[0]), score_scale(y)
        if bound is None or value <= 0:
            continue
        room = value if name_direction(name) < 0 else bound - value
        if room >= CONVERGED_ROOM * bound:
            return name, value, len(y)
    return None


def _val_late_gain(run: RunSeries) -> float | None:
    """The validation loss's best after its first third of evaluations, as a gain relative to
    the first third's best (None without 3 finite points)."""
    _, vy = finite_curve(run, "val_loss")
    if len(vy) < _MIN_VAL_POINTS:
        return None
    k = max(1, len(vy) // _PARTS)
    first = float(np.min(vy[:k]))
    if first <= 0:
        return None
    return (first - float(np.min(vy[k:]))) / first


def frozen_predictions(run: RunSeries) -> dict | None:
    """The frozen score and the validation loss that agrees with it, or None. Kept with the run:
    plateau asks for it when deciding whether it can judge the run and again when it does."""
    return run.measured(("frozen_predictions",), lambda: _measure(run))


def _frozen_val_loss(run: RunSeries) -> dict | None:
    """The primary validation loss identical at every one of its evaluations (at least
    `MIN_EVALS`, not 0) beside a training loss that moved; None otherwise."""
    vx, vy = finite_curve(run, "val_loss")
    if len(vy) < MIN_EVALS or np.ptp(vy) != 0 or vy[0] == 0:
        return None
    tx, ty = finite_curve(run, "train_loss")
    if len(ty) < 2 or np.ptp(ty) == 0:
        return None
    return {
        "kind": "frozen_predictions",
        "frozen": "val_loss",
        "score_metric": run.primary("val_loss"),
        "score_value": float(vy[0]),
        "evaluations": len(vy),
        "val_late_gain": 0.0,
        "first_step": int(min(vx[0], tx[0])),
        "last_step": int(max(vx[-1], tx[-1])),
        "val_points": len(vy),
    }


def _measure(run: RunSeries) -> dict | None:
    score = _frozen_score(run)
    if score is None:
        return _frozen_val_loss(run)
    gain = _val_late_gain(run)
    if gain is None or gain >= VAL_GAIN:
        return None
    name, value, evals = score
    lx, vy = finite_curve(run, "val_loss")
    vx, _ = finite_curve(run, "val_score", name)
    return {
        "kind": "frozen_predictions",
        "frozen": "score",
        "score_metric": name,
        "score_value": value,
        "evaluations": evals,
        "val_late_gain": gain,
        "first_step": int(vx[0]),
        "last_step": int(max(vx[-1], lx[-1])),
        "val_points": len(vy),
    }
