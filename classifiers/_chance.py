"""A classifier's chance level: the cross-entropy ln(k) of a model predicting uniformly over k
classes, where an untrained classifier's loss starts. A loss that started there has a reference
for "high" (underfit) and for "nothing learned" (plateau) that no other number in a log gives.
"""

from __future__ import annotations

import numpy as np

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


def chance_of(y: np.ndarray) -> int | None:
    """The class count whose chance level the loss started at: its first logged value (an
    epoch log's first mean) or its start level (the median of a per-step log's first 3)."""
    return chance_classes(float(y[0])) or chance_classes(start_level(y))
