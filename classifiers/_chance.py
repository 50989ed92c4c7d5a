"""A classifier's chance level: the cross-entropy ln(k) of a model predicting uniformly over k
classes, where an untrained classifier's loss starts. A loss that started there has a reference
for "high" (underfit) and for "nothing learned" (plateau) that no other number in a log gives;
a short log whose validation loss sat there at every evaluation (`held_at_chance`) learned
nothing however few points it holds.
"""

from __future__ import annotations

import numpy as np
from lossforensics.classifiers._align import finite_curve
from lossforensics.classifiers._log_start import beyond_start
from lossforensics.classifiers.run import RunSeries

# on per-step logs (30 points or more) the start is the median of the first 3: one noisy
# first batch does not set the level everything is measured against
START_POINTS = 3
# the shortest log whose start is a median of START_POINTS: on a shorter, coarser log the
# first 3 points already span a real drop, so the first point is the start
START_MEDIAN_MIN_POINTS = 30
# class counts whose chance-level cross-entropy ln(k) a first loss is matched against: up to 10
# the values ln 2 ... ln 10 sit at least 4.7% apart, so a match within _CHANCE_TOL names k
_MAX_CHANCE_CLASSES = 10
# a first loss within 0.5% of ln(k) is a k-class classifier at initialisation (chance level);
# wider windows would catch a fine-tune that merely starts near some ln(k) by coincidence
_CHANCE_TOL = 0.005


def chance_classes(first_loss: float) -> int | None:
    """k when `first_loss` sits within `_CHANCE_TOL` of ln(k) for k in 2..10 (a classifier's
    cross-entropy at initialisation, predicting uniformly over k classes), else None."""
    for k in range(2, _MAX_CHANCE_CLASSES + 1):
        if abs(first_loss - np.log(k)) <= _CHANCE_TOL * np.log(k):
            return k
    return None


def start_level(y: np.ndarray) -> float:
    """The loss at the start: the first point; the median of the first 3 on per-step logs."""
    return float(np.median(y[:START_POINTS]) if len(y) >= START_MEDIAN_MIN_POINTS else y[0])


def chance_of(y: np.ndarray, x: np.ndarray | None = None) -> int | None:
    """The class count whose chance level the loss started at: its first logged value (an
    epoch log's first mean) or its start level (the median of a per-step log's first 3). With
    the steps `x`, only for a log that starts where its run started: a window pasted from
    iteration 1660 begins at a trained model's loss, which may sit near some ln k by chance."""
    if x is not None and beyond_start(x):
        return None
    return chance_classes(float(y[0])) or chance_classes(start_level(y))


# a log too short for plateau's course rules is read at chance from 4 evaluations: fewer can sit
# near ln k by coincidence on their way down
HELD_MIN_EVALS = 4
# its median within 0.5% of ln k names k, as a first loss's does (`_CHANCE_TOL`), every evaluation
# sits within this share of ln k (a loss that merely passes near some ln k on its way down starts
# well above it), and no logged loss, train or validation, got this share below ln k: a model
# that learned anything gets its loss a tenth below chance on the examples it now gets right
HELD_BAND = 0.1


def in_chance_band(y: np.ndarray, k: int) -> bool:
    """Every value within `HELD_BAND` (a tenth) of the chance level ln(k)."""
    return bool(
        np.all(np.abs(np.asarray(y, dtype=np.float64) - np.log(k)) <= HELD_BAND * np.log(k))
    )


def held_at_chance(run: RunSeries) -> dict | None:
    """A short log whose validation loss sat at a classifier's chance level ln(k) at every one
    of its `HELD_MIN_EVALS` or more evaluations (their median within `_CHANCE_TOL` of ln k),
    every evaluation within `HELD_BAND` of it and no training loss `HELD_BAND` below it: after
    at least one evaluation's worth of training the model still predicts no better than
    uniformly (or than the class prior), so nothing was learned, however few points were
    logged. None otherwise."""
    vx, vy = finite_curve(run, "val_loss")
    if len(vy) < HELD_MIN_EVALS or not np.all(vy > 0):
        return None
    k = chance_classes(float(np.median(vy)))
    if k is None:
        return None
    _, ty = finite_curve(run, "train_loss")
    if not in_chance_band(vy, k):
        return None
    if len(ty) and float(np.min(ty)) < (1.0 - HELD_BAND) * np.log(k):
        return None
    return {
        "kind": "held_at_chance",
        "series": "val",
        "at_chance": k,
        "chance_level": float(np.log(k)),
        "val_median": float(np.median(vy)),
        "best_kept": float(np.min(vy)) / float(np.log(k)),
        "evaluations": len(vy),
        "train_points": len(ty),
        "first_step": int(vx[0]),
        "last_step": int(vx[-1]),
    }
