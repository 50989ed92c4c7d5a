"""A score that learned while the loss stood still: the loss does not measure the learning.

A training loss flat from the first step usually means no update reaches the weights. When an
accuracy (or another bounded score) logged beside it climbs a large part of the way to its
bound over the same run, updates do reach them: the model learns, and the loss is what fails to
show it. The usual cause is a loss computed on probabilities rather than logits (a softmax
before `CrossEntropyLoss`, a sigmoid before `BCEWithLogitsLoss`), whose gradient all but
vanishes and whose value moves within a narrow band; or a logged value that is not the loss
being minimised. plateau reads this as evidence for its causes, not as another label.

The score's direction comes from its name (metric_mismatch.name_direction), its bound from its
values (1 for a fraction, 100 for a percentage; an unbounded score is not read). It is read at
its head and end (the medians of its first and last `_EDGE_SHARE` of points, one at least): a
score that gained `LEARNED_ROOM` of the room it had at its head, and `_LEARNED_Z` sigmas of its
detrended noise, learned.
"""

from __future__ import annotations

import numpy as np
from lossforensics.classifiers._align import finite_curve, score_noise
from lossforensics.classifiers._score_stall import score_scale
from lossforensics.classifiers.metric_mismatch import name_direction
from lossforensics.classifiers.run import RunSeries
from lossforensics.classifiers.signals import TINY

# a score that covered 30% of the way from its head to its bound learned: 10% -> 37% accuracy
# on ten classes, far beyond what a model whose weights do not move drifts by
LEARNED_ROOM = 0.3
# ... by 3 sigmas of its detrended noise, so a noisy per-batch accuracy does not learn by chance
_LEARNED_Z = 3.0
# a score's head and end are the medians of its first and last 10% of points
_EDGE_SHARE = 0.1
# points of a score needed to read a head, an end and something between them
_MIN_POINTS = 5
# the roles read, the training score first: it moves with the loss the run minimises
_ROLES = ("train_score", "val_score")


def score_learned(run: RunSeries) -> dict | None:
    """The first score (train, then val) that learned, as evidence: `score_metric`,
    `score_start`, `score_end` and `score_room_gained` (the share of its head's room it
    covered); None when no score says so."""
    for role in _ROLES:
        for metric in run.metrics(role):
            found = _learned(run, role, metric)
            if found is not None:
                return found
    return None


def _learned(run: RunSeries, role: str, metric: str) -> dict | None:
    sign = name_direction(metric)
    _, y = finite_curve(run, role, metric)
    scale = score_scale(y) if len(y) >= _MIN_POINTS else None
    if sign == 0 or scale is None:
        return None
    edge = max(1, int(_EDGE_SHARE * len(y)))
    head, end = float(np.median(y[:edge])), float(np.median(y[-edge:]))
    room = scale - head if sign > 0 else head
    gain = (end - head) * sign
    noise = score_noise(y)
    if room <= TINY or gain < LEARNED_ROOM * room or gain < _LEARNED_Z * noise:
        return None
    return {
        "score_metric": metric,
        "score_start": head,
        "score_end": end,
        "score_room_gained": gain / room,
    }
