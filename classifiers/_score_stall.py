"""A held-out score that stopped improving while the training loss kept collapsing.

Many fine-tunes log no validation loss, only a held-out score (BLEU, ROUGE, accuracy, WER) every
few epochs. When that score reaches its level early and then stays there while the training
loss goes on falling by a large factor, the training after the stall only memorised: the
examples the model was trained on got easier, the ones it was not did not. The stall is what the
log measures (the score stopped improving: a plateau of what the run is for); the memorisation
beside it is the overfitting that a validation loss would have shown rising.

The score's direction comes from its name (metric_mismatch.name_direction). It is read in
thirds of its evaluations: the best value within the first third against the median of the last
third. A score that later gained under `STALL_GAIN` of its own level and under `STALL_ROOM` of
the room it had left (to 1 for a [0, 1] score, to 100 for a percentage, else its own size) did
not really improve; the training loss over the same stretch (the median of its points up to the
end of the first third, against the median of its last 5%) fell by at least `MEMORISED_FALL`
(in log terms). A bounded score that was already within `CONVERGED_ROOM` of its bound (98.6%
accuracy, a 2% error rate) had nothing left to gain: a flat score there is convergence, not a
stall. A score that stood still (moved by under `STALL_GAIN` either way) is a plateau of what
the run is for; one that fell is the memorisation alone.
"""

from __future__ import annotations

import numpy as np
from lossforensics.classifiers._align import finite_curve, trailing_median
from lossforensics.classifiers.diagnosis import Finding, Span
from lossforensics.classifiers.metric_mismatch import CONVERGED_ROOM, name_direction
from lossforensics.classifiers.run import RunSeries
from lossforensics.classifiers.signals import TINY, tail_level

# evaluations of the score needed: a first and a last third of 2 evaluations each, one between
MIN_EVALS = 5
# the late score gained under 2.5% of its level (plateau's own bar for a late gain) ...
STALL_GAIN = 0.025
# ... and under 10% of the room it had left: 92% -> 93% accuracy is an eighth of what was left
STALL_ROOM = 0.1
# the training loss fell by a factor of 4 (ln 4) after the stall: far more than a converging
# run still gains, while the held-out score stood still
MEMORISED_FALL = float(np.log(4.0))
# the score is read in thirds of its evaluations: the first is where it got to, the last where
# it stayed
_PARTS = 3
# the train level at the stall is the median of its last 5 points up to that evaluation
_TRAIN_AT_STALL_POINTS = 5
# the train's end level is the median of its last 5% of points
_END_SHARE = 0.05
# a percentage score: every value in [0, 100] and some above 1
_PERCENT = 100.0


def score_scale(values: np.ndarray) -> float | None:
    """The bounded range a score lives in, as the values show it: 1 for a fraction, 100 for a
    percentage; None for an unbounded score (perplexity, a raw count)."""
    if np.all((values >= 0) & (values <= 1)):
        return 1.0
    if np.all((values >= 0) & (values <= _PERCENT)):
        return _PERCENT
    return None


def _room(best: float, sign: int, scale: float | None) -> float:
    """How far a score could still go from `best` (in its direction-adjusted units): to its
    bound (the scale for a higher-is-better score, 0 for an error rate), else its own size."""
    if scale is None:
        return abs(best)
    return scale - best if sign > 0 else -best


def held_out_stall(run: RunSeries) -> dict | None:
    """The measurement for the first held-out score whose name says its direction and that has
    `MIN_EVALS` evaluations, or None. Read only when the run logs no validation loss (with one,
    overfit and metric_mismatch read the loss and the score together). Kept with the run:
    plateau and overfit both read it."""
    if run.has("val_loss") or not run.has("train_loss"):
        return None
    return run.measured(("held_out_stall",), lambda: _measure(run))


def _measure(run: RunSeries) -> dict | None:
    tx, ty = finite_curve(run, "train_loss")
    if len(ty) < MIN_EVALS or np.any(ty <= 0):
        return None
    for name in run.metrics("val_score"):
        sign = name_direction(name)
        if sign == 0:
            continue
        sx, sy = finite_curve(run, "val_score", name)
        if len(sy) < MIN_EVALS:
            continue
        good = sign * sy
        third = int(np.ceil(len(good) / _PARTS))
        best = float(np.max(good[:third]))
        late = float(np.median(good[-third:]))
        scale = score_scale(sy)
        room = _room(best, sign, scale)
        at_stall = trailing_median(tx, ty, float(sx[third - 1]), _TRAIN_AT_STALL_POINTS)
        end = tail_level(ty, _END_SHARE)
        if not np.isfinite(at_stall) or end <= 0:
            continue
        return {
            "score_metric": name,
            "score_evaluations": int(len(good)),
            "stall_step": int(sx[third - 1]),
            "last_step": int(max(sx[-1], tx[-1])),
            "score_best_early": float(sign * best),
            "score_late": float(sign * late),
            "score_late_gain_rel": (late - best) / max(abs(best), TINY),
            "score_late_gain_room": (late - best) / max(room, TINY),
            "score_room_at_stall": room / scale if scale else None,
            "train_at_stall": float(at_stall),
            "train_end": float(end),
            "train_fall_log_after_stall": float(np.log(at_stall / end)),
        }
    return None


def stalled_while_memorising(m: dict) -> bool:
    """The score did not improve (under both gain bars) from a level with room left, while the
    training loss fell by a factor of at least e^`MEMORISED_FALL`: overfit's reading."""
    room = m["score_room_at_stall"]
    return (
        m["score_late_gain_rel"] < STALL_GAIN
        and m["score_late_gain_room"] < STALL_ROOM
        and (room is None or room >= CONVERGED_ROOM)
        and m["train_fall_log_after_stall"] >= MEMORISED_FALL
    )


def stood_still(m: dict) -> bool:
    """A stall in which the score also did not fall (by under `STALL_GAIN`): plateau's reading."""
    return stalled_while_memorising(m) and m["score_late_gain_rel"] > -STALL_GAIN


def stall_finding(label: str, tag: dict, confidence: float, summary: str, m: dict) -> Finding:
    """A finding from the stall to the run's end, the measurement as its evidence after `tag`
    (plateau's kind, overfit's reading)."""
    evidence = {**tag, **{k: v for k, v in m.items() if k != "last_step"}}
    return Finding(label, confidence, Span(m["stall_step"], m["last_step"]), evidence, summary)


def train_fall_factor(m: dict) -> float:
    """How many times lower the training loss ended than at the stall."""
    return float(np.exp(m["train_fall_log_after_stall"]))
