"""distribution_mismatch: validation stays flat (or high) from the start while training improves.

Symptom: train and val move independently: train falls a lot while val never improves from its
first evaluation: it stays flat, drifts, or climbs from the start (a model learning something
that does not transfer at all). A val curve that improved first and then rose is overfit.
Signal read: the primary val loss at its evaluations and the train loss over the stretch leading
to each (classifiers._align); the val's best improvement from its first (smoothed) evaluation,
a step-0 evaluation before training included; the train's improvement between its head and
tail over the evaluated span (first and last ~10%), both relative (change / the larger
magnitude, so negative losses work); and the Spearman correlation of the smoothed levels.
Rule: train improves by at least `train_drop` over the evaluated span, and that span covers at
least `coverage` of the train's whole improvement (an eval that starts after training already
converged cannot say the val was "flat from the start": its minimum may predate it; overfit
reads a val climbing from an eval that late; between the two, neither label fires), unless
that first evaluation is still at the untrained model's loss (not `first_eval_gain`, 10%, below
the train's starting loss, i.e. chance level for a classifier at initialisation): whatever
training came before it, none of it reached the val set (so long as training had not
converged before it either: `converged_before`, 90% of the train's improvement, leaves a late
first evaluation to overfit, as above; a fine-tune starts at its pre-trained loss), or unless
every evaluation sits `_FAR_ABOVE_UNTRAINED` (2x) above that untrained level: worse than a model
that learned nothing at every evaluation, flat where it started or climbing from there, it never
generalised however late it was first measured (it has no minimum below that level for overfit
to rise from; the train's improvement is then read over the whole run); the val's
best improvement is at most `widest_follow` (twice `follow`, 20%) of the train's, whether it kept
what little it gained or gave it back (overfit reads a val beyond that bar that rose from an early
minimum: the two labels split on one bar, with no gap between them); and the first evaluation is at
the untrained level (not `first_eval_gain` below it): a val that had already learned when first
measured improved before anyone measured it, so it was not flat or high from the start (flat
after that is a val that converged early; climbing, overfit's, which splits on the same test);
read for positive losses (val_first_learned). A log whose first train step is past `_LATE_START`
(half) of its last holds no start to be flat or high from (a window pasted from late in training,
a run resumed from its last checkpoint): the loss reading stands down, and overfit reads such a
window's open gap.
Neither reading stands when a held-out score has converged (classifiers._score_converged: within
5% of its best end over its second half, 99% accuracy) or closed half the room it had at its
first evaluation (score_learned: top-1 0.66 -> 0.90): a model that learned the held-out data has
not met data unlike its training data, whatever its val loss does (Ultralytics' classifier val
loss, computed on softmaxed outputs, sits squeezed near a floor beside a top-1 still climbing).
Second reading, from the scores (classifiers._score_gap), when the loss reading finds nothing:
a bounded val score (accuracy, F1) at `_SCORE_FAR_BELOW` (a quarter) or less of the same score
on the training data at the typical evaluation, while the train loss improved by `train_drop`
over the run, and the val loss cannot vouch for the val data: it followed the train by no more
than `follow`, or some of its evaluations are NaN/inf (a val loss that followed the train
cleanly beside a val accuracy at chance points at the metric: metric_mismatch's reading).
Healthy runs keep the val score within a few points of the train score and real overfitting
within 10-20%; a quarter is data unlike what the model was trained on (a validation generator
without the training rescale, BatchNorm statistics in inference mode). Confidence 0.5 + 0.3 x
how far below a quarter the ratio sits; evidence adds reading='scores', score_ratio,
score_metric, train_score_metric, val_score_median, train_score_median, score_evaluations,
val_loss_nonfinite.
Confidence: 0.5 at the threshold, + up to 0.3 as the val's share of the improvement goes to
zero, + up to 0.18 as the train improvement grows 50 points beyond `train_drop` (the
`_*_CONFIDENCE` constants), capped at 0.98.
'Independent' is measured, not assumed: the val's best improvement against the train's (the
follow ratio), and the Spearman correlation of the two smoothed curves at the same moments,
reported as evidence (near 0: unrelated; negative: val worsens as train improves).
Evidence: val_flat (bool: the val did not climb by more than `max_rise` of the train's
improvement; False means it rose from the start), correlation (Spearman, train vs val levels),
val_follow_ratio, train_improvement_pct, val_improvement_pct, coverage, val_rebound,
val_first_untrained, train_done_before_eval, val_never_learned, val_change_rel,
train_run_improvement_pct, val_metric (the validation loss read), val_head / val_tail and
train_head / train_tail (each curve's level at the start and the end of the evaluated span),
val_rise_vs_train (the val's rise over the train's fall on that span), val_first_learned,
val_first_score_kept.
Known false positives: a pre-trained model fine-tuned on data the val set does not measure (the
val is legitimately flat); a val set so small its loss is dominated by a few examples.
"""

from __future__ import annotations

import numpy as np
from lossforensics.classifiers._align import (
    MAX_EVALS,
    TRAIN_AT_EVAL_POINTS,
    TRAIN_START_SHARE,
    finite_curve,
    trailing_median,
    train_at_evals,
)
from lossforensics.classifiers._score_converged import score_learned
from lossforensics.classifiers._score_gap import first_score_kept, score_gap
from lossforensics.classifiers.base import Classifier
from lossforensics.classifiers.diagnosis import Finding, Span
from lossforensics.classifiers.run import RunSeries
from lossforensics.classifiers.signals import (
    TINY,
    head_level,
    odd_window,
    rolling_median,
    spearman,
    tail_level,
)

# the running median over the evaluations spans 5% of them: enough to ignore one noisy eval
_SMOOTH_FRAC = 0.05
# ... and at least 3 evaluations, the smallest window a median can outvote a bad one in
_SMOOTH_MIN_WINDOW = 3
# improvements are reported in percent, and train_drop is compared with them in percent
_PERCENT = 100
# a val may follow the train twice as far as `follow` (where the confidence bottoms out) and
# still be high from the start: gained a little, kept it or gave it back
_KEPT_FOLLOW_FACTOR = 2.0
# confidence at the thresholds: a val that followed the train by `follow` is already a finding
_BASE_CONFIDENCE = 0.5
# added as the val's share of the train's improvement falls from `follow` to zero
_FLAT_VAL_CONFIDENCE = 0.3
# added as the train improvement grows beyond train_drop: the more train learned, the clearer
# that none of it transferred
_TRAIN_CONFIDENCE = 0.18
# the train improvement beyond train_drop that earns all of _TRAIN_CONFIDENCE: 50 points
_TRAIN_CONFIDENCE_SPAN = 0.5
# confidence never reaches 1: a fine-tune on data the val set does not measure looks the same
_MAX_CONFIDENCE = 0.98
# a val score (accuracy, F1) at a quarter or less of the same score on the training data at the
# typical evaluation: healthy runs sit within a few points, real overfitting opens 10-20% (even
# a heavily overfit one keeps about half), a quarter is data the model was not trained on
_SCORE_FAR_BELOW = 0.25


def _gain(before: float, after: float) -> float:
    """Relative improvement (positive = the loss fell), sign-safe."""
    return (before - after) / max(abs(before), abs(after), TINY)


def _first_eval_train(tx: np.ndarray, ty: np.ndarray, at: float, start: float) -> float:
    """The train loss just before the first evaluation (the train's start when none came
    before it)."""
    level = trailing_median(tx, ty, at, TRAIN_AT_EVAL_POINTS)
    return float(level) if np.isfinite(level) else start


# a val whose best evaluation is still twice the untrained training loss predicts worse than a
# model that learned nothing: it did not dip below that level before a late first evaluation and
# climb back (an overfit before anyone measured it stays near what it had learned)
_FAR_ABOVE_UNTRAINED = 2.0
# a log whose first train step is past half of its last holds no start (a late window)
_LATE_START = 0.5


class DistributionMismatch(Classifier):
    label = "distribution_mismatch"
    needs = frozenset({"train_loss", "val_loss"})
    # evaluations with train points before them: a head, a tail and a middle between them
    min_points = 5

    def __init__(
        self,
        *,
        # train improves by at least 20% over the evaluated span: enough learning that a val
        # which did not follow says something
        train_drop: float = 0.2,
        # the evaluated span holds at least half of the train's whole improvement: an eval that
        # starts after training converged cannot see the val flat "from the start"
        coverage: float = 0.5,
        # the val's best improvement is at most 10% of the train's: it did not follow
        follow: float = 0.1,
        # evidence only: a val rise up to 30% of the train's improvement still reads "flat"
        max_rise: float = 0.3,
        # a first evaluation not 10% below the train's starting loss is still untrained
        first_eval_gain: float = 0.1,
        # 90% of the train's improvement before the first evaluation: converged before it, a
        # late first evaluation is overfit's to read
        converged_before: float = 0.9,
    ) -> None:
        self.train_drop = train_drop
        self.coverage = coverage
        self.follow = follow
        self.max_rise = max_rise
        self.first_eval_gain = first_eval_gain
        self.converged_before = converged_before

    def measure(self, run: RunSeries, *, correlation: bool = True) -> dict | None:
        """What the rule and the evidence read; with `correlation`, also the rank correlation
        of the smoothed train and val losses, which only the evidence reads (None when not
        read)."""
        vx, vy = finite_curve(run, "val_loss", max_points=MAX_EVALS)
        if not len(vy) or np.ptp(vy) == 0:
            # a val loss that never changed measures nothing (a component that is always 0, as
            # the class loss of a one-class detector, or a placeholder): no mismatch to read
            return None
        tx, ty = finite_curve(run, "train_loss")
        train = train_at_evals(run, MAX_EVALS)
        ok = np.isfinite(train)
        if ok.sum() < self.min_points:
            return None
        w = odd_window(len(vy), _SMOOTH_FRAC, lo=_SMOOTH_MIN_WINDOW)
        v_all = rolling_median(vy, w)  # every evaluation, a step-0 one before training included
        vx, vy, train = vx[ok], vy[ok], train[ok]
        v_head, v_tail, t_head, t_tail = (
            head_level(vy),
            tail_level(vy),
            head_level(train),
            tail_level(train),
        )
        t_all_head = head_level(ty, TRAIN_START_SHARE)
        rho = spearman(rolling_median(train, w), rolling_median(vy, w)) if correlation else None
        t_gain = _gain(t_head, t_tail)
        v_gain = max(_gain(float(v_all[0]), float(np.min(v_all))), 0.0)
        # the untrained model's loss: the train's first value or its start level
        untrained = max(float(ty[0]), t_all_head)
        # an epoch log's first train value is an epoch's mean, already trained: a val loss above
        # it may still have learned, which its score beside the train's can say
        kept = first_score_kept(run)
        first_untrained = bool(v_all[0] >= (1.0 - self.first_eval_gain) * untrained) and not kept
        return {
            "val_metric": run.primary("val_loss"),
            "start_step": int(vx[0]),
            "end_step": int(vx[-1]),
            "train_improvement_pct": _PERCENT * t_gain,
            "val_improvement_pct": _PERCENT * v_gain,
            "val_follow_ratio": v_gain / max(t_gain, TINY),
            "val_rise_vs_train": (v_tail - v_head) / max(t_head - t_tail, TINY),
            "coverage": (t_head - t_tail) / max(t_all_head - t_tail, t_head - t_tail, TINY),
            "correlation": None if rho is None else float(np.nan_to_num(rho)),
            # the first evaluation still at the untrained model's loss (not `first_eval_gain`
            # below the train's start), however much training came before it: nothing learned
            # so far reached the val set
            "val_first_untrained": first_untrained,
            # a positive val loss already `first_eval_gain` below that untrained level at its
            # first evaluation had learned before anyone measured it (for a loss that can be
            # zero or negative a share of its level says nothing)
            "val_first_learned": bool(
                kept or (not first_untrained and v_all[0] > 0 and t_all_head > 0)
            ),
            # the val score at the first evaluation kept up with the train's (_score_gap)
            "val_first_score_kept": kept,
            # every evaluation sits far above that untrained level (worse than a model that
            # learned nothing): nothing learned ever reached the val set, early or late
            "val_never_learned": bool(np.min(v_all) >= _FAR_ABOVE_UNTRAINED * untrained),
            # the val's net move over its evaluations, relative to its level (flat: small)
            "val_change_rel": abs(v_tail - v_head) / max(abs(v_head), TINY),
            # the train's improvement over the whole run, from its first points
            "train_run_improvement_pct": _PERCENT * _gain(t_all_head, t_tail),
            # share of the train's whole improvement made before the first evaluation
            "train_done_before_eval": float(
                (t_all_head - _first_eval_train(tx, ty, vx[0], t_all_head))
                / max(t_all_head - t_tail, TINY)
            ),
            "val_head": v_head,
            "val_tail": v_tail,
            "train_head": t_head,
            "train_tail": t_tail,
            # where the log starts within its own span: past half (`Epoch 76/100` pasted from an
            # issue, a run resumed at its last checkpoint), the start is not in the log
            "log_start_share": float(tx[0] / tx[-1]) if len(tx) and tx[-1] > 0 else 0.0,
            # how much of its best improvement the val gave back by the end (overfit's shape)
            "val_rebound": float(
                (v_all[-1] - np.min(v_all)) / max(float(v_all[0] - np.min(v_all)), TINY)
            ),
        }

    def judge(self, m: dict) -> Finding | None:
        # a log that starts past half of its span holds no start to be flat or high from: its
        # first train value is no untrained loss, and how the val began is not in it
        if m.get("log_start_share", 0.0) >= _LATE_START:
            return None
        # a val far above the untrained level at every evaluation, flat or climbing, learned
        # nothing, however late its first evaluation: overfit cannot take it (it never
        # generalised), so it is judged here against the train's improvement over the whole run
        never = bool(m.get("val_never_learned", False))
        untrained = m.get("val_first_untrained", False) and (
            m.get("train_done_before_eval", 1.0) < self.converged_before or never
        )
        covered = m["coverage"] >= self.coverage or untrained
        train_gain = max(
            m["train_improvement_pct"], m.get("train_run_improvement_pct", 0.0) if never else 0.0
        )
        if train_gain < _PERCENT * self.train_drop or not covered:
            return None
        # a val that had already learned at its first evaluation improved before anyone
        # measured it: it was not flat or high from the start, whatever follows (a flat val is
        # one that converged early, a climbing one overfit's)
        if m.get("val_first_learned", False):
            return None
        # a val that improved a little, whether it kept it or gave it back, is still "high from
        # the start" up to widest_follow; beyond it overfit reads a val rising from early on
        if m["val_follow_ratio"] > self.widest_follow:
            return None
        flat = bool(m["val_rise_vs_train"] <= self.max_rise)
        beyond_drop = train_gain / _PERCENT - self.train_drop
        conf = (
            _BASE_CONFIDENCE
            + _FLAT_VAL_CONFIDENCE * (1 - m["val_follow_ratio"] / self.follow)
            + _TRAIN_CONFIDENCE * min(1.0, beyond_drop / _TRAIN_CONFIDENCE_SPAN)
        )
        summary = (
            f"Training loss fell {m['train_improvement_pct']:.0f}% "
            f"({m['train_head']:.4g} -> {m['train_tail']:.4g}) while validation loss "
            f"never improved meaningfully ({m['val_head']:.4g} -> {m['val_tail']:.4g}, "
            f"best {m['val_improvement_pct']:.1f}% below its start)."
        )
        return self._finding(m, conf, summary, {"val_flat": flat})

    def judge_scores(self, m: dict, gap: dict) -> Finding | None:
        """Second reading, from the scores: the val score sits at under `_SCORE_FAR_BELOW` of
        the same score on the training data at the typical evaluation while the train loss
        improved by `train_drop` over the run (the val loss may be too broken to read)."""
        # the val loss cannot vouch for the val data when it followed nothing or broke: when it
        # followed the train loss cleanly, the metric is the suspect (metric_mismatch's reading)
        unvouched = m["val_follow_ratio"] <= self.follow or gap.get("val_loss_nonfinite", 0) > 0
        if (
            gap["score_ratio"] > _SCORE_FAR_BELOW
            or not unvouched
            or m.get("train_run_improvement_pct", 0.0) < _PERCENT * self.train_drop
        ):
            return None
        conf = _BASE_CONFIDENCE + _FLAT_VAL_CONFIDENCE * (1 - gap["score_ratio"] / _SCORE_FAR_BELOW)
        summary = (
            f"{gap['score_metric']} sits at {gap['score_ratio']:.0%} of "
            f"{gap['train_score_metric']} at the typical evaluation (median "
            f"{gap['val_score_median']:.3g} against "
            f"{gap['train_score_median']:.3g}) while the training loss fell "
            f"{m['train_run_improvement_pct']:.0f}%: the validation data does not look like "
            "the training data."
        )
        return self._finding(m, conf, summary, {"reading": "scores", **gap})

    def _finding(self, m: dict, conf: float, summary: str, first: dict) -> Finding:
        """The finding over the evaluated span: `first` then the measurement as evidence."""
        evidence = {**first, **{k: v for k, v in m.items() if k not in ("start_step", "end_step")}}
        return Finding(
            self.label,
            float(min(_MAX_CONFIDENCE, conf)),
            Span(m["start_step"], m["end_step"]),
            evidence,
            summary,
        )

    def measured(self, run: RunSeries) -> dict | None:
        """`measure(run)` without the correlation, computed once per run: overfit reads the
        follow ratio too, and no verdict reads the correlation."""
        return run.measured(
            ("distribution_mismatch", repr(self)), lambda: self.measure(run, correlation=False)
        )

    @property
    def widest_follow(self) -> float:
        """The largest share of the train's improvement a val may follow and still be read as
        not following (`follow`, doubled): beyond it, the val learned with the train, and a val
        rising from an early minimum is overfit's (the two labels split on this one bar)."""
        return self.follow * _KEPT_FOLLOW_FACTOR

    def detect(self, run: RunSeries) -> Finding | None:
        # decided on the shared measurement; a run found mismatched is measured again with
        # the correlation its evidence holds (the same finding otherwise)
        found = self._judged(run, self.measured(run))
        if found is None or score_learned(run):
            return None  # a model that learned the held-out data has not met other data
        return self._judged(run, self.measure(run))

    def _judged(self, run: RunSeries, m: dict | None) -> Finding | None:
        """The finding from the losses, else from the scores, on measurement `m`."""
        if m is None:
            return None
        found = self.judge(m)
        if found is None and run.has("val_score") and run.has("train_score"):
            gap = score_gap(run, self.min_points)
            val = run.curve("val_loss")
            if gap is not None and val is not None:
                gap["val_loss_nonfinite"] = int(np.sum(~np.isfinite(val.values)))
            found = None if gap is None else self.judge_scores(m, gap)
        return found
