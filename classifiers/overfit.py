"""overfit: training keeps improving while the validation loss passes its minimum and rises.

Symptom: the train-val gap opens: val bottoms out, then climbs while train still falls (or sits
near zero, memorised).
Signal read: the primary val loss at its evaluations (often 5-50 points, sometimes a step-0 eval
before training), smoothed by a running median over ~5% of them (at least 3); the train loss as
the median of its points over the stretch leading to each evaluation (classifiers._align), so
both are compared at the same moments whatever their cadences or step units.
Rule: the val improved before its minimum (2 sigmas), or `late_first_eval` (90%) of the train's
improvement came before the first evaluation (training had converged: the minimum predates
it; a val that climbs from any earlier first evaluation is distribution_mismatch), or half of
it did and that first evaluation was already `first_eval_gain` (10%) below the train's starting
loss (the val had improved before it was measured: a fine-tune evaluated every N steps; a first
evaluation at the untrained level learned nothing that transfers), or the minimum IS that
learned first evaluation and the train went on to memorise (fell by `memorised_log`, a factor of
20) or the val rose clearly (`rise_z` sigmas and `strong_rise` of its range): a minimum at the
first evaluation is still a minimum; or the minimum came within the first third of the
evaluations (`_EARLY_MIN_SHARE`: too early for the drop before it to stand out of the noise),
the val had followed the train's improvement further than distribution_mismatch allows a val
that did not follow (its `val_follow_ratio` above `widest_follow`, 20%: the two labels split a
val rising from its first evaluations on the same measure), and it rose clearly; or that first
evaluation had already learned (`first_eval_gain` below the train's start: an epoch log's first
val comes after a whole epoch), so distribution_mismatch gives it up, and the val rose clearly
and by `log_fall_rise` (10%) of its minimum over 3+ evaluations, wherever that minimum fell; at
least two evaluations follow the minimum; the late val level (median of the last third of them, at
least 3 when there are 3) stands `rise_z` detrended-noise sigmas above the minimum; train
improved by at least `train_drop` of its level over the evaluated span and has not risen since
the val minimum; and either the rise is large (`strong_rise` of the val's own range) or train
is still falling after the minimum so the gap keeps widening: by `train_fall` of its range over
the span, or, for a train loss near zero whose range no longer shows its fall, by
`train_fall_log` in log terms (a third of its level) beside a val rise of at least
`log_fall_rise` (10%) of the val minimum (a relative yardstick for a relative fall).
A val that never got below the untrained model's loss (`first_eval_gain` under the train's start)
and rose by under `_FLAT_PCT` (5%) never generalised: not overfit, whatever the path; unless it
is a U, a fall of `VAL_DROP_Z` sigmas to its minimum and a rise of `rise_z` after it (an epoch
log's first train value is an epoch's mean, already trained, so the val can learn and lose it
without ever getting below that value).
A val that stopped improving for the last `stall_share` (25%) of the span while train kept
falling is a weaker finding (a stall: the gap widens although the rise is within a sigma or
two), unless the val loss crept up by under `_CREEP_PCT` (2%) while a val score (accuracy,
ROUGE, ...) gained at least a sigma after the loss's minimum: generalisation is still improving;
or unless the last evaluation, as logged, is the best of all (the smoothed level hid a val that
was still improving), ties included: within `_BEST_WITHIN` (half) of the val's noise and
`_BEST_REL` (1%) of its level (a Whisper fine-tune's 0.3422 after a best of 0.3414). The
memorised-train reading below stands down on the same last evaluation.
Nor is it overfit when the training loss rose after the val's minimum by `_ROSE_TOGETHER` (half)
or more of the val's rise (both in log terms): the two climbed together, no gap opened between
them (a run going unstable, or a frozen net's loss wandering, is another label's).
A train loss that fell by `memorised_log` (20x) and has not risen since the val's minimum, beside
a val `_MEMORISED_RISE_PCT` (20%) above that minimum over 3+ evaluations, is the same weaker
finding at `_MEMORISED_RISE_Z` (one sigma) of rise: a small val set (a Keras or tabular
validation split) is noisy enough to keep a real 20-40% rise under `rise_z` sigmas, and a
memorised train says which way the gap goes.
With only 2 to 4 evaluations (a short fine-tune evaluated once an epoch), too few to measure
their noise, a val that rose at every evaluation after its best by `_few_evals.MIN_RISE` (20%,
about 3x the noise of a noisy real val; 15% after three rises in a row, which chance makes 4
times rarer than two) while the training loss kept falling is overfit at
`_INFERRED_CONFIDENCE` (classifiers._few_evals; evidence reading='few_evaluations'). A short
epoch log of 5 to 20 evaluations the rules above find nothing in is read the same way from its
raw values (reading='short_log'): a minimum that is a level, not one lucky evaluation, every
evaluation after it 5% above it and their median 15% above (a running median of 3 erases a
minimum one epoch wide).
A window cut late from training (its first step past `_LATE_START`, half, of its last: epochs
86-90 pasted from an issue), which the rules above find nothing in, is overfit when the val sits
`_LATE_GAP` (2x) or more above the train at its start and did not follow (`_LATE_FOLLOW`, a
fifth) a train fall of `_LATE_TRAIN_DROP` (20%) or more across it: the gap opened before the
window and training on widens it; or when the val sits `_LATE_MEMORISED_GAP` (20x) or more above
the train and closes under `_LATE_VAL_CLOSING` (a tenth) of its level across the window, whatever
the train does at its floor: the model memorised its training data (reading='late_window_gap',
distribution_mismatch's measurement, confidence `_LATE_WINDOW_CONFIDENCE`, 0.4: inferred without
the run's start).
Without a validation loss, a log that marks its epochs is read for the memorisation staircase
(classifiers._staircase): the per-step training loss drops by `_MIN_DROP_REL` (5%) or more at
2+ epoch boundaries, those drops hold `_BOUNDARY_SHARE` (two thirds) of its fall over the epochs
read (each with 10+ points: head and end levels are medians of a fifth), the loss climbs back
within the epochs by under a third of the drops (a sawtooth is unshuffled's) and the learning
rate did not step at the boundaries (a per-epoch schedule drops the loss there for another
reason). The loss falls where examples are seen again and barely within an epoch: the model
memorises them. Evidence reading='staircase', epoch_boundaries, boundary_drops,
boundary_share, climb_back_share, median_boundary_drop_rel, first_epoch_level,
last_epoch_level; confidence `_INFERRED_CONFIDENCE` (0.5): inferred, not a measured val rise.
Without a validation loss but with a held-out score (BLEU, accuracy, ...), a score that stopped
improving after the first third of its evaluations while the training loss fell by a factor of 4
or more is memorisation too (classifiers._score_stall): reading='held_out_stall', with that
module's evidence, at the same confidence. Plateau reports the stall and leads the verdict.
Confidence: a strength averages the rise in sigmas (over 2 x `rise_z`) and the rise's share of
the val range (over 2 x `strong_rise`), each capped at 1; a clear rise scores 0.55 + 0.43 x
strength, a stalled val 0.35 + 0.2 x strength (the `_*_CONFIDENCE` constants), capped at 0.98.
Evidence: val_min_step, val_min, val_late, val_rise, val_rise_pct (rise / |val min|, percent),
val_rise_z, val_rise_frac (rise / val range), val_min_fraction (0..1 of the evaluated span),
train_fall_after (train fall after the val minimum / train range), train_fall_log (ln of
start / end), train_fall_log_after (ln of train at the val minimum / end), evaluations_after,
val_drop_before_z, train_done_before_eval (share of the train's improvement before the first
evaluation), val_first_below_train_start, val_ever_below_train_start, score_gain_after_min_z
and score_metric (when a val score is logged), val_last_is_best, val_follow_ratio
(distribution_mismatch's: the val's best improvement over the train's on the evaluated span),
val_metric (the validation loss read), train_drop (the train loss's fall from its first to its
last level, relative).
Known false positives: a val curve that drifts up by noise over a long converged tail while the
train loss still creeps down; a val set re-sampled between evaluations (its level moves without
the model changing).
"""

from __future__ import annotations

import numpy as np
from lossforensics.classifiers._align import (
    MAX_EVALS,
    TRAIN_AT_EVAL_POINTS,
    TRAIN_START_SHARE,
    detrended_noise,
    finite_curve,
    floor,
    trailing_median,
    train_at_evals,
)
from lossforensics.classifiers._epochs import epoch_starts
from lossforensics.classifiers._few_evals import MIN_EVALS as FEW_EVALS
from lossforensics.classifiers._few_evals import (
    few_evals_rise,
    rose_while_training_fell,
    short_log_rise,
)
from lossforensics.classifiers._score_gap import first_score_kept
from lossforensics.classifiers._score_stall import (
    held_out_stall,
    stall_finding,
    stalled_while_memorising,
    train_fall_factor,
)
from lossforensics.classifiers._staircase import MIN_STEPS as MIN_STAIRCASE_STEPS
from lossforensics.classifiers._staircase import staircase
from lossforensics.classifiers.base import Classifier
from lossforensics.classifiers.diagnosis import Finding, Span
from lossforensics.classifiers.distribution_mismatch import DistributionMismatch
from lossforensics.classifiers.metric_mismatch import MetricMismatch
from lossforensics.classifiers.run import RunSeries
from lossforensics.classifiers.signals import TINY, head_level, odd_window, rolling_median, scale

# the running median over the evaluations spans 5% of them: enough to ignore one noisy eval
_SMOOTH_FRAC = 0.05
# ... and at least 3 evaluations, the smallest window a median can outvote a bad one in
_SMOOTH_MIN_WINDOW = 3
# the late val level is the median of the last third of the evaluations after the minimum: late
# enough to be where the val went, long enough to ignore one bad evaluation
_LATE_PARTS = 3
# ... and of at least 3 evaluations when 3 follow the minimum (fewer: all of them)
_LATE_MIN_EVALS = 3
# rise in percent of the val minimum (val_rise_pct) and log_fall_rise's share, in percent
_PERCENT = 100.0
# at least two evaluations must follow the minimum: one higher eval is noise, not a rise
_MIN_EVALS_AFTER = 2
# the val improved before its minimum when it fell by 2 sigmas of its detrended noise
VAL_DROP_Z = 2.0
# the last evaluation counts as the best when it is within this share of the val's noise of
# it: two evaluations closer than half a sigma are the same level, not a rise
_BEST_WITHIN = 0.5
# ... and within this share of its level: a val swinging by half its level has a noise that
# would tie anything (0.84 after a best of 0.81 is no tie)
_BEST_REL = 0.01
# a stalled val (the second path) still rose by half a sigma at least: not a flat line
_STALL_RISE_Z = 0.5
# ... over at least 3 evaluations after the minimum: a stall needs a stretch to be seen
_STALL_MIN_EVALS_AFTER = 3
# confidence of a clear rise at zero strength: a clear rise is already a finding
_CLEAR_CONFIDENCE = 0.55
# added as the clear rise's strength reaches 1 (a rise of twice rise_z and strong_rise)
_CLEAR_STRENGTH_CONFIDENCE = 0.43
# a val score (accuracy, ROUGE, ...) that gained a sigma of its noise after the val loss's
# minimum is still improving ...
_SCORE_STILL_IMPROVING_Z = 1.0
# ... and a val loss that crept up by under 2% of its level beside it has not overfit: the
# creep is evaluation noise while the metric the run is for still gets better
_CREEP_PCT = 2.0
# a val that rose by under 5% of its minimum is flat where it started
_FLAT_PCT = 5.0
# a window cut late from training: its first step past half of its last ...
_LATE_START = 0.5
# ... with the val at twice the train or more at its start ...
_LATE_GAP = 2.0
# ... while the train fell 20% across it ...
_LATE_TRAIN_DROP = 0.2
# ... and the val followed a fifth of that fall at most
_LATE_FOLLOW = 0.2
# ... or, the train at its floor (memorised: its fall is over), the val this many times the
# train or more at its start (the factor by which a memorised train loss falls) ...
_LATE_MEMORISED_GAP = 20.0
# ... and closing under a tenth of its own level across the window (the val rise overfit reads
# elsewhere as clear, `log_fall_rise`, the other way)
_LATE_VAL_CLOSING = 0.1
# confidence of the late-window reading: inferred, the run's start is not in the log
_LATE_WINDOW_CONFIDENCE = 0.4
# what the late-window reading keeps of distribution_mismatch's measurement
_LATE_WINDOW_EVIDENCE = (
    "log_start_share",
    "train_improvement_pct",
    "val_improvement_pct",
    "val_follow_ratio",
    "val_head",
    "val_tail",
    "train_head",
    "train_tail",
)
# a training loss that rose after the val's minimum by half the val's rise or more (in logs)
# rose with it: no gap between them opened
_ROSE_TOGETHER = 0.5
# a val 20% above its minimum beside a memorised train (fell 20x) is overfit at a sigma of rise:
# twice log_fall_rise, since a noisy val's running-median minimum sits low by about a sigma
_MEMORISED_RISE_PCT = 20.0
_MEMORISED_RISE_Z = 1.0
# confidence of a stalled val at zero strength: a weaker call, its rise is within the noise
_STALLED_CONFIDENCE = 0.35
# added as the stalled val's strength reaches 1: a stall alone never scores like a clear rise
_STALLED_STRENGTH_CONFIDENCE = 0.2
# confidence never reaches 1: a val set re-sampled between evaluations looks the same
_MAX_CONFIDENCE = 0.98
# memorisation inferred without a val loss (the train loss's epoch staircase, or a held-out score
# that stood still), with no val curve to measure the gap: a finding at the bar, below any
# measured rise
_INFERRED_CONFIDENCE = 0.5
# a minimum within the first third of the evaluations rises "from the start": too early for the
# drop before it to stand out of the noise; a later one with no drop before it stood still first
_EARLY_MIN_SHARE = 1 / 3
# distribution_mismatch at its defaults: its measurement (shared through the run) gives the val's
# follow ratio, and its bar says how far a val that did not follow may still have followed
_MISMATCH = DistributionMismatch()


def _first_learned(m: dict) -> bool:
    """The first evaluation had already learned: its loss below the train's start, or its score
    kept up with the train's (`_score_gap.first_score_kept`: an epoch log's first train value is
    an epoch's mean, already trained, so a val loss above it does not say it had not)."""
    return bool(m.get("val_first_below_train_start") or m.get("val_first_score_kept"))


def _log_drop(before: float, after: float) -> float:
    """ln(before / after) for positive levels; 0 when either is not positive."""
    return float(np.log(before / after)) if before > 0 and after > 0 else 0.0


def _score_after_min(run: RunSeries) -> dict:
    """How the val score moved after the val loss's minimum, in sigmas of its noise (metric
    mismatch's measurement, shared through the run): empty without a val score."""
    m = MetricMismatch().measured(run)
    if not m:
        return {}
    return {
        "score_gain_after_min_z": m["metric_gain_after_min_z"],
        "score_metric": m["score_metric"],
    }


def _still_generalising(m: dict) -> bool:
    """A stalled val loss that crept up by under `_CREEP_PCT` while a val score kept improving
    (`_SCORE_STILL_IMPROVING_Z`): the gap widens, but generalisation has not got worse."""
    return (
        m["val_rise_pct"] < _CREEP_PCT
        and m.get("score_gain_after_min_z", 0.0) >= _SCORE_STILL_IMPROVING_Z
    )


def _late_window_gap(m: dict) -> bool:
    """A window cut late from training (its first step past `_LATE_START` of its last) whose
    validation loss sits `_LATE_GAP` (2x) or more above the training loss at its start, and
    did not follow (`_LATE_FOLLOW`, a fifth) the training loss's fall of `_LATE_TRAIN_DROP`
    (20%) or more across it: the generalisation gap opened before the window, and training on
    widens it. (A run's start, where distribution_mismatch tells a val that never learned from
    one that stopped, is not in such a log.)"""
    if m.get("log_start_share", 0.0) < _LATE_START or m["train_head"] <= 0:
        return False
    widening = (
        m["val_head"] >= _LATE_GAP * m["train_head"]
        and m["train_improvement_pct"] >= _PERCENT * _LATE_TRAIN_DROP
        and m["val_follow_ratio"] <= _LATE_FOLLOW
    )
    memorised = (
        m["val_head"] >= _LATE_MEMORISED_GAP * m["train_head"]
        and m["val_improvement_pct"] < _PERCENT * _LATE_VAL_CLOSING
    )
    return bool(widening or memorised)


def _rose_together(m: dict) -> bool:
    """The training loss rose after the val's minimum by `_ROSE_TOGETHER` or more of the val's
    own rise (both in log terms): the two climbed together, no gap opened."""
    train_rise = -m.get("train_fall_log_after", 0.0)
    val_rise = float(np.log1p(max(m["val_rise_pct"], 0.0) / _PERCENT))
    return train_rise > 0 and val_rise > 0 and train_rise >= _ROSE_TOGETHER * val_rise


class Overfit(Classifier):
    label = "overfit"
    needs = frozenset({"train_loss", "val_loss"})
    # evaluations (and train points) needed: a minimum, a before and a rise after it
    min_points = 5

    def __init__(
        self,
        *,
        # the late val stands 2.5 detrended-noise sigmas above its minimum: beyond the drift
        # of a converged val
        rise_z: float = 2.5,
        # a rise of a quarter of the val's own range is large whatever the train does
        strong_rise: float = 0.25,
        # train still falling after the val minimum: by 5% of its range over the span
        train_fall: float = 0.05,
        # train improved by at least 10% of its level over the evaluated span: it learned
        train_drop: float = 0.1,
        # a val stalled from at least 25% of the evaluated span before its end: a long stall
        stall_share: float = 0.25,
        # 90% of the train's improvement before the first evaluation: training had converged,
        # the val minimum predates it
        late_first_eval: float = 0.9,
        # half of it suffices when the first evaluation had already learned (below the start)
        learned_first_eval: float = 0.5,
        # train fell by e^3 (a factor of 20): it memorised the training data
        memorised_log: float = 3.0,
        # a train loss near zero still falling by a third of its level (ln 1.5 ~ 0.4) after the
        # val minimum: its range no longer shows the fall
        train_fall_log: float = 0.4,
        # ... beside a val rise of at least 10% of the val minimum (relative beside relative)
        log_fall_rise: float = 0.1,
        # a first evaluation 10% below the train's starting loss had already learned
        first_eval_gain: float = 0.1,
    ) -> None:
        self.rise_z = rise_z
        self.strong_rise = strong_rise
        self.train_fall = train_fall
        self.train_drop = train_drop
        self.stall_share = stall_share
        self.late_first_eval = late_first_eval
        self.learned_first_eval = learned_first_eval
        self.memorised_log = memorised_log
        self.train_fall_log = train_fall_log
        self.log_fall_rise = log_fall_rise
        self.first_eval_gain = first_eval_gain

    def measure(self, run: RunSeries, *, screen: bool = False) -> dict | None:
        """What judge reads. With `screen`, cut short once judge's first tests turn the run
        down (too few evaluations after the val's minimum, a train loss that did not fall or
        rose after it): then only those tests' inputs, the val's scale and noise unread."""
        vx, vy = finite_curve(run, "val_loss", max_points=MAX_EVALS)
        tx, ty = finite_curve(run, "train_loss")
        if len(vy) < self.min_points or len(ty) < 2:
            return None
        smooth = rolling_median(vy, odd_window(len(vy), _SMOOTH_FRAC, lo=_SMOOTH_MIN_WINDOW))
        i_min = int(np.argmin(smooth))
        after = vy[i_min + 1 :]
        k = (
            len(after)
            if len(after) < _LATE_MIN_EVALS
            else max(_LATE_MIN_EVALS, int(np.ceil(len(after) / _LATE_PARTS)))
        )
        train = train_at_evals(run, MAX_EVALS)
        ok = np.flatnonzero(np.isfinite(train))
        if len(ok) < 2:
            return None
        t_first, t_end = train[ok[0]], float(np.median(train[ok[-max(1, k) :]]))
        t_at_min = train[ok[np.searchsorted(ok, min(i_min, ok[-1]))]]
        t_range = max(float(np.ptp(train[ok])), TINY)
        split = {
            "evaluations_after": int(len(after)),
            "train_drop": float((t_first - t_end) / max(abs(t_first), abs(t_end), TINY)),
            "train_fall_after": float((t_at_min - t_end) / t_range),
        }
        if screen and not self._may_split(split):
            return split
        late = float(np.median(after[-k:])) if len(after) else float(smooth[i_min])
        rise = late - float(smooth[i_min])
        v_scale = scale(vy)
        t_start = head_level(ty, TRAIN_START_SHARE)
        t_at_first_eval = trailing_median(tx, ty, vx[0], TRAIN_AT_EVAL_POINTS)
        if not np.isfinite(t_at_first_eval):  # an evaluation before any training step
            t_at_first_eval = t_start
        noise = floor(detrended_noise(vy), v_scale)
        m = {
            "val_metric": run.primary("val_loss"),
            "val_min_step": int(vx[i_min]),
            "val_end_step": int(vx[-1]),
            "val_min": float(smooth[i_min]),
            "val_late": late,
            "val_rise": rise,
            "val_rise_pct": _PERCENT * rise / max(abs(float(smooth[i_min])), TINY),
            "val_rise_z": rise / noise,
            # the smoothed drop, or the raw one: a dip in the first two evaluations is lost to
            # the smoother's edge
            "val_drop_before_z": float(
                max(np.max(smooth[: i_min + 1]) - smooth[i_min], vy[0] - np.min(vy[: i_min + 2]))
                / noise
            ),
            "val_rise_frac": float(rise / v_scale),
            "val_min_fraction": float((vx[i_min] - vx[0]) / max(vx[-1] - vx[0], TINY)),
            "evaluations_after": split["evaluations_after"],
            "train_drop": split["train_drop"],
            "train_fall_after": split["train_fall_after"],
            # train's fall in log terms: from its start (fell 20x: memorised) and from the val
            # minimum to the end (a loss near zero still halves: its range no longer shows it)
            "train_fall_log": _log_drop(t_start, t_end),
            "train_fall_log_after": _log_drop(float(t_at_min), t_end),
            "train_done_before_eval": float(
                (t_start - t_at_first_eval) / max(t_start - t_end, TINY)
            ),
            # the first evaluation already beat the untrained model's loss: the val had
            # improved before anyone measured it
            # some evaluation got below the untrained model's loss: the val learned something
            "val_ever_below_train_start": bool(
                np.min(smooth) < (1.0 - self.first_eval_gain) * max(float(ty[0]), t_start)
            ),
            "val_first_below_train_start": bool(
                vy[0] < (1.0 - self.first_eval_gain) * max(float(ty[0]), t_start)
            ),
            # the val score at the first evaluation kept up with the train's: learned (_score_gap)
            "val_first_score_kept": first_score_kept(run),
            # the last evaluation, as logged, is the best of all (a tie within `_BEST_WITHIN`
            # of the val's noise and `_BEST_REL` of its level: 0.3422 after a best of 0.3421):
            # the val never stopped improving
            "val_last_is_best": bool(
                vy[-1]
                <= np.min(vy[:-1]) + min(_BEST_WITHIN * noise, _BEST_REL * abs(np.min(vy[:-1])))
            ),
        }
        m.update(_score_after_min(run))
        return m

    def _may_split(self, m: dict) -> bool:
        """judge's first tests: enough evaluations after the val's minimum, a train loss that
        fell, and did not rise after that minimum (then it is no train-val split)."""
        return not (
            m["evaluations_after"] < _MIN_EVALS_AFTER
            or m["train_drop"] < self.train_drop
            or m["train_fall_after"] < -self.train_fall
        )

    def judge(self, m: dict) -> Finding | None:
        if not self._may_split(m):
            return None
        # the val must have improved before its minimum, unless most of the training happened
        # before the first evaluation (the minimum then predates it) or the minimum came early
        # in a val that had learned (_early_minimum); a val curve that rises from an early first
        # evaluation without having learned never generalised: distribution_mismatch
        before = self.learned_first_eval if _first_learned(m) else self.late_first_eval
        if (
            m["val_drop_before_z"] < VAL_DROP_Z
            and m["train_done_before_eval"] < before
            and not self._early_minimum(m)
            and not self._learned_then_rose(m)
        ):
            return None
        if self._never_generalised(m) or _rose_together(m):
            return None
        falling = m["train_fall_after"] >= self.train_fall or (
            m.get("train_fall_log_after", 0.0) >= self.train_fall_log
            and m["val_rise_pct"] >= _PERCENT * self.log_fall_rise
        )
        big = m["val_rise_frac"] >= self.strong_rise
        clear = m["val_rise_z"] >= self.rise_z and (falling or big)
        # a val curve that stopped improving for a good share of the run while train kept
        # falling: the gap widens even though the rise itself is within a sigma or two
        stalled = (
            falling
            and m["val_rise_z"] >= _STALL_RISE_Z
            and m["evaluations_after"] >= _STALL_MIN_EVALS_AFTER
            and m["val_min_fraction"] <= 1.0 - self.stall_share
            and not _still_generalising(m)
        )
        stalled = (stalled or self._rose_after_memorising(m)) and not m.get("val_last_is_best")
        if not (clear or stalled):
            return None
        strength = (
            min(1.0, m["val_rise_z"] / (2 * self.rise_z)) * 0.5
            + min(1.0, m["val_rise_frac"] / (2 * self.strong_rise)) * 0.5
        )
        conf = (
            (_CLEAR_CONFIDENCE + _CLEAR_STRENGTH_CONFIDENCE * strength)
            if clear
            else (_STALLED_CONFIDENCE + _STALLED_STRENGTH_CONFIDENCE * strength)
        )
        # the numbers are smoothed levels (a running median of the evaluations, then the median
        # of the last third), so the sentence says so rather than quote them as logged values
        summary = (
            f"Validation loss (smoothed) bottomed at about {m['val_min']:.4g} around step "
            f"{m['val_min_step']} and rose {m['val_rise_pct']:.1f}% to about "
            f"{m['val_late']:.4g} over the next {m['evaluations_after']} evaluations "
            "while the training loss kept " + ("falling." if falling else "low.")
        )
        if m.get("score_gain_after_min_z", 0.0) >= _SCORE_STILL_IMPROVING_Z:
            summary += f" {m['score_metric']} still improved after that minimum."
        evidence = {k: v for k, v in m.items() if k != "val_end_step"}
        return Finding(
            self.label,
            float(min(_MAX_CONFIDENCE, conf)),
            Span(m["val_min_step"], m["val_end_step"]),
            evidence,
            summary,
        )

    def skip_reason(self, run: RunSeries) -> str | None:
        """Without a validation loss the run is still judged when its log marks the epochs
        (the staircase reading needs only the training loss and the epoch boundaries) or logs a
        held-out score (read for a stall beside a collapsing training loss), so long as the
        training loss has `min_points` points: two cannot say it collapsed."""
        train_points = len(run.curve("train_loss") or ())
        if not run.has("val_loss") and train_points >= self.min_points:
            if run.has("val_score") or len(epoch_starts(run)) >= MIN_STAIRCASE_STEPS:
                return None
        val, train = run.curve("val_loss"), run.curve("train_loss")
        if val is not None and train is not None and len(train) >= 2:
            if FEW_EVALS <= len(val) < self.min_points:  # a short fine-tune's evaluations
                return None
        reason = super().skip_reason(run)
        if reason is None or val is not None or train is None:
            return reason
        starts = len(epoch_starts(run))
        if 0 < starts < MIN_STAIRCASE_STEPS:
            # the log marks epochs, too few for the staircase reading: say so, not only "no val"
            reason += (
                f"; the log marks {starts} epoch boundary, and the epoch-staircase reading "
                f"needs {MIN_STAIRCASE_STEPS}"
            )
        return reason

    def _never_generalised(self, m: dict) -> bool:
        """A val that never got below the untrained loss (`first_eval_gain` under the train's
        start) and rose by under `_FLAT_PCT`: nothing to overfit, however late its first
        evaluation (distribution_mismatch's). Unless it is a U: a val that fell by `VAL_DROP_Z`
        sigmas to its minimum and rose by `rise_z` after it learned and then lost it, wherever
        its level stands against an epoch log's first train value (an epoch's mean, already
        trained)."""
        u_shaped = m["val_drop_before_z"] >= VAL_DROP_Z and m["val_rise_z"] >= self.rise_z
        return (
            not (m.get("val_ever_below_train_start", True) or m.get("val_first_score_kept"))
            and m["val_rise_pct"] < _FLAT_PCT
            and not u_shaped
        )

    def _rose_after_memorising(self, m: dict) -> bool:
        """The train fell by `memorised_log` (20x) over the run and has not risen since the val's
        minimum, and the val stands `_MEMORISED_RISE_PCT` (20%) above that minimum over
        `_STALL_MIN_EVALS_AFTER` or more evaluations: a small val set's noise keeps such a rise
        under `rise_z` sigmas, so it needs only `_MEMORISED_RISE_Z`; the memorisation says which
        way the gap goes. Scored as a stall: the rise is not beyond the noise."""
        return (
            m.get("train_fall_log", 0.0) >= self.memorised_log
            and m.get("train_fall_log_after", 0.0) >= 0.0
            and m["val_rise_pct"] >= _MEMORISED_RISE_PCT
            and m["val_rise_z"] >= _MEMORISED_RISE_Z
            and m["evaluations_after"] >= _STALL_MIN_EVALS_AFTER
        )

    def _learned_then_rose(self, m: dict) -> bool:
        """A val whose first evaluation had already learned (`first_eval_gain` below the
        training loss's start: an epoch log's first val comes after a whole epoch) and that
        rose clearly (`rise_z` sigmas and `strong_rise` of its range, and by `log_fall_rise`,
        10%, of its minimum: a val that barely moved has a range any creep fills) over a
        stretch (`_STALL_MIN_EVALS_AFTER` evaluations or more) after its minimum: it generalised
        before anyone measured it, so distribution_mismatch gives it up, and the rise from its
        best is overfitting wherever in the run that best fell."""
        return (
            _first_learned(m)
            and m["evaluations_after"] >= _STALL_MIN_EVALS_AFTER
            and m["val_rise_z"] >= self.rise_z
            and m["val_rise_frac"] >= self.strong_rise
            and m["val_rise_pct"] >= _PERCENT * self.log_fall_rise
        )

    def _early_minimum(self, m: dict) -> bool:
        """A minimum with no significant drop before it is still a minimum when the val had
        learned by then and what followed is unmistakable: the minimum is the first evaluation,
        already below the untrained loss, and the train went on to memorise (fell by
        `memorised_log`) or the val rose clearly (`rise_z` sigmas and `strong_rise` of its
        range); or the minimum came within `_EARLY_MIN_SHARE` of the evaluations, the val had
        followed the train's improvement further than distribution_mismatch allows a val that
        did not follow (`val_follow_ratio`), and it rose clearly."""
        clear = m["val_rise_z"] >= self.rise_z and m["val_rise_frac"] >= self.strong_rise
        memorised = m.get("train_fall_log", 0.0) >= self.memorised_log
        first = m["val_min_fraction"] == 0.0 and _first_learned(m)
        followed = (
            m["val_min_fraction"] <= _EARLY_MIN_SHARE
            and m.get("val_follow_ratio", 0.0) > _MISMATCH.widest_follow
        )
        return (first and (memorised or clear)) or (followed and clear)

    def judge_staircase(self, m: dict) -> Finding:
        """Memorisation inferred from the training loss's epoch staircase (no val loss)."""
        summary = (
            f"With no validation loss logged: the training loss fell in steps at "
            f"{m['boundary_drops']} epoch boundaries ({m['boundary_share']:.0%} of its fall came "
            f"where the examples were seen again, a median drop of "
            f"{m['median_boundary_drop_rel']:.0%}) and barely moved within the epochs, "
            f"{m['first_epoch_level']:.4g} -> {m['last_epoch_level']:.4g}: the model is "
            "memorising its training examples. Log a held-out loss to confirm."
        )
        evidence = {k: v for k, v in m.items() if k not in ("first_step", "last_step")}
        return Finding(
            self.label,
            _INFERRED_CONFIDENCE,
            Span(m["first_step"], m["last_step"]),
            evidence,
            summary,
        )

    def judge_held_out(self, m: dict) -> Finding:
        """Memorisation read from a held-out score that stood still (no val loss)."""
        summary = (
            f"With no validation loss logged: the held-out {m['score_metric']} reached "
            f"{m['score_best_early']:.4g} by step {m['stall_step']} and stood at about "
            f"{m['score_late']:.4g} after it, while the training loss fell "
            f"{train_fall_factor(m):.0f}x more "
            f"({m['train_at_stall']:.3g} -> {m['train_end']:.3g}): the model is memorising its "
            "training examples."
        )
        tag = {"reading": "held_out_stall"}
        return stall_finding(self.label, tag, _INFERRED_CONFIDENCE, summary, m)

    def judge_few_evals(self, m: dict) -> Finding:
        """Overfit read from 2-4 evaluations, or from a short epoch log's raw values
        (classifiers._few_evals): inferred, at the bar."""
        short = m.get("reading") == "short_log"
        how = (
            "stayed above its best at every evaluation after it"
            if short
            else "rose at every evaluation after its best"
        )
        why = (
            "a log this short is read from its raw evaluations"
            if short
            else "too few to measure their noise"
        )
        summary = (
            f"Validation loss {how} ({m['val_min']:.4g} at "
            f"step {m['val_min_step']}), {m['val_rise_pct']:.0f}% to {m['val_last']:.4g}, "
            f"while the training loss kept falling ({m['train_at_min']:.3g} -> "
            f"{m['train_at_last']:.3g}); read from {m['evaluations']} evaluations: {why}."
        )
        evidence = {k: v for k, v in m.items() if k != "val_end_step"}
        return Finding(
            self.label,
            _INFERRED_CONFIDENCE,
            Span(m["val_min_step"], m["val_end_step"]),
            evidence,
            summary,
        )

    def judge_late_window(self, m: dict) -> Finding:
        """Overfit read from a window cut late from training (distribution_mismatch's
        measurement, `log_start_share` past `_LATE_START`): the gap is open when the window
        starts, the training loss falls across it and the validation loss does not follow."""
        gap = m["val_head"] / m["train_head"]
        start = (
            f"The log starts late in training (step {m['start_step']} of {m['end_step']}) with "
            f"the validation loss already {gap:.1f}x the training loss; "
        )
        if m["train_improvement_pct"] >= _PERCENT * _LATE_TRAIN_DROP:
            summary = start + (
                f"over the window the training loss fell {m['train_improvement_pct']:.0f}% "
                f"({m['train_head']:.4g} -> {m['train_tail']:.4g}) while the validation loss "
                f"did not follow ({m['val_head']:.4g} -> {m['val_tail']:.4g}): the gap between "
                "them is open and widening."
            )
        else:
            summary = start + (
                f"the training loss sits at its floor ({m['train_head']:.4g} -> "
                f"{m['train_tail']:.4g}) and the validation loss does not close the gap "
                f"({m['val_head']:.4g} -> {m['val_tail']:.4g}): the model has memorised its "
                "training data."
            )
        evidence = {
            "reading": "late_window_gap",
            "val_gap_ratio": gap,
            **{k: m[k] for k in _LATE_WINDOW_EVIDENCE},
        }
        return Finding(
            self.label,
            _LATE_WINDOW_CONFIDENCE,
            Span(m["start_step"], m["end_step"]),
            evidence,
            summary,
        )

    def detect(self, run: RunSeries) -> Finding | None:
        found = self._detect(run)
        if found is None and run.has("val_loss"):
            window = _MISMATCH.measured(run)
            if window is not None and _late_window_gap(window):
                return self.judge_late_window(window)
        return found

    def _detect(self, run: RunSeries) -> Finding | None:
        if not run.has("val_loss"):
            stairs = staircase(run)
            if stairs is not None:
                return self.judge_staircase(stairs)
            stall = held_out_stall(run)
            return (
                self.judge_held_out(stall)
                if stall is not None and stalled_while_memorising(stall)
                else None
            )
        m = self.measure(run, screen=True)
        if m is None:
            few = few_evals_rise(
                run,
                below_evals=self.min_points,
                first_eval_gain=self.first_eval_gain,
                late_first_eval=self.late_first_eval,
            )
            return self.judge_few_evals(few) if few and rose_while_training_fell(few) else None
        follow = _MISMATCH.measured(run)
        if follow is not None:
            m["val_follow_ratio"] = follow["val_follow_ratio"]
        found = self.judge(m)
        if found is None:  # (short_log_rise's val_learned is its own generalisation test)
            short = short_log_rise(
                run, first_eval_gain=self.first_eval_gain, late_first_eval=self.late_first_eval
            )
            if short is not None and rose_while_training_fell(short):
                return self.judge_few_evals(short)
        return found
