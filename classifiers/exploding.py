"""exploding: the training loss climbs far above its best and stays there.

Symptom: after reaching its minimum the loss rises a long way and does not come back (often
ending in NaN); the gradient norm grows or jumps with it.
Signal: the smoothed training loss (bucket medians + rolling median): its minimum, the level of
its last 10% of points, the head level; the largest single jump after the minimum; the gradient
norm's late median over its median before the minimum, when logged. A short log (under 40
points) is read unsmoothed, so its minimum is the level the loss held around its best: each
inner print counts at its median with its two neighbours, so a lone low print counts at the
lower of them (one lucky batch, or a running sum reset at an epoch's start and divided by the
whole interval, is no level the run reached; the rise from it is no blow-up).
Rule: the end level is above the minimum by at least 30% (ln ratio >= 0.26; half that when the
loss ends non-finite) for positive losses, and by at least a quarter of the initial drop; for
losses that can be negative or zero, the rise must reach half of the curve's robust range.
The rise must also clear 4x the point-to-point noise of the run before its minimum (a blow-up's
own swings are no yardstick; on a short log with under 3 points before it, the whole log's, a
median of first differences one jump does not move, unless the end is 10x the best or more),
the minimum must not be at the end, and the rise must hold at
the last two levels (`held_rise_log`, the lower of them; not needed for a loss that ends
non-finite, nor for an end 10x above the best, `_ORDERS_OF_MAGNITUDE`, which no noise makes):
on a short log read unsmoothed, one last print high above the best (a DeiT batch loss at 0.0109
after 0.0062-0.0082) shows no loss that stayed there. That is `kind`
"blow_up". A slow sustained divergence counts too (`kind` "slow_divergence"): from a minimum
at least `slow_span` (20%) of the run before the end, the level climbs steadily (Kendall tau
>= `slow_tau`, 0.6; no single jump making half of the rise: a step up is a loss redefined or a
restart, not a divergence) to `slow_rise_log` (0.1, about 10%) above the minimum, beyond 4x
the noise, and is still climbing at the end (at least `still_rising`, 20%, of the rise made in
the last `slow_span`: a loss that rose to a new level and stayed there found an equilibrium).
A training loss that climbs steadily for a fifth of the run has no benign reading.
A sudden step up is not a divergence when the held-out loss witnesses otherwise: the validation
loss never went `_VAL_HELD` (2%) above its level at the training loss's best, and the training
loss kept falling after the step (Kendall tau <= `_AFTER_JUMP_TAU`). Weights that blew up do
worse on held-out data at once; a loss whose definition changed mid-run (a Dice term added at
epoch 3) steps up while the model carries on learning; the diagnosis names such a step under
`set_aside` (its step, its size, the held-out witness). With no held-out loss, a held-out score
whose name says which way is better witnesses the same way: one that kept improving through the
rise (`_SCORE_AFTER`, 3, evaluations after the training loss's best, its best at the end, a gain
of `_SCORE_GAIN_Z`, 2, sigmas of its noise since, Kendall tau at least `slow_tau`) says the loss
changed scale (spaCy sums its loss over a batch its default batcher grows) or definition, and
the rise is set aside (evidence held_out_improved). The per-step series is read when the loss
is also logged per epoch.
A rise during the learning rate's warm-up counts too (`kind` "warmup_overshoot"): with the LR
logged and warming up (its peak after its first `_WARMUP_MIN_POINTS` points and at least
`_WARMUP_MIN_GROWTH` (2x) its first value), the smoothed loss rose to `_WARMUP_RISE` (2x) its best,
beyond 4x the noise, before the LR's peak (plus `_WARMUP_SLACK` of the run), and the run ended
`min_rise_log` above its best: the LR became too high on the way up, the way an LR range test's
curve turns up (a Whisper fine-tune warming up to 1e-4: 0.12 -> 0.31 by the peak, its eval loss
doubling and never recovering). The end may have come part of the way back as the schedule
decayed, which the blow-up's bar on the end (a quarter of the initial drop) would not allow.
Evidence adds warmup_rise, lr_peak_step and lr_peak.
A loss can diverge downwards too (`kind` "unbounded_fall"): below zero over the last
`slow_span` of the run, ending `_UNBOUNDED_FACTOR` (100x) the magnitude of its head level or
more, and still falling (the last `slow_span` made `still_rising` of the fall). Cross-entropy and
MSE have a floor at 0, a Gaussian NLL or an ELBO levels off near the noise level; a loss that
falls by orders of magnitude without levelling has no floor for these targets (binary
cross-entropy on labels outside [0, 1], a sign error): the outputs grow without bound.
Confidence `_UNBOUNDED_CONFIDENCE` (0.7).
Confidence: 0.6 + 0.3 x min(1, ln(end/min) / ln 3) (or the rise in ranges), + 0.1 when the
gradient norm grew 3x or the loss ended non-finite.
Known false positives: a deliberate schedule that raises the loss (curriculum to harder data,
a new task phase) or a metric that is not a loss; a run resumed from an older checkpoint (the
resume_discontinuity label explains that better).
Evidence: min_step, min_level, end_level, rise_log, held_rise_log, rise_ratio, rise_full (the
finite rise alone clears the threshold), kind ('blow_up' | 'slow_divergence' | 'warmup_overshoot' |
'unbounded_fall'), rise_tau,
late_rise_share,
sudden, early (min_fraction, the minimum's place in the run, 0..1, is small), head_level (the
level at the start), noise (of the run before its minimum), ends_nonfinite, held_out_improved
(None, or the held-out score's metric, its value at the training loss's best and at the end),
grad_norm_growth
(only once the loss's course says exploded); for a sudden step, jump_step,
after_jump_tau and val_worst_after_min (the highest validation loss after the minimum over its
level there); for an unbounded fall, head_level, end_level, fall_ratio (|end| / |head|),
late_fall_share and below_zero_step.
"""

from __future__ import annotations

import numpy as np
from lossforensics.classifiers import signals
from lossforensics.classifiers._align import finite_curve, score_noise
from lossforensics.classifiers.base import Classifier
from lossforensics.classifiers.diagnosis import Finding, Span
from lossforensics.classifiers.metric_mismatch import name_direction
from lossforensics.classifiers.numbers import times
from lossforensics.classifiers.run import RunSeries
from lossforensics.classifiers.signals.reduce import median
from lossforensics.classifiers.signals.smoothing import SMOOTH_MIN_POINTS
from lossforensics.classifiers.signals.spread import NOISE_MIN_POINTS

# the end level: median of the last 10% of the smoothed curve, so one late wobble does not move it
_END_SHARE = 0.1
# a point below both its neighbours by more than this many times the noise (and by more than
# they differ) is a lone low print, not a level the loss reached (`_held_minimum`)
_DIP_NOISE = 4.0
# ...which needs a point with one on each side
_WITH_NEIGHBOURS = 3
# the head level: median of the first 5%, where the drop the rise is weighed against began
_HEAD_SHARE = 0.05
# a span in steps below this is zero (a one-step run): no division by it
_TINY_SPAN = 1e-12
# a minimum within the first 5% of the run is "early": the loss never really came down
_EARLY_SHARE = 0.05
# floor for the rise when weighing one jump against it, so a zero rise divides cleanly
_TINY_RISE = 1e-300
# Kendall's tau needs this many points after the minimum to say anything about a climb
_MIN_TAU_POINTS = 4
# the gradient norm's late median is taken over the last 10% of the run, as the end level is
_GRAD_LATE_SHARE = 0.1
# a rise to one last print 10x (ln 10) above the best is a blow-up whether or not it stayed
# (SSD's 14.0 then 120128.9): no batch noise moves a loss by an order of magnitude
_ORDERS_OF_MAGNITUDE = float(np.log(10.0))
# a rise must clear 4x the point-to-point noise before the minimum: smaller is ordinary wander
_NOISE_MULTIPLE = 4
# a minimum in the last 10% of the run leaves no room for a rise to be read as a blow-up
_LATE_MIN_SHARE = 0.9
# a rise of ln 3 (the loss tripled) earns the full size part of the confidence
_FULL_RISE_RATIO = 3.0
# a gradient norm grown 3x since the minimum corroborates the blow-up
_GRAD_GROWTH_BOOST = 3.0
# confidence = base + weight x size (+ boost when corroborated), capped below certainty:
_CONFIDENCE_BASE = 0.6  # a rise that clears every test is more likely than not a blow-up
_CONFIDENCE_SIZE_WEIGHT = 0.3  # the rest scales with the size of the rise, full at 3x
_CONFIDENCE_BOOST = 0.1  # a 3x gradient norm or a non-finite end corroborates it
_CONFIDENCE_CAP = 0.99  # a loss raised on purpose (a harder curriculum) can look the same


# the validation loss at the training loss's best: the median of its last 3 evaluations up to
# then (one evaluation is too noisy a witness, more reach back before the best)
_VAL_SIDE = 3
# the training loss's trend after a jump needs 3 points to say it kept falling
_MIN_AFTER_JUMP = 3
# the held-out loss rises with a real blow-up; one that never went 2% above its level at the
# training loss's best saw no damage to the model
_VAL_HELD = 1.02
# with no held-out loss, a held-out score read at this many evaluations after the training
# loss's best ...
_SCORE_AFTER = 3
# ... that ended at its best and gained this many of its noise since that best, climbing
# steadily (Kendall tau at least `slow_tau`), witnesses a model that kept improving
_SCORE_GAIN_Z = 2.0
# after a loss redefinition the training loss keeps falling: Kendall tau at most -0.3 (a
# blown-up loss stays high or climbs, tau near 0 or positive)
_AFTER_JUMP_TAU = -0.3
# a loss below zero over the last `slow_span` whose end is 100x the magnitude of where it began
# fell by orders of magnitude: a loss with a floor (cross-entropy, MSE: 0; a Gaussian NLL: its
# noise level) levels off long before that
_UNBOUNDED_FACTOR = 100.0
# ... and read with the confidence of a finding with one reading only: the shape alone says it
_UNBOUNDED_CONFIDENCE = 0.7
# warm-up overshoot: the loss doubled from its best while the logged LR was still rising to its
# peak (the LR range test's turn-up, seen in the run itself)...
_WARMUP_RISE = 2.0
# ...the LR's peak is the warm-up's end when it comes after this many logged LR points and at
# least twice the LR's first value (a schedule that starts at its peak has no warm-up)
_WARMUP_MIN_POINTS = 3
_WARMUP_MIN_GROWTH = 2.0
# ...and the loss is read up to the peak's step and this share of the run past it (the LR logged
# every N steps places the peak within one interval)
_WARMUP_SLACK = 0.05


def _noise_before(
    x: np.ndarray, y: np.ndarray, min_step: int, factor: float | None, *, short: bool
) -> float:
    """The point-to-point noise of the loss up to its best. On a `short` log (read unsmoothed)
    with too few points before the best to measure it (its best is its first or second print),
    the whole log's, a median of its first differences that one jump does not move: a rise of
    a few prints is no blow-up when the loss swings as much from print to print. A rise of
    `_ORDERS_OF_MAGNITUDE` or more (`factor`, end over best) needs no yardstick: no noise makes
    it. A longer log is judged on smoothed levels, whose rise a blow-up's own swings (at its
    higher level) would wrongly measure."""
    before = y[: int(np.searchsorted(x, min_step)) + 1]
    if len(before) >= NOISE_MIN_POINTS or not short:
        return signals.noise_level(before)
    if factor is not None and np.log(factor) >= _ORDERS_OF_MAGNITUDE:
        return 0.0
    return signals.noise_level(y)


def _held_minimum(level: np.ndarray, *, raw: bool = False) -> tuple[int, float]:
    """Where the loss was lowest and its level there, a lone low point aside. A short log is
    not smoothed (`raw`), and one low print (one lucky batch; a running sum divided by the full
    interval just after it was reset: Udacity's `running_loss/print_every` at each epoch's first
    print) is no level the run reached, though the rise from it reads as a blow-up: each inner
    print counts at its median with its two neighbours (a lone low one at the lower of them),
    the first and the last as logged. On a smoothed level, a point below both its neighbours by
    more than `_DIP_NOISE` times the curve's point-to-point noise and by more than they differ
    from each other counts at the lower neighbour (the curve on both sides sits at one level; a
    minimum at a corner, the last point of a fall before a step up, is a level the loss
    reached)."""
    floor = np.asarray(level, dtype=np.float64)
    if raw and len(floor) >= _WITH_NEIGHBOURS:
        floor = np.r_[floor[0], signals.rolling_median(floor, _WITH_NEIGHBOURS)[1:-1], floor[-1]]
    elif len(floor) >= _WITH_NEIGHBOURS:
        left, mid, right = floor[:-2], floor[1:-1], floor[2:]
        beside = np.minimum(left, right)
        depth = beside - mid
        dips = (depth > _DIP_NOISE * signals.noise_level(floor)) & (depth > np.abs(left - right))
        floor = np.r_[floor[0], np.where(dips, beside, mid), floor[-1]]
    i = int(np.argmin(floor))
    return i, float(floor[i])


class Exploding(Classifier):
    label = "exploding"
    needs = frozenset({"train_loss"})
    # a minimum, a rise and an end level need at least 5 points to tell apart
    min_points = 5
    per_step = True

    def __init__(
        self,
        *,
        # a blow-up ends at least 30% above its minimum (ln 1.3): ordinary drift stays below
        min_rise_log: float = 0.26,
        # ... and by at least a quarter of the initial drop: a run that barely fell only wobbles
        min_drop_share: float = 0.25,
        # losses that can be <= 0 have no ratio: the rise must reach half the curve's robust range
        min_range_share: float = 0.5,
        # a slow divergence climbs at least ~10% (ln 1.1) above its minimum
        slow_rise_log: float = 0.1,
        # ... from a minimum at least 20% of the run before the end (and read over the last 20%)
        slow_span: float = 0.2,
        # ... steadily: Kendall tau of the climb >= 0.6 (a wander has tau near 0)
        slow_tau: float = 0.6,
        # ... 20% of the rise made in the last `slow_span`: a loss resting at a new level is settled
        still_rising: float = 0.2,
    ) -> None:
        self.min_rise_log = min_rise_log
        self.min_drop_share = min_drop_share
        self.min_range_share = min_range_share
        self.slow_rise_log = slow_rise_log
        self.slow_span = slow_span
        self.slow_tau = slow_tau
        self.still_rising = still_rising

    def measure(self, run: RunSeries, *, grad: bool = True, screen: bool = False) -> dict | None:
        """The loss's course from its best to its end and, with `grad`, the gradient norm's
        growth (read only for the confidence and the evidence: a median over every logged
        norm, `_grad_growth`). With `screen`, None once the cheap part of the course (levels,
        jumps, late climb) rules a finding out: the noise, the scale and the climb's trend are
        read only where they can decide."""
        curve = run.detailed("train_loss")
        if curve is None:
            return None
        x, y = signals.finite_points(curve.steps, curve.values)
        if len(y) < self.min_points:
            return None
        xs, level = run.smoothed("train_loss", per_step=True)
        i_min, low = _held_minimum(level, raw=len(level) < SMOOTH_MIN_POINTS)
        end = signals.tail_level(level, _END_SHARE, min_points=2)
        min_fraction = float((xs[i_min] - xs[0]) / max(np.ptp(xs), _TINY_SPAN))
        rise_log = signals.log_ratio(low, end)
        after = level[i_min:]
        jumps = np.diff(after)
        sudden = bool(len(jumps) and jumps.max() >= 0.5 * max(end - low, _TINY_RISE))
        # share of the rise made over the last `slow_span` of the run: still climbing at the end
        last = xs >= xs[-1] - self.slow_span * np.ptp(xs)
        late_rise_share = float(
            (end - level[last][0]) / (end - low) if end > low and last.any() else 0.0
        )
        ends_nonfinite = bool(len(curve) and not np.isfinite(curve.values[-1]))
        head = signals.head_level(level, _HEAD_SHARE)
        # a warm-up overshoot needs only an end `min_rise_log` above the best and a logged LR
        warmup = (
            run.has("lr")
            and rise_log is not None
            and rise_log >= self.min_rise_log
            and min_fraction < _LATE_MIN_SHARE
        )
        if screen and not (
            warmup
            or self._may_explode(
                low, end, head, min_fraction, rise_log, ends_nonfinite, sudden, late_rise_share
            )
        ):
            return None
        ev: dict = {
            "min_step": int(xs[i_min]),
            "min_level": low,
            "end_level": end,
            "head_level": head,
            "min_fraction": min_fraction,
            "ends_nonfinite": ends_nonfinite,
            "rise_log": rise_log,
            # the rise the last two levels both hold: on a short log read unsmoothed, one last
            # print high above the best shows no loss that stayed there
            "held_rise_log": signals.log_ratio(low, float(np.min(level[-2:])))
            if len(level) - i_min > 2
            else None,
            "rise_ratio": (end - low) / signals.scale(level),
            # the noise of the run before it went wrong (a blow-up's own swings are no yardstick)
            "noise": _noise_before(
                x,
                y,
                int(xs[i_min]),
                end / low if low > 0 < end else None,
                short=len(level) < SMOOTH_MIN_POINTS,
            ),
        }
        ev["early"] = min_fraction <= _EARLY_SHARE
        ev["sudden"] = sudden
        # how steadily the level climbed from its minimum to the end (Kendall's tau)
        ev["rise_tau"] = (
            signals.trend(xs[i_min:], level[i_min:]).tau if len(after) >= _MIN_TAU_POINTS else 0.0
        )
        ev["late_rise_share"] = late_rise_share
        if ev["sudden"]:
            ev.update(self._across_jump(run, xs, level, i_min + int(np.argmax(jumps)) + 1))
        ev["held_out_improved"] = self._score_witness(run, int(xs[i_min]))
        if grad:
            ev.update(self._grad_growth(run, ev))
        return ev

    def _score_witness(self, run: RunSeries, min_step: int) -> dict | None:
        """With no held-out loss, the course of the first held-out score whose name says which
        way is better, from the training loss's best to the end, when it kept improving: its
        last evaluation its best (within its noise), a gain of `_SCORE_GAIN_Z` noise since the
        best, a steady climb (Kendall tau at least `slow_tau`). Weights that blew up do worse
        on held-out data at once; a loss that rises while the model keeps improving changed
        scale (a summed loss over a batch size that grows, spaCy's default) or definition.
        None otherwise."""
        if run.has("val_loss"):
            return None
        directed = ((m, name_direction(m)) for m in run.metrics("val_score"))
        metric, sign = next(((m, d) for m, d in directed if d), (None, 0))
        if metric is None:
            return None
        x, y = finite_curve(run, "val_score", metric)
        after = x > min_step
        if after.sum() < _SCORE_AFTER or after.all():
            return None
        s = sign * y
        start = s[~after][-1]
        noise = score_noise(y)
        tau = signals.trend(x[after], s[after]).tau if after.sum() >= _MIN_TAU_POINTS else 1.0
        if s[-1] < np.max(s) - noise or s[-1] - start < _SCORE_GAIN_Z * noise:
            return None
        if tau < self.slow_tau:
            return None
        return {"metric": metric, "at_best": float(y[~after][-1]), "end": float(y[-1])}

    def _may_explode(
        self,
        low: float,
        end: float,
        head: float,
        min_fraction: float,
        rise_log: float | None,
        ends_nonfinite: bool,
        sudden: bool,
        late_rise_share: float,
    ) -> bool:
        """Whether `blew_up` or `diverged_slowly` could hold, from every test of theirs that
        does not read the noise, the scale or the climb's trend (a rise must clear 4x the
        noise, which is never negative: a rise of 0 clears nothing)."""
        rise = end - low
        if rise <= 0:
            return False
        if rise_log is None:
            return min_fraction < _LATE_MIN_SHARE  # the rise in ranges needs the scale
        need = self.min_rise_log * (0.5 if ends_nonfinite else 1.0)
        blow_up = (
            min_fraction < _LATE_MIN_SHARE
            and rise_log >= need
            and rise >= self.min_drop_share * max(head - low, 0.0)
        )
        slow = (
            min_fraction <= 1.0 - self.slow_span
            and rise_log >= self.slow_rise_log
            and late_rise_share >= self.still_rising
            and not sudden
        )
        return blow_up or slow

    @staticmethod
    def _grad_growth(run: RunSeries, ev: dict) -> dict:
        """The gradient norm's median over the last `_GRAD_LATE_SHARE` of the run over its
        median up to the loss's best (`grad_norm_growth`), when both are there; else nothing."""
        norm = run.curve("grad_norm")
        if norm is None:
            return {}
        xs, _ = run.smoothed("train_loss", per_step=True)  # the run's, kept: no new smoothing
        gx, gy = signals.finite_points(norm.steps, norm.values)
        early_g, late_g = (
            gy[gx <= ev["min_step"]],
            gy[gx >= xs[-1] - _GRAD_LATE_SHARE * np.ptp(xs)],
        )
        # (reduce.median: np.median's numbers from one partition, each taken once)
        early_med = median(early_g) if len(early_g) and len(late_g) else 0.0
        return {"grad_norm_growth": float(median(late_g) / early_med)} if early_med > 0 else {}

    @staticmethod
    def _across_jump(run: RunSeries, xs: np.ndarray, level: np.ndarray, i: int) -> dict:
        """How the training loss moved after its largest jump (at `i` on the smoothed curve)
        and what the held-out loss did from the training loss's best on: `val_worst_after_min`
        is the validation loss's highest evaluation after the minimum over its level at the
        minimum (the median of the last evaluations at or before it)."""
        ev: dict = {"jump_step": int(xs[i])}
        after = level[i:]
        if len(after) >= _MIN_AFTER_JUMP:
            ev["after_jump_tau"] = signals.trend(xs[i:], after).tau
        val = run.curve("val_loss")
        if val is not None:
            vx, vy = signals.finite_points(val.steps, val.values)
            at_min = vx <= xs[int(np.argmin(level))]
            before, later = vy[at_min], vy[~at_min]
            if len(before) and len(later) and np.median(before[-_VAL_SIDE:]) > 0:
                ev["val_worst_after_min"] = float(np.max(later) / np.median(before[-_VAL_SIDE:]))
        return ev

    def redefined(self, ev: dict) -> bool:
        """A step up that is not a divergence: the validation loss never rose above its level
        at the training loss's best (weights that blew up do worse on held-out data at once)
        and the training loss kept falling after the step. The loss changed what it measures
        (a new term, a new weighting) while the model carried on learning."""
        held = ev.get("val_worst_after_min")
        return (
            ev["sudden"]
            and held is not None
            and held <= _VAL_HELD
            and ev.get("after_jump_tau", 0.0) <= _AFTER_JUMP_TAU
        )

    def witnessed(self, ev: dict) -> bool:
        """The held-out data says the rise is no blow-up: the validation loss held through a
        step up (`redefined`), or, with none logged, a held-out score kept improving through
        the rise (`held_out_improved`)."""
        return self.redefined(ev) or ev.get("held_out_improved") is not None

    def exploded(self, ev: dict) -> bool:
        if self.witnessed(ev):
            return False
        return self.blew_up(ev) or self.diverged_slowly(ev)

    def diverged_slowly(self, ev: dict) -> bool:
        """A sustained climb: from a minimum at least `slow_span` of the run before the end,
        the level rose steadily (Kendall tau >= `slow_tau`, no single jump making half of it:
        a step is a redefined loss or a restart, not a divergence) to `slow_rise_log` above it,
        beyond 4x the noise, and still climbing at the end (`still_rising` of the rise made in
        the last `slow_span`: a loss that rose to a new equilibrium and stayed is not
        diverging)."""
        rise = ev["end_level"] - ev["min_level"]
        return (
            ev["rise_log"] is not None
            and ev["min_fraction"] <= 1.0 - self.slow_span
            and rise > _NOISE_MULTIPLE * ev["noise"]
            and ev["rise_log"] >= self.slow_rise_log
            and ev.get("rise_tau", 0.0) >= self.slow_tau
            and ev.get("late_rise_share", 0.0) >= self.still_rising
            and not ev["sudden"]
        )

    def blew_up(self, ev: dict) -> bool:
        rise = ev["end_level"] - ev["min_level"]
        if ev["min_fraction"] >= _LATE_MIN_SHARE or rise <= _NOISE_MULTIPLE * ev["noise"]:
            return False
        if ev["rise_log"] is not None:
            need = self.min_rise_log * (0.5 if ev["ends_nonfinite"] else 1.0)
            drop = max(ev["head_level"] - ev["min_level"], 0.0)
            held = ev.get("held_rise_log")
            lone = held is None or held < need
            if lone and not ev["ends_nonfinite"] and ev["rise_log"] < _ORDERS_OF_MAGNITUDE:
                return False  # the rise rests on one last print: nothing shows it stayed
            return ev["rise_log"] >= need and rise >= self.min_drop_share * drop
        return ev["rise_ratio"] >= self.min_range_share

    def judge(self, ev: dict, last_step: int) -> Finding:
        # the finite rise alone clears the threshold (no discount for a non-finite end)
        ev["rise_full"] = bool(ev["rise_log"] is None or ev["rise_log"] >= self.min_rise_log)
        ev["kind"] = self._kind(ev)
        size = (
            (ev["rise_log"] / np.log(_FULL_RISE_RATIO))
            if ev["rise_log"] is not None
            else ev["rise_ratio"]
        )
        boost = ev.get("grad_norm_growth", 0.0) >= _GRAD_GROWTH_BOOST or ev["ends_nonfinite"]
        confidence = min(
            _CONFIDENCE_CAP,
            _CONFIDENCE_BASE + _CONFIDENCE_SIZE_WEIGHT * min(1.0, size) + _CONFIDENCE_BOOST * boost,
        )
        factor = (
            times(float(np.exp(ev["rise_log"])))
            if ev["rise_log"] is not None
            else f"by {ev['end_level'] - ev['min_level']:.3g}"
        )
        lead = "steadily " if ev["kind"] == "slow_divergence" else ""
        # the levels are smoothed (running medians, the end a median of the last tenth), so
        # the sentence says so rather than quote them as logged values
        summary = (
            f"Training loss (smoothed) rose {lead}{factor} from its best (about "
            f"{ev['min_level']:.4g} at step {ev['min_step']}) to about {ev['end_level']:.4g} "
            "and did not come back" + (", ending non-finite." if ev["ends_nonfinite"] else ".")
        )
        if ev["kind"] == "warmup_overshoot":
            summary = (
                f"Training loss (smoothed) rose {times(ev['warmup_rise'])} from its best (about "
                f"{ev['min_level']:.4g} at step {ev['min_step']}) while the learning rate was "
                f"still warming up to {ev['lr_peak']:.3g} (its peak, at step "
                f"{ev['lr_peak_step']}), and ended at about {ev['end_level']:.4g}, {factor} its "
                "best: the learning rate became too high on the way up."
            )
        return Finding(self.label, float(confidence), Span(ev["min_step"], last_step), ev, summary)

    def _kind(self, ev: dict) -> str:
        """blow_up (past the full threshold), warmup_overshoot (the rise came while the LR was
        warming up, `warmup_overshoot`), else slow_divergence."""
        if self.blew_up(ev):
            return "blow_up"
        return "warmup_overshoot" if "warmup_rise" in ev else "slow_divergence"

    def unbounded_fall(self, run: RunSeries) -> dict | None:
        """A loss that fell below zero and kept falling: over the last `slow_span` of the run
        every smoothed level is negative, the end level is `_UNBOUNDED_FACTOR` times the
        magnitude of the head level or more, and the last `slow_span` made at least
        `still_rising` of the whole fall (it is not levelling off). None otherwise."""
        xs, level = run.smoothed("train_loss", per_step=True)
        if len(level) < self.min_points:
            return None
        last = xs >= xs[-1] - self.slow_span * np.ptp(xs)
        head = signals.head_level(level, _HEAD_SHARE)
        end = signals.tail_level(level, _END_SHARE, min_points=2)
        if not (last.any() and np.all(level[last] < 0)):
            return None
        fall = head - end
        if abs(end) < _UNBOUNDED_FACTOR * max(abs(head), signals.TINY) or fall <= 0:
            return None
        late_fall_share = float((level[last][0] - end) / fall)
        if late_fall_share < self.still_rising:
            return None
        below = int(np.argmax(level < 0))
        return {
            "kind": "unbounded_fall",
            "head_level": head,
            "end_level": end,
            "fall_ratio": float(abs(end) / max(abs(head), signals.TINY)),
            "late_fall_share": late_fall_share,
            "below_zero_step": int(xs[below]),
            "sudden": False,
            "early": False,
            "ends_nonfinite": False,
        }

    def judge_unbounded(self, ev: dict, last_step: int) -> Finding:
        summary = (
            f"Training loss (smoothed) fell below zero and kept falling, from about "
            f"{ev['head_level']:.4g} to about {ev['end_level']:.4g} "
            f"({ev['fall_ratio']:.0f}x its starting magnitude), still falling at the end: a "
            "loss with a floor levels off, this one has none for these targets."
        )
        return Finding(
            self.label,
            _UNBOUNDED_CONFIDENCE,
            Span(ev["below_zero_step"], last_step),
            ev,
            summary,
        )

    def _course(self, run: RunSeries) -> dict | None:
        """measure(grad=False, screen=True), once per run and settings (kept with the run:
        detect and set_aside both read it); a copy, so a caller's additions stay its own."""
        ev = run.measured(
            ("exploding", repr(self)), lambda: self.measure(run, screen=True, grad=False)
        )
        return None if ev is None else dict(ev)

    def set_aside(self, run: RunSeries) -> str | None:
        """A rise that would read as a blow-up but for the held-out data (`witnessed`): the
        step up, the training loss's course after it and the validation loss's witness, or the
        held-out score that kept improving."""
        ev = self._course(run)
        if ev is None or not self.witnessed(ev):
            return None
        if not (self.blew_up(ev) or self.diverged_slowly(ev)):
            return None
        if (improved := ev.get("held_out_improved")) is not None:
            return (
                f"the training loss rose from its best at step {ev['min_step']}, but the "
                f"held-out {improved['metric']} kept improving through the rise "
                f"({improved['at_best']:.4g} -> {improved['end']:.4g}, its best at the end): "
                "weights that blew up do worse on held-out data at once, so the loss changed "
                "scale or definition (a summed loss over a growing batch size, a new term)"
            )
        factor = (
            times(float(np.exp(ev["rise_log"])))
            if ev["rise_log"] is not None
            else f"by {ev['end_level'] - ev['min_level']:.3g}"
        )
        return (
            f"the training loss stepped up at step {ev['jump_step']} (ending {factor} its "
            f"best) and kept falling after it (Kendall tau {ev['after_jump_tau']:.2f}), while "
            f"the validation loss never went {_VAL_HELD - 1:.0%} above its level at the "
            "training loss's best (its highest after: "
            f"{ev['val_worst_after_min']:.3g}x that level): the loss was "
            "redefined mid-run (a new term or weighting), the model did not blow up"
        )

    def warmup_overshoot(self, run: RunSeries, ev: dict) -> dict | None:
        """The loss (smoothed) rose to `_WARMUP_RISE` times its best, beyond 4x the noise, while
        the logged learning rate was still warming up to its peak, and the run's end stayed
        `min_rise_log` above its best: the LR became too high on the way up, as an LR range
        test's curve turns up. None otherwise, or when the held-out data says the rise was no
        blow-up (`witnessed`)."""
        lr = run.curve("lr")
        if lr is None or ev.get("rise_log") is None or self.witnessed(ev):
            return None
        lx, lv = signals.finite_points(lr.steps, lr.values)
        if len(lv) <= _WARMUP_MIN_POINTS or lv[0] <= 0:
            return None
        peak = int(np.argmax(lv))
        if peak < _WARMUP_MIN_POINTS or lv[peak] < _WARMUP_MIN_GROWTH * lv[0]:
            return None
        xs, level = run.smoothed("train_loss")
        upto = xs <= lx[peak] + _WARMUP_SLACK * np.ptp(xs)
        if upto.sum() < _WARMUP_MIN_POINTS or not signals.all_positive(level[upto]):
            return None
        warm = level[upto]
        best = int(np.argmin(warm))
        peak_level = float(np.max(warm[best:]))
        rise = peak_level / float(warm[best])
        climbed = peak_level - float(warm[best]) > _NOISE_MULTIPLE * ev["noise"]
        if rise < _WARMUP_RISE or ev["rise_log"] < self.min_rise_log or not climbed:
            return None
        return {"warmup_rise": rise, "lr_peak_step": int(lx[peak]), "lr_peak": float(lv[peak])}

    def detect(self, run: RunSeries) -> Finding | None:
        # the verdict does not read the gradient norm: most runs are ruled out without it, and
        # a run that exploded has it added to the course already measured
        ev = self._course(run)
        curve = run.curve("train_loss")
        if curve is None:
            return None
        exploded = ev is not None and self.exploded(ev)
        warm = None if ev is None or exploded else self.warmup_overshoot(run, ev)
        if ev is None or not (exploded or warm is not None):
            fell = self.unbounded_fall(run)
            return None if fell is None else self.judge_unbounded(fell, int(curve.steps[-1]))
        ev.update(warm or {})
        ev.update(self._grad_growth(run, ev))
        return self.judge(ev, int(curve.steps[-1]))
