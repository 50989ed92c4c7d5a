"""lr_decayed_too_early: the learning rate fell to a small fraction of its peak early in the run,
and the loss stopped improving where it fell.

Symptom: a step cut or an aggressive decay (ReduceLROnPlateau with a short patience, milestones
set in epochs but counted in steps) leaves most of the budget at a tiny LR; the loss, still
falling before, flattens at the cut.
Signal read: the primary LR curve (peak after any warmup, the first step after the peak where it
is at most `lr_fraction` of the peak, whether it stays there); the train loss around that step:
its improvement rate over the last quarter of the stretch before the drop (at least 2k points)
against the rate from the drop to the end.
The budget is the logged span of the train loss: a schedule that anneals to ~0 at the END of
the logged run (cosine, linear) falls below the fraction only late and is not flagged.
Rule: the drop comes within the first `max_budget` of the run and the LR stays low for at least
90% of the points after it; the loss improved significantly before the drop (at least 2 standard
errors of the two k-point medians compared) and its improvement rate after the drop is at
most `stall_ratio` of the rate before; and from just after the drop (past the instant dip a
cut gives) to the end the loss improves by at most `max_post_gain` of its level (a loss that
keeps improving after a cut, only more slowly, is a schedule doing its job), unless the cut is
one no schedule plans: `_NO_PLAN_DROP` (100x) or more within the first `_NO_PLAN_SHARE` (5%) of
the run (milestones set in steps instead of epochs), where the slowing alone is the finding.
A loss that had already stopped before the LR first fell to half its peak is no loss the decay
stopped: over the last half of the stretch before that first cut (the medians of its two
quarters) it gained under `_STALLED_BEFORE_CUT` (0.5%) of its level. The cuts that followed were
the schedule reacting to the stall (ReduceLROnPlateau), and the stall is plateau's or
underfit's to explain.
Confidence: 0.5 at the thresholds, + up to 0.25 the earlier the drop, + up to 0.23 the flatter
the loss after (the `_*_CONFIDENCE` constants), capped at 0.98.
Evidence: lr_peak, lr_final, lr_drop_factor (peak / final LR), decay_fraction (0..1 of the run
where the LR fell), decay_step, cuts (downward steps of at least 2x after the peak),
rate_ratio (improvement rate after / before), post_gain, loss_before, loss_at_decay,
loss_end, lr_metric (the LR read), stays_low (share of the points after the drop where the LR
stays low), pre_gain_z (the loss's gain before the drop, in standard errors), first_cut_step
and gain_before_first_cut (the relative gain just before the LR first halved; None when fewer
than `_MIN_CUT_POINTS` loss points come before it).
Known false positives: a run stopped early by the user right after a planned step schedule (the
logged budget is not the planned one); a run that converged exactly when the LR was cut.
"""

from __future__ import annotations

import numpy as np
from lossforensics.classifiers._align import finite_curve, leading_median, trailing_median
from lossforensics.classifiers.base import Classifier
from lossforensics.classifiers.diagnosis import Finding, Span
from lossforensics.classifiers.run import RunSeries
from lossforensics.classifiers.signals import TINY, noise_level, tail_level

# the LR curve needs 3 points: a peak, a drop and one reading after it
_MIN_LR_POINTS = 3
# the loss levels compared are medians of k points, k = 1/20 of the train points (5%): wide
# enough to outvote noise, narrow enough to sit right at the drop ...
_MEDIAN_PARTS = 20
# ... and at least 3 points, the smallest median that outvotes one bad reading
_MIN_MEDIAN_POINTS = 3
# the loss before the drop is read over the last quarter of the pre-drop stretch: a fast first
# descent long before the cut is not progress the cut stopped
_PRE_DROP_PARTS = 4
# the final LR is the median of its last 3 readings: a last-step blip does not set the factor
_LR_END_POINTS = 3
# a cut is a step to at most half the LR before it (a 2x fall between two readings)
_CUT_RATIO = 0.5
# a median's noise over a mean's of the same points (sqrt(pi/2) ~ 1.25): the compared levels
# are medians
_MEDIAN_NOISE = 1.25
# the LR stays low for 90% of the points after the drop: a brief dip that recovers is no decay
_MIN_STAYS_LOW = 0.9
# the loss improved before the drop by 2 standard errors: it was learning when the LR fell
_MIN_PRE_GAIN_Z = 2.0
# a cut of 100x or more ...
_NO_PLAN_DROP = 100.0
# ... within the first 5% of the run is no planned schedule (warmup-then-decay, step and cosine
# schedules keep most of the peak for far longer): the post-cut gain is not asked
_NO_PLAN_SHARE = 0.05
# confidence at the thresholds (drop at max_budget, rate ratio at stall_ratio): a finding
_BASE_CONFIDENCE = 0.5
# added as the drop moves from max_budget to the first step: earlier wastes more budget
_EARLY_CONFIDENCE = 0.25
# added as the rate after the drop falls from stall_ratio to zero: a flat loss is surer
_FLAT_CONFIDENCE = 0.23
# confidence never reaches 1: the user may have stopped the run right after a planned schedule
_MAX_CONFIDENCE = 0.98
# the first cut: the LR at half its peak or below ...
_FIRST_CUT = 0.5
# ... before which the loss gained under 0.5% of its level over the last half of the stretch
# (two quarters' medians): it was no longer improving at the full LR
_STALLED_BEFORE_CUT = 0.005
# ... read when at least 12 loss points come before the cut: quarters of 3 points, the smallest
# median that outvotes one noisy point (a sparser log's quarters swing by their noise alone)
_MIN_CUT_POINTS = 12
# the summary gives the drop's place in the run in percent
_PERCENT = 100


def _gain_before_cut(tx: np.ndarray, ty: np.ndarray, cut_step: float) -> float | None:
    """The loss's relative gain over the last half of the stretch before `cut_step`: the
    median of its last quarter against the quarter before; None with too few points."""
    j = int(np.searchsorted(tx, cut_step, side="right"))
    if j < _MIN_CUT_POINTS:
        return None
    w = j // _PRE_DROP_PARTS
    earlier = float(np.median(ty[j - 2 * w : j - w]))
    later = float(np.median(ty[j - w : j]))
    return (earlier - later) / max(abs(earlier), TINY)


def _no_plan(m: dict) -> bool:
    """A cut no schedule plans: the LR fell `_NO_PLAN_DROP` (100x) or more within the first
    `_NO_PLAN_SHARE` (5%) of the run. The loss slowing after it (rate_ratio) is then enough: what
    it still gains at 1% of its LR is not a schedule doing its job."""
    return m["lr_drop_factor"] >= _NO_PLAN_DROP and m["decay_fraction"] <= _NO_PLAN_SHARE


class LrDecayedTooEarly(Classifier):
    label = "lr_decayed_too_early"
    needs = frozenset({"train_loss", "lr"})
    # train points needed: a descent before the drop and a stretch after it, each a median
    min_points = 8

    def __init__(
        self,
        *,
        # the LR "fell" at a tenth of its peak: a step cut or an aggressive decay, not a wobble
        lr_fraction: float = 0.1,
        # the drop comes within the first 60% of the run: a schedule annealing at the end is
        # doing its job
        max_budget: float = 0.6,
        # the loss improves after the drop at a quarter of its rate before, or slower: stalled
        stall_ratio: float = 0.25,
        # from just after the drop to the end the loss improves by 10% of its level at most: a
        # loss still improving after a cut, only more slowly, is a schedule doing its job
        max_post_gain: float = 0.1,
    ) -> None:
        self.lr_fraction = lr_fraction
        self.max_budget = max_budget
        self.stall_ratio = stall_ratio
        self.max_post_gain = max_post_gain

    def measure(self, run: RunSeries, *, screen: bool = False) -> dict | None:
        """The LR's drop and the loss around it. With `screen`, None once the drop's timing or
        the LR's staying low rules a finding out (judge's first test): the loss's levels
        and noise are read only where they can decide."""
        lx, ly = finite_curve(run, "lr")
        tx, ty = finite_curve(run, "train_loss")
        if len(ly) < _MIN_LR_POINTS or len(ty) < self.min_points or np.max(ly) <= 0:
            return None
        i_peak = int(np.argmax(ly))
        peak = float(ly[i_peak])
        low = np.flatnonzero(ly[i_peak:] <= self.lr_fraction * peak)
        if len(low) == 0:
            return None
        i_drop = i_peak + int(low[0])
        drop_step, t0, t1 = float(lx[i_drop]), float(tx[0]), float(tx[-1])
        decay_fraction = (drop_step - t0) / max(t1 - t0, TINY)
        stays_low = float(np.mean(ly[i_drop:] <= 2 * self.lr_fraction * peak))
        if screen and self._late_or_brief(decay_fraction, stays_low):
            return None
        ratios = ly[i_peak + 1 :] / np.maximum(ly[i_peak:-1], TINY)
        first_cut = float(lx[i_peak + int(np.flatnonzero(ly[i_peak:] <= _FIRST_CUT * peak)[0])])
        k = max(_MIN_MEDIAN_POINTS, len(ty) // _MEDIAN_PARTS)
        # the loss just before the drop: the last quarter of the pre-drop stretch (2k points at
        # least), so a fast first descent long before the cut does not count as progress
        # (with fewer than 2k points before the drop, two halves of what there is)
        j = int(np.searchsorted(tx, drop_step, side="right"))
        kp = max(1, min(k, j // 2))
        start = max(0, j - max(j // _PRE_DROP_PARTS, 2 * kp))
        before = float(np.median(ty[start : start + kp])) if j >= 2 else float("nan")
        at_drop = trailing_median(tx, ty, drop_step, kp)
        after_drop = leading_median(tx, ty, drop_step, k)  # past the cut's instant drop
        end = tail_level(ty, 0.0, k)
        pre_rate = (before - at_drop) / max(drop_step - tx[start], TINY)
        post_rate = (at_drop - end) / max(t1 - drop_step, TINY)
        return {
            "lr_metric": run.primary("lr"),
            "lr_peak": peak,
            "lr_final": float(ly[-1]),
            "lr_drop_factor": peak / max(float(tail_level(ly, 0.0, _LR_END_POINTS)), TINY),
            "decay_step": int(drop_step),
            "end_step": int(t1),
            "decay_fraction": decay_fraction,
            "stays_low": stays_low,
            "cuts": int(np.count_nonzero(ratios <= _CUT_RATIO)),
            "loss_before": before,
            "loss_at_decay": at_drop,
            "loss_end": end,
            "post_gain": float((after_drop - end) / max(abs(after_drop), abs(end), TINY)),
            # in standard errors of a difference of two k-point medians
            "pre_gain_z": float(
                (before - at_drop) / max(_MEDIAN_NOISE * noise_level(ty) * np.sqrt(2.0 / kp), TINY)
            ),
            "rate_ratio": post_rate / pre_rate if pre_rate > 0 else float("inf"),
            "first_cut_step": int(first_cut),
            "gain_before_first_cut": _gain_before_cut(tx, ty, first_cut),
        }

    def _late_or_brief(self, decay_fraction: float, stays_low: float) -> bool:
        """The LR fell after `max_budget` of the run, or did not stay low: no finding."""
        return decay_fraction > self.max_budget or stays_low < _MIN_STAYS_LOW

    def judge(self, m: dict) -> Finding | None:
        if self._late_or_brief(m["decay_fraction"], m["stays_low"]):
            return None
        if m["pre_gain_z"] < _MIN_PRE_GAIN_Z or m["rate_ratio"] > self.stall_ratio:
            return None
        if not (m["post_gain"] <= self.max_post_gain or _no_plan(m)):
            return None  # still improving (NaN: cannot tell)
        stalled = m.get("gain_before_first_cut")
        if stalled is not None and stalled < _STALLED_BEFORE_CUT:
            return None  # stopped at the full LR: the cuts reacted to the stall
        conf = (
            _BASE_CONFIDENCE
            + _EARLY_CONFIDENCE * (1 - m["decay_fraction"] / self.max_budget)
            + _FLAT_CONFIDENCE * (1 - max(m["rate_ratio"], 0.0) / self.stall_ratio)
        )
        summary = (
            f"The learning rate fell to {_PERCENT * self.lr_fraction:.0f}% of its peak by step "
            f"{m['decay_step']} ({_PERCENT * m['decay_fraction']:.0f}% into the run; "
            f"{m['lr_drop_factor']:.0f}x below the peak by the end) and the loss stopped "
            f"improving there ({m['loss_at_decay']:.4g} -> {m['loss_end']:.4g} over the rest of "
            "the run)."
        )
        evidence = {k: v for k, v in m.items() if k != "end_step"}
        return Finding(
            self.label,
            float(min(_MAX_CONFIDENCE, conf)),
            Span(m["decay_step"], m["end_step"]),
            evidence,
            summary,
        )

    def detect(self, run: RunSeries) -> Finding | None:
        m = self.measure(run, screen=True)
        return None if m is None else self.judge(m)
