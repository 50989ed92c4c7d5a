"""underfit: training and validation loss both stay high and close, and stop improving early.

Symptom: the model learns a little, then both curves flatten at a high level with almost no
gap between them: it cannot fit even the training data (too small, too regularised, LR too
low).
Signal: the training loss at its start (the first point; the median of the first 3 on
per-step logs), the smoothed loss in the middle (40-60% of the run) and at the end (last
15%); the validation loss at its end; all by signals' robust levels.
"High" is measured against the loss at the start: at initialisation a classifier's loss sits at
chance level (ln of the number of classes for cross-entropy), so the share of the starting loss
kept is the share of chance-level loss still unexplained.
Rule: for positive losses, the training loss keeps at least 60% of its starting value (it fell
less than 40%; `min_kept_stuck`, 40%, when plateau's measurement finds it stuck and validation
ends within `tight_gap`, 5%, of training: stalled flat with no gap, it stopped learning
high; a model too small to learn anything may not move at all, or end a little
higher). Without the task's reachable loss "high" is a guess, and a loss that fell by 40% or
more has learnt a good part of what it can: a LoRA fine-tune that halves its loss, or a language
model converging on a high-entropy text, are healthy runs that keep about half. It stopped
improving, or it fits under half of its own training examples: a training accuracy (its name
says accuracy; a language model's token accuracy is not a share of examples) whose end level
(median of its last 20%) is under `FITS_UNDER` (half) of its scale gets most of the examples it
trains on wrong, whether or not the loss still creeps down (a small CNN on CIFAR-10 at 45%
after 50 epochs); a score at 0 throughout is left out (an unused metric). Stopped improving:
the second half improved it by under 5%, at under 15% of the rate of the stretch before (a
knee, not a slow steady descent), or plateau's measurement finds it stuck. And validation ends
within 15% of training (or below it). A run that barely moved
(kept at least `near_start`, 80%, of its starting loss: still near its initial, chance-level
loss) needs no knee: a second half gaining under 5% is stopped enough, whatever the rate before
it (a model too small or too regularised often creeps from the first step, so it has no knee to
find). A second half that rose by over `max_late_rise` (10%) is not a flat line at a high level
(exploding's or oscillating's business). Losses that can be negative have no "high" to speak of
and are not judged.
A val score (accuracy, Dice, ...; metric_mismatch's, higher or lower is better by name or by its
correlation with the loss) that closed `_SCORE_LEARNED_REL` (a third) of its room by
`_SCORE_LEARNED_Z` (4) sigmas says the model fits, whatever share of its start the loss kept: a
Dice or Jaccard loss barely leaves 1 while the accuracy climbs 0.56 -> 0.82. So does a held-out
score that has converged (classifiers._score_converged: the median of its second half within
`CONVERGED_ROOM`, 5%, of its bound: 95% accuracy or better), learned before the first
evaluation or not: an epoch log whose first epoch already averaged the fall keeps most of its
"start" while the model gets the held-out data right. A validation loss
that still gained `_VAL_STILL_GAINING` (10%) of its level over the second half (middle to end)
has not stopped improving either, however the training loss reads (its noise, a warm-up still
raising the learning rate): both curves must have flattened.
A loss that flattens while its LR anneals toward zero stopped because its steps shrank: the
LR's mean over the second half of the run under `_ANNEALED` (a third) of its peak (a linear
decay to zero averages a quarter of its peak there, a cosine one a fifth) makes the stall the
schedule's, and
"high" alone, without a reference, is a guess. Such a run is called underfit only on a direct
measure of poor fit: a training accuracy under `FITS_UNDER`, or a chance-level start. (A
stall under an annealed LR that is still worth naming is plateau's, which reads the flat
stretch itself, or lr_decayed_too_early's when the decay came early.)
A log that starts mid-run (classifiers._log_start) has no untrained loss to measure the share
kept against: its first point is already a trained model's loss, so such a log is called
underfit only on a training accuracy under `FITS_UNDER` (evidence window).
Without a validation loss "high and close" cannot be read, so the run is skipped, unless the
training loss started at a classifier's chance level: its first logged value (or its start
level) within 0.5% of ln(k) (classifiers._chance) for k = 2..10 classes, the cross-entropy of a
model predicting uniformly (a binary U-Net's first epoch at 0.6924 = ln 2). Chance is then the
reference for "high": the loss keeping `min_kept` of its start with a flat second half is
underfit, knee or not (evidence val_logged False, chance_classes k).
Confidence: 0.5 + 0.3 x how much of the start is left beyond 60% (scaled to 1 at 100%) + 0.15
when the train/val gap is under 5% (`_CLOSE_GAP`); the `_*_CONFIDENCE` constants.
Known false positives: a train-only fine-tune whose first loss happens to sit at some ln(k);
a fine-tune that starts near its best loss (little room to fall, so
"kept half" is normal) and a task whose irreducible loss is high (noisy labels, hard language
modelling); both look underfit without knowing the loss's floor.
Evidence: lr_late_share (the LR's mean over the second half over its peak; None without an
LR), val_logged, score_converged, chance_classes, train_score_metric and train_score_end (its
end level as a share of its scale) when a training accuracy is logged, score_metric, score_gain_rel
(share of its room the val score closed, head to tail) and score_gain_z when a val score is
logged, start, end, kept (end / start),
improvement (1 - kept), late_gain, val_late_gain, rate_ratio, plateau (bool), val_end, gap_ratio
((val end - end) / end), first_step, last_step, stall_step (the middle of the run, where the
finding's span starts).
"""

from __future__ import annotations

import numpy as np
from lossforensics.classifiers import signals
from lossforensics.classifiers._align import finite_curve
from lossforensics.classifiers._chance import chance_of, start_level
from lossforensics.classifiers._log_start import mid_run_start
from lossforensics.classifiers._score_converged import score_converged
from lossforensics.classifiers._score_stall import score_scale
from lossforensics.classifiers.base import Classifier
from lossforensics.classifiers.diagnosis import Finding, Span
from lossforensics.classifiers.metric_mismatch import MetricMismatch
from lossforensics.classifiers.numbers import change, num
from lossforensics.classifiers.plateau import Plateau
from lossforensics.classifiers.roles import name_words
from lossforensics.classifiers.run import RunSeries

# the finite train loss needs 6 points: a start, a middle span and an end span to compare
_MIN_TRAIN_POINTS = 6
# the finite validation loss needs 3 points: its end level is a median, not one reading
_MIN_VAL_POINTS = 3
# the middle of the run (40%-60%): where "the second half improved it by under 5%" starts
_MIDDLE = (0.4, 0.6)
# the end of the run (last 15%): long enough for a median to ignore a spike, late enough to be
# where the loss ended
_END = (0.85, 1.0)
# validation's end level is the median of its last 20%: validation is logged sparsely
_VAL_END_SHARE = 0.2
# a validation loss that still gained 10% of its level over the second half (twice the train's
# `max_late_gain`) has not stopped improving: the model is still learning, whatever the train
# loss's noise or warm-up says
_VAL_STILL_GAINING = 0.1
# the early rate is measured from 15% of the run to its half: the warm-up and the first fast
# drop before 15% would make every later rate look like a knee
_EARLY_FROM = 0.15
# confidence for a loss that kept exactly min_kept of its start: already high and stalled
_BASE_CONFIDENCE = 0.5
# the kept share above min_kept is scaled over 0.4 (60% to 100% of the start map to 0..1)
_HIGH_SPAN = 0.4
# added as the kept share reaches 100% of the start: a loss that never fell is surely underfit
_HIGH_CONFIDENCE = 0.3
# added when validation ends within _CLOSE_GAP of training: no gap at all, the clearest sign
# that the model fits neither set
_CLOSE_GAP_CONFIDENCE = 0.15
# a train/val gap under 5% (relative to the train loss) is no gap at all
_CLOSE_GAP = 0.05


def _rate_ratio(xs: np.ndarray, level: np.ndarray) -> float:
    """Late descent rate over early (15%-50% of the run) rate, on the log level: under 0.15 is
    a knee."""
    t, half = np.log(level), xs[0] + 0.5 * np.ptp(xs)
    early = (xs >= xs[0] + _EARLY_FROM * np.ptp(xs)) & (xs <= half)
    rate_early = -signals.trend(xs[early], t[early]).slope if early.sum() >= 2 else 0.0
    rate_late = -signals.trend(xs[xs >= half], t[xs >= half]).slope
    return rate_late / rate_early if rate_early > 0 else 0.0


# a val score (accuracy, Dice, ...) that closed a third of its room (to 1 or 0 for a bounded
# score, else its size) learned a good part of what it can, whatever the loss's scale says (a
# Dice or Jaccard loss that barely leaves 1 while the accuracy climbs 0.56 -> 0.82) ...
_SCORE_LEARNED_REL = 1 / 3
# ... by a clear margin: metric_mismatch's 4 sigmas of the score's noise
_SCORE_LEARNED_Z = 4.0
# metric_mismatch at its defaults: its measurement (shared through the run) gives the score's gain
_SCORES = MetricMismatch()


# a training accuracy: its name says accuracy (a token accuracy of a language model is no share
# of examples right: 0.3-0.6 is a healthy fine-tune's)
_ACCURACY_WORDS = frozenset({"acc", "accuracy", "accs", "accuracies", "acc1", "acc5"})
_NOT_EXAMPLES = "token"
# a model that gets under half of its own training examples right fits less than it misses
FITS_UNDER = 0.5
# the training accuracy's end level is the median of its last 20% of points
_TRAIN_SCORE_END_SHARE = 0.2


def train_accuracy_end(run: RunSeries) -> tuple[str, float] | None:
    """The first training accuracy (a share of examples right, by its name) and its end level
    as a share of its scale (1, or 100 for a percentage); None without one."""
    for name in run.metrics("train_score"):
        words = name_words(name)
        if not words & _ACCURACY_WORDS or _NOT_EXAMPLES in words:
            continue
        _, y = finite_curve(run, "train_score", name)
        if len(y) < _MIN_VAL_POINTS or not np.any(y):
            continue  # zero throughout: an unused or broken metric as often as a model
        scale = score_scale(y)
        if scale is not None:
            return name, signals.tail_level(y, _TRAIN_SCORE_END_SHARE) / scale
    return None


# the LR over the second half averaging under a third of its peak: annealed (a linear decay to
# zero averages a quarter of its peak there, a cosine one a fifth), so the loss's steps shrank
_ANNEALED = 1 / 3
# ...read from an LR of 3 points at least: a start, a peak and a second half
_MIN_LR_POINTS = 3


def _lr_late_share(run: RunSeries, x: np.ndarray) -> float | None:
    """The LR's mean over the second half of the training loss's span, as a share of its peak;
    None without a logged LR."""
    lx, ly = finite_curve(run, "lr")
    if len(ly) < _MIN_LR_POINTS or np.max(ly) <= 0:
        return None
    late = ly[lx >= x[0] + 0.5 * (x[-1] - x[0])]
    return float(np.mean(late) / np.max(ly)) if len(late) else None


def _score_learned(ev: dict) -> bool:
    """A val score closed `_SCORE_LEARNED_REL` of its room by `_SCORE_LEARNED_Z` sigmas: the
    model fits, and a loss that kept most of its start says more about its scale than the fit."""
    return (
        ev.get("score_gain_rel", 0.0) >= _SCORE_LEARNED_REL
        and ev.get("score_gain_z", 0.0) >= _SCORE_LEARNED_Z
    )


class Underfit(Classifier):
    label = "underfit"
    needs = frozenset({"train_loss", "val_loss"})
    # logged points each loss needs before the label runs: validation is often logged rarely,
    # so 4 is enough to try; measure() then asks for the finite points it reads
    min_points = 4

    def __init__(
        self,
        *,
        # "high": the loss kept at least 60% of its start; one that fell by 40% or more has
        # learnt a good part of what it can (a LoRA fine-tune keeps about half and is healthy)
        min_kept: float = 0.6,
        # a model too small to learn anything may end a little above its start, up to 10%
        max_kept: float = 1.1,
        # "stopped improving": the second half gained under 5% of the loss
        max_late_gain: float = 0.05,
        # validation ends within 15% above training (or below it): no generalisation gap
        max_gap: float = 0.15,
        # a knee: the late rate under 15% of the early one, not a slow steady descent
        max_rate_ratio: float = 0.15,
        # a loss that kept 80% of its start barely moved from chance level: it needs no knee
        near_start: float = 0.8,
        # a second half that rose by over 10% is not a flat line (exploding's, oscillating's)
        max_late_rise: float = 0.1,
        # a loss stuck flat with validation right on it (no gap: nothing left to generalise,
        # the capacity signature) is underfit having kept only 40% of its start
        min_kept_stuck: float = 0.4,
        # validation within 5% of training is "right on it" for min_kept_stuck
        tight_gap: float = 0.05,
    ) -> None:
        self.min_kept = min_kept
        self.max_kept = max_kept
        self.max_late_gain = max_late_gain
        self.max_gap = max_gap
        self.max_rate_ratio = max_rate_ratio
        self.near_start = near_start
        self.max_late_rise = max_late_rise
        self.min_kept_stuck = min_kept_stuck
        self.tight_gap = tight_gap
        self._plateau = Plateau()  # "stopped improving" is plateau's measurement, reused

    def _train_only_at_chance(self, run: RunSeries) -> bool:
        """No validation loss, and the training loss starts at a classifier's chance level:
        "high" then has its reference without a validation curve."""
        train = run.curve("train_loss")
        if run.has("val_loss") or train is None:
            return False
        x, y = signals.finite_points(train.steps, train.values)
        return len(y) >= _MIN_TRAIN_POINTS and chance_of(y, x) is not None

    def skip_reason(self, run: RunSeries) -> str | None:
        if self._train_only_at_chance(run):
            return None
        return super().skip_reason(run)

    def measure(self, run: RunSeries, *, rates: bool = True) -> dict | None:
        """The run's fit statistics; with rates=False the two trend fits are left out
        (rate_ratio None): detect() screens with the rest first, the trends cost most."""
        train, val = run.curve("train_loss"), run.curve("val_loss")
        if train is None or (val is None and not self._train_only_at_chance(run)):
            return None
        x, y = signals.finite_points(train.steps, train.values)
        if val is not None:
            _, vy = signals.finite_points(val.steps, val.values)
            if len(vy) < _MIN_VAL_POINTS:
                return None
        if len(y) < _MIN_TRAIN_POINTS or not signals.all_positive(y):
            return None
        xs, level = run.smoothed("train_loss")
        start = start_level(y)
        mid, end = signals.span_median(level, *_MIDDLE), signals.span_median(level, *_END)
        # without a validation curve there is no gap to read: judged on the train alone
        val_end = end if val is None else signals.tail_level(vy, _VAL_END_SHARE, min_points=1)
        val_late_gain = 0.0
        if val is not None:
            val_mid = signals.span_median(vy, *_MIDDLE)
            val_late_gain = (val_mid - val_end) / val_mid if val_mid > 0 else 0.0
        kept = end / start
        stuck = self._plateau.measure(run)
        scored = _SCORES.measured(run)
        fitted = train_accuracy_end(run)
        return {
            "lr_late_share": _lr_late_share(run, x),
            **({"train_score_metric": fitted[0], "train_score_end": fitted[1]} if fitted else {}),
            **(
                {
                    "score_metric": scored["score_metric"],
                    "score_gain_rel": scored["metric_gain_rel"],
                    "score_gain_z": scored["metric_gain_z"],
                }
                if scored
                else {}
            ),
            "val_logged": val is not None,
            "score_converged": score_converged(run),
            "chance_classes": chance_of(y, x),
            **({"window": window} if (window := mid_run_start(run, x)) else {}),
            "plateau": bool(stuck and stuck["stuck_fraction"] >= self._plateau.min_stuck),
            "rate_ratio": _rate_ratio(xs, level) if rates else None,
            "start": start,
            "end": end,
            "val_end": val_end,
            "kept": kept,
            "improvement": 1.0 - kept,
            "late_gain": (mid - end) / mid,
            "val_late_gain": float(val_late_gain),
            "gap_ratio": (val_end - end) / end,
            "first_step": int(x[0]),
            "last_step": int(x[-1]),
            "stall_step": int(x[int(0.5 * (len(x) - 1))]),
        }

    def underfits(self, ev: dict) -> bool:
        """The verdict; a rate_ratio of None (not measured) counts as a knee wherever the late
        gain is flat, so False then means False whatever the rates."""
        flat_late = ev["late_gain"] < self.max_late_gain
        knee = flat_late and (ev["rate_ratio"] is None or ev["rate_ratio"] <= self.max_rate_ratio)
        barely_moved = flat_late and ev["kept"] >= self.near_start  # no knee to look for
        # under half of its own training examples right at the end: whether or not the loss
        # still creeps, the model does not fit its training data
        fits_under_half = ev.get("train_score_end", 1.0) < FITS_UNDER
        stalled = ev["plateau"] or knee or barely_moved or fits_under_half
        # a loss stuck flat (plateau's measurement) with validation right on training may have
        # kept only half its start: it stopped learning high, with nothing left to generalise
        if not ev.get("val_logged", True):
            # train only, from a chance-level start: kept `min_kept` of chance and a flat second
            # half is high and stopped, knee or not (chance is the reference the knee stood for)
            stalled = flat_late
        # (a validation loss on training: without one there is no gap to read, only chance)
        stuck_tight = (
            ev["plateau"] and ev.get("val_logged", True) and abs(ev["gap_ratio"]) <= self.tight_gap
        )
        low = self.min_kept_stuck if stuck_tight else self.min_kept
        share = ev.get("lr_late_share")
        annealed = share is not None and share < _ANNEALED
        if annealed and not fits_under_half and ev.get("chance_classes") is None:
            return False
        if ev.get("window") and not fits_under_half:
            return False
        return (
            not _score_learned(ev)
            and not ev.get("score_converged", False)
            and ev.get("val_late_gain", 0.0) < _VAL_STILL_GAINING
            and low <= ev["kept"] <= self.max_kept
            and stalled
            and ev["late_gain"] >= -self.max_late_rise
            and ev["gap_ratio"] <= self.max_gap
        )

    def judge(self, ev: dict) -> Finding:
        high = min(1.0, (ev["kept"] - self.min_kept) / _HIGH_SPAN)
        confidence = (
            _BASE_CONFIDENCE
            + _HIGH_CONFIDENCE * high
            + _CLOSE_GAP_CONFIDENCE * (abs(ev["gap_ratio"]) < _CLOSE_GAP)
        )
        if ev.get("val_logged", True):
            where = "close to" if ev["gap_ratio"] >= -self.max_gap else "below"
            beside = f"validation ends {where} it ({num(ev['val_end'])})"
        else:
            beside = (
                f"it started at the chance level of {ev['chance_classes']} classes "
                f"({num(ev['start'])}) and no validation loss is logged"
            )
        summary = (
            f"Training loss {change(ev['improvement'])} in all (to {num(ev['end'])}) and "
            f"stopped improving; {beside}: the model is not fitting the training data."
        )
        return Finding(
            self.label, float(confidence), Span(ev["stall_step"], ev["last_step"]), ev, summary
        )

    def detect(self, run: RunSeries) -> Finding | None:
        ev = self.measure(run, rates=False)  # most runs are ruled out before the trend fits
        if ev is None or not self.underfits(ev):
            return None
        ev = self.measure(run)
        if ev is None or not self.underfits(ev):
            return None
        return self.judge(ev)
