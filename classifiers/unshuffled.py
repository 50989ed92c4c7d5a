"""unshuffled: a sawtooth in the training loss that repeats every epoch.

Symptom: the per-step loss traces the same shape in every epoch (data sorted by class, length
or source and never shuffled), so it rises and falls with the position inside the epoch.
Signal: signals.dominant_period of the detrended training loss (autocorrelation peak, harmonics
folded to the fundamental, also one of a fractional number of points: a 45-step epoch logged
every 2 steps) and the epoch length in steps when the run says it: from an `epoch`
metric (where its integer part changes; a fractional one, the HF Trainer's, by its steps over
its epochs), else from the validation cadence. The epoch fold (the
position inside the epoch against the detrended loss) leaves out the first epoch: a steep early
fall leaves a residual that a one-epoch trend cannot follow, aligned with the phase in that epoch
alone (a pretraining loss falling from 8.3 to 3 before its first evaluation). Running-mean metrics
(Keras `batch_*`) reset every epoch by construction and are not read.
Rule: a period of at least 4 points seen at least `min_cycles` (3) times with autocorrelation >=
`min_strength` (0.3) that dips by as much in between (a bump on a slowly decaying
autocorrelation is no cycle); when the epoch length is logged (an `epoch` metric) or hinted (the
validation cadence), one must be 1 to _MAX_MULTIPLE (8) times the other (class blocks of equal
size repeat inside the epoch; a logged epoch can count in other units); a period that fits no
logged epoch is rejected; a learning rate that itself cycles with that period (warm restarts)
vetoes the finding. Shape: a sawtooth spends a good part of its period raised; an excursion
above half the cycle's peak for under `spike_width` (8%) of the period
(classifiers._spikes.excursion_width) is a recurring spike, loss_spikes' finding, unless the
period is the epoch an `epoch` metric logs (a fixed place in every epoch needs a fixed data
order: a shuffled loader moves a bad sample around).
Not judged when the training loss is logged once an epoch or less often (the epoch length,
logged or hinted, under `_MIN_POINTS_PER_EPOCH` (2) logging intervals: Keras, YOLO and
Lightning epoch logs): a fixed order shows inside the epoch, which one point an epoch cannot
trace.
Staircase veto: a sawtooth climbs back within each cycle. A loss that drops at every epoch
boundary and stays down (multi-epoch memorisation: a permanent step each time the examples are
seen again) is also epoch-periodic once detrended, but never climbs back: when the largest
climb from the running low over one period (`climb_back`, on a curve smoothed over a tenth of
the period) is under `STAIRCASE` of the loss's fall over one period (`period_fall`), it is a
staircase, not a fixed data order.
Confidence: _BASE_CONFIDENCE (0.5) + _STRENGTH_BONUS (0.4) x min(1, (strength - min_strength) /
_STRENGTH_SPAN), + _EPOCH_MATCH_BONUS (0.1) when the period matches the epoch length.
Known false positives: cyclic schedules when the LR is not logged; a periodic evaluation or
checkpoint that perturbs training; deliberate curriculum cycles.
Evidence: period_steps, strength, prominence, cycles, epoch_steps, epoch_source, epoch_match,
width and epoch_width (share of the period spent raised, at the period and at the epoch),
climb_back / period_fall and epoch_climb_back / epoch_fall (the staircase veto, at the period
and at the epoch), metric (the role read), lr_cycles and epoch_lr_cycles (whether the LR cycles
with that period: a schedule's restarts, not the data), epoch_share, epoch_p and epochs (the
epoch fold's explained share, its p-value and the number of epochs folded), first_step and
last_step.
"""

from __future__ import annotations

import re

import numpy as np
from lossforensics.classifiers import signals
from lossforensics.classifiers._epochs import epoch_fold, epoch_length
from lossforensics.classifiers._spikes import SPIKE_WIDTH, excursion_width, trend_residual
from lossforensics.classifiers.base import Classifier
from lossforensics.classifiers.diagnosis import Finding, Span
from lossforensics.classifiers.run import RunSeries
from scipy import ndimage

_RUNNING_MEAN = re.compile(r"(^|/)batch_")


# climb back within a cycle / fall over a cycle below this: a staircase (drops that stay), not a
# sawtooth (a sawtooth climbs back by about its whole fall; half leaves room for a trend).
STAIRCASE = 0.5
# fewest logged points in one period: fewer have no shape to climb back within (and a curve
# shorter than that holds no period at all)
_MIN_PERIOD_POINTS = 4
# the staircase veto reads the loss smoothed over a tenth of the period: batch noise goes, the
# climb back of a sawtooth stays
_SMOOTH_PER_PERIOD = 10
# an epoch and a period match when one is 1 to this many times the other: class blocks of equal
# size repeat a few times inside an epoch; larger multiples match almost anything
_MAX_MULTIPLE = 8
# ...within this share of the shorter one (a logged epoch rounds, a period is read in whole points)
_MULTIPLE_TOLERANCE = 0.1
# the learning rate's own cycle: shortest period looked for (as for the loss, fewer points have
# no shape)
_LR_MIN_PERIOD = 4
# ...and it vetoes when its period is within this share of the loss's (the same cycle, read on a
# coarser or offset log)
_LR_PERIOD_TOLERANCE = 0.15
# judge: confidence of a cycle just over the bar: even odds, as schedules and evaluations also
# make periods
_BASE_CONFIDENCE = 0.5
# ...plus up to this much as the autocorrelation (or epoch share) rises above the bar...
_STRENGTH_BONUS = 0.4
# ...reached when it is this far above the bar (0.7 at the default 0.3: an unmistakable cycle)
_STRENGTH_SPAN = 0.4
# ...plus this when the period is the epoch length: the label's own explanation
_EPOCH_MATCH_BONUS = 0.1
# no finding read from a curve alone is certain
_MAX_CONFIDENCE = 0.95


def climb_and_fall(x: np.ndarray, y: np.ndarray, period: float) -> tuple[float, float]:
    """(median over cycles of the largest climb from the running low within one period, median
    fall of the loss over one period), on the loss smoothed over a tenth of the period; phase
    free. NaN when fewer than two periods are logged."""
    if not period or period <= 0 or len(y) < _MIN_PERIOD_POINTS:
        return float("nan"), float("nan")
    dx = float(np.median(np.diff(x)))
    n = int(round(period / dx)) if dx > 0 else 0
    if n < _MIN_PERIOD_POINTS or len(y) < 2 * n:
        return float("nan"), float("nan")
    w = max(1, n // _SMOOTH_PER_PERIOD)
    # trailing windows (the origin shifts each filter to end at the point itself)
    s = ndimage.median_filter(y, size=w, mode="nearest", origin=(w - 1) // 2)
    lows = ndimage.minimum_filter1d(s, size=n + 1, mode="nearest", origin=n // 2)
    climb = s - lows
    # the largest climb within each whole period after the first (one row a cycle)
    cycles = len(s) // n - 1
    per_cycle = climb[n : n + cycles * n].reshape(cycles, n).max(axis=1)
    fall = float(np.median(s[:-n] - s[n:]))
    return (float(np.median(per_cycle)) if cycles else float("nan")), fall


def _staircase(climb: float | None, fall: float | None) -> bool:
    """Drops that stay: the loss falls over a period and never climbs back by STAIRCASE of it.
    Unmeasured (None): not a staircase."""
    if climb is None or fall is None:
        return False
    return bool(fall > 0 and climb < STAIRCASE * fall)


def _multiple(a: float, b: float) -> bool:
    """Is `a` about m x `b` for a small whole m (1.._MAX_MULTIPLE)?"""
    multiples = np.arange(1, _MAX_MULTIPLE + 1)
    return bool(np.any(np.abs(a - multiples * b) <= _MULTIPLE_TOLERANCE * b))


# a sawtooth inside the epoch needs at least two logged points of it
_MIN_POINTS_PER_EPOCH = 2


class Unshuffled(Classifier):
    label = "unshuffled"
    needs = frozenset({"train_loss"})
    # fewest per-step points in which `min_cycles` periods of several points each can show
    min_points = 24
    per_step = True

    def __init__(
        self,
        *,
        # autocorrelation at the period (and its dip before it), or the share of the wiggle the
        # epoch position explains, must reach this: weaker peaks come from noise and slow trends
        min_strength: float = 0.3,
        # cycles (or epochs) the repetition must span: fewer is not evidence of a period
        min_cycles: float = 3.0,
        # the epoch fold's F-test p-value must be below this: a shape that chance folds into the
        # epoch less than once in a thousand runs
        max_p: float = 1e-3,
        spike_width: float = SPIKE_WIDTH,
    ) -> None:
        self.min_strength = min_strength
        self.min_cycles = min_cycles
        self.max_p = max_p
        self.spike_width = spike_width

    def skip_reason(self, run: RunSeries) -> str | None:
        """Also skipped when the training loss is logged once an epoch or less often: a fixed
        data order shows only inside an epoch, and an epoch's one point (its mean, or one batch
        at the same place every epoch) cannot trace it; a cycle over several epochs is some
        other rhythm."""
        reason = super().skip_reason(run)
        if reason is not None:
            return reason
        curve = run.detailed("train_loss")
        epoch, source = epoch_length(run)
        if curve is None or not epoch or len(curve) < 2:
            return None
        interval = float(np.median(np.diff(curve.steps)))
        if epoch < _MIN_POINTS_PER_EPOCH * interval:
            where = "the epoch metric" if source == "epoch" else "the validation cadence"
            return (
                f"the training loss is logged about once an epoch ({where} says so): a fixed "
                "data order shows only inside an epoch"
            )
        return None

    def measure(self, run: RunSeries, *, vetoes: bool = True) -> dict | None:
        """The cycle and the epoch fold and, with `vetoes`, what can turn them down (the
        learning rate's own cycle; the cycle's shape: width, climb back and fall), the costliest
        part to read; unmeasured vetoes are None."""
        curve = run.detailed("train_loss")
        if curve is None or _RUNNING_MEAN.search(curve.metric.lower()):
            return None
        x, y = signals.finite_points(curve.steps, curve.values)
        if len(y) < self.min_points:
            return None
        per = signals.loss_cycle(x, y, self.min_cycles)
        period_steps = per.period
        epoch, source = epoch_length(run)
        # the epoch, or equal class blocks inside it (epoch ~ m x period), or a few epochs when
        # the logged epoch counts in other units (logging every k steps, accumulation)
        match = bool(
            epoch
            and period_steps > 0
            and (_multiple(epoch, period_steps) or _multiple(period_steps, epoch))
        )
        # the fold leaves out the first epoch (the module docstring says why)
        later = x >= x[0] + epoch if epoch else x < x[0]
        share, p, epochs = epoch_fold(x[later], y[later], epoch) if epoch else (0.0, 1.0, 0.0)
        nan = float("nan")
        lr_cycles: bool | None = None
        epoch_lr_cycles: bool | None = None
        width: float | None = None
        epoch_width: float | None = None
        climb: float | None = None
        fall: float | None = None
        e_climb: float | None = None
        e_fall: float | None = None
        if vetoes:
            lr_cycles = period_steps > 0 and self._lr_cycles(run, period_steps)
            epoch_lr_cycles = bool(epoch and self._lr_cycles(run, epoch))
            # one trend-free curve for both folds (the smoothing costs more than a fold)
            residual = trend_residual(x, y) if period_steps > 0 or epoch else None
            width = excursion_width(x, y, period_steps, residual=residual)
            epoch_width = excursion_width(x, y, epoch, residual=residual) if epoch else nan
            climb, fall = climb_and_fall(x, y, period_steps)
            e_climb, e_fall = climb_and_fall(x, y, epoch) if epoch else (nan, nan)
        return {
            "period_steps": period_steps,
            "strength": per.strength,
            "cycles": per.cycles,
            "prominence": per.prominence,
            "epoch_steps": epoch,
            "epoch_source": source,
            "metric": curve.metric,
            "epoch_match": match,
            "lr_cycles": lr_cycles,
            "epoch_share": share,
            "epoch_p": p,
            "epochs": epochs,
            "epoch_lr_cycles": epoch_lr_cycles,
            "width": width,
            "epoch_width": epoch_width,
            "climb_back": climb,
            "period_fall": fall,
            "epoch_climb_back": e_climb,
            "epoch_fall": e_fall,
            "first_step": int(x[0]),
            "last_step": int(x[-1]),
        }

    def _lr_cycles(self, run: RunSeries, period_steps: float) -> bool:
        """Does the learning rate repeat with (about) the same period?"""
        lr = run.curve("lr")
        if lr is None or len(lr) < self.min_points:
            return False
        lx, ly = signals.finite_points(lr.steps, lr.values)
        if len(ly) < self.min_points or np.ptp(ly) == 0:
            return False
        dx = float(np.median(np.diff(lx)))
        per = signals.dominant_period(ly, min_period=_LR_MIN_PERIOD, max_period=len(ly) // 2)
        return (
            per.strength > 0.5
            and abs(per.period * dx - period_steps) < _LR_PERIOD_TOLERANCE * period_steps
        )

    def cycles(self, ev: dict) -> bool:
        """An autocorrelation period seen often and clearly, that fits the epoch if one is
        logged, and is not the learning rate's own cycle."""
        if (
            ev["period_steps"] == 0
            or ev["lr_cycles"]
            or ev["strength"] < self.min_strength
            or ev["prominence"] < self.min_strength
            or ev["cycles"] < self.min_cycles
            or not (self._broad(ev["width"]) or self._logged_epoch(ev))
            or _staircase(ev["climb_back"], ev["period_fall"])
        ):
            return False
        return not (ev["epoch_source"] == "epoch" and not ev["epoch_match"])

    def folds(self, ev: dict) -> bool:
        """The position inside the (known) epoch explains a large, significant share of the
        loss's wiggle over enough epochs, and the learning rate does not cycle per epoch."""
        return (
            ev["epoch_share"] >= self.min_strength
            and ev["epoch_p"] < self.max_p
            and ev["epochs"] >= self.min_cycles
            and not ev["epoch_lr_cycles"]
            and (self._broad(ev["epoch_width"]) or ev["epoch_source"] == "epoch")
            and not _staircase(ev["epoch_climb_back"], ev["epoch_fall"])
        )

    @staticmethod
    def _logged_epoch(ev: dict) -> bool:
        """The period is the epoch an `epoch` metric logs: whatever its width, an excursion at
        the same place every epoch needs a fixed data order (a shuffled loader moves a bad
        sample around)."""
        return ev["epoch_source"] == "epoch" and ev["epoch_match"]

    def _broad(self, width: float | None) -> bool:
        """A sawtooth spends a good share of its period raised; a recurring bad batch is an
        excursion narrower than `spike_width` of it (loss_spikes' finding). Unmeasured (NaN, or
        None when the shape was not read): broad."""
        return width is None or not width < self.spike_width

    def judge(self, ev: dict) -> Finding:
        if self.cycles(ev):
            over = (ev["strength"] - self.min_strength) / _STRENGTH_SPAN
            confidence = min(
                _MAX_CONFIDENCE,
                _BASE_CONFIDENCE
                + _STRENGTH_BONUS * min(1.0, over)
                + _EPOCH_MATCH_BONUS * ev["epoch_match"],
            )
            where = (
                f"the epoch length ({ev['epoch_steps']:.0f} steps)"
                if ev["epoch_match"]
                else "no logged epoch length"
            )
            summary = (
                f"Training loss repeats a sawtooth every {ev['period_steps']:.0f} steps "
                f"(autocorrelation {ev['strength']:.2f}, {ev['cycles']:.0f} cycles), "
                f"matching {where}: the data order looks fixed."
            )
        else:
            over = (ev["epoch_share"] - self.min_strength) / _STRENGTH_SPAN
            confidence = min(_MAX_CONFIDENCE, _BASE_CONFIDENCE + _STRENGTH_BONUS * min(1.0, over))
            summary = (
                f"Training loss traces the same shape in every epoch: the position "
                f"inside the {ev['epoch_steps']:.0f}-step epoch explains "
                f"{ev['epoch_share']:.0%} of its wiggle over {ev['epochs']:.0f} epochs "
                "(p < 0.001): the data order looks fixed."
            )
        return Finding(
            self.label, float(confidence), Span(ev["first_step"], ev["last_step"]), ev, summary
        )

    def detect(self, run: RunSeries) -> Finding | None:
        # most runs show no cycle and no epoch fold: ruled out before the vetoes are read (they
        # only ever turn a finding down; None, unmeasured, lets it through)
        ev = self.measure(run, vetoes=False)
        if ev is None or not (self.cycles(ev) or self.folds(ev)):
            return None
        ev = self.measure(run)
        if ev is None or not (self.cycles(ev) or self.folds(ev)):
            return None
        return self.judge(ev)
