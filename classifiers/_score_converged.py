"""A held-out score that has converged: the model already gets (nearly) everything right.

The first bounded held-out score whose name says its direction (accuracy up, error rate down),
read over the second half of its evaluations (their median), sits within `CONVERGED_ROOM` of its
best end: the bound (1, or 100 for a percentage) for a score that rises, 0 for one that falls. A
model there swings its val loss by the confidence of a handful of examples (no instability:
oscillating), and does well on the held-out data (no data unlike the training data:
distribution_mismatch).
"""

from __future__ import annotations

import numpy as np
from lossforensics.classifiers._align import finite_curve
from lossforensics.classifiers._score_stall import CONVERGED_ROOM, score_scale
from lossforensics.classifiers.metric_mismatch import name_direction
from lossforensics.classifiers.run import RunSeries


def score_converged(run: RunSeries) -> bool:
    """Whether the run's first bounded, direction-named held-out score has converged."""
    for name in run.metrics("val_score"):
        sign = name_direction(name)
        _, y = finite_curve(run, "val_score", name)
        bound = score_scale(y) if len(y) >= 2 else None
        if sign == 0 or bound is None:
            continue
        level = float(np.median(y[len(y) // 2 :]))
        room = bound - level if sign > 0 else level
        return room <= CONVERGED_ROOM * bound
    return False
