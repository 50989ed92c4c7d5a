"""metric_mismatch: the validation loss improves but the validation metric does not (or the
metric improves while the loss stays flat).

Symptom: the two numbers meant to agree tell different stories: a metric bug (argmax on the
wrong axis, labels misaligned, a metric computed on the train split), calibration drift, label
smoothing or class imbalance.
Signal read: the primary val loss and the val score that best pairs with it (longest shared
name prefix: `eval_g3_accuracy` with `eval_g3_loss`; a score whose name is closer to another
val loss is that loss's: a multi-output Keras model's total `val_loss` has no partner among its
heads' `val_<head>_accuracy`; in a per-class breakdown, `eval_T005_f1` and its like beside
`eval_overall_f1`, the score over every class), the score taken over the stretch leading
to each evaluation. The score's direction comes from its name (accuracy, wacc, f1, bleu, map:
higher is better; wer, cer, per (as the last token), mae, perplexity, error: lower is better),
else from the sign of its rank correlation with the loss (then only a flat partner can be
detected). Each series is reduced to its head and tail levels (first and last 20% of the
evaluations) and its detrended noise.
Rule: the metric "improves" when it moves the right way by at least one sigma and `min_gain`
of its room (to 1, or 0, for a metric within [0, 1], to 100 for a share such as an accuracy
printed in percent: 99.0% -> 99.3% accuracy is real progress,
0.3% -> 1.0% on a 10-class task is not; else of its size). 'loss_improves': the loss improved
by `min_z` sigmas and `min_rel` of its level while the metric did not improve.
'metric_improves': the metric improved (and by `min_z` sigmas) while the loss stayed flat over
the whole run (its 5-95% range within `flat_rel` of its level, or within 4 sigmas and
`min_rel` of it: a loss swinging by 20% is noisy, not flat; and its head-to-tail change under 2
sigmas or 1%: near chance, cross-entropy creeps while accuracy climbs; or held at a
classifier's chance level, `loss_at_chance`: its first evaluation at ln k, every one within a
tenth of it, classifiers._chance: a binary BCE creeping 0.695 -> 0.660 while Dice climbs
0.70 -> 0.89 never measured any learning); a noisy loss counts
as flat too when its head-to-tail change is under 2 sigmas and `min_rel` while the metric
improved by `STRONG_GAIN` (2) times both bars (an ASR fine-tune: eval loss wandering +-10%
around one level while WER falls 12.5 -> 9.7), unless its range spans over `_NOISY_RANGE_Z`
(10) sigmas: a loss that fell and rose back (a U, overfit's) only ends where it began.
'loss_rises_metric_improves': after its (smoothed) minimum the loss rose back by `rise_rel`
(5%) of its level, over at least 2 evaluations, and beyond its noise: by `rise_z` (2) sigmas,
or, over 20 evaluations or more, on a Mann-Kendall climb with p <= 0.01 (a steady creep
across many evaluations, each too noisy to show it alone); while the metric, from its value at
that minimum to the end, kept improving (a sigma and `min_gain` of the room left at the
minimum: 96.0% -> 96.7% accuracy is a sixth of what was left) by at least `outweigh` (2) times
the loss's relative rise: a classifier growing
over-confident on the errors it still makes, where the metric's gain is the bigger story (a
loss that climbs more than the metric gains is overfitting first, which overfit reports on
its own; memorising a tiny set nudges accuracy up while its loss soars). Overfit reports the
loss's rise beside it; this finding says that the loss minimum is the wrong place to stop
(the playbook's advice: stop on the metric, check calibration).
Confidence: 0.5 at the thresholds, + 0.2 for each doubling of the improving side's sigmas over
`min_z`, capped at 0.9.
Evidence: direction ('loss_improves' | 'metric_improves' | 'loss_rises_metric_improves'),
loss_at_chance (k, or None),
loss_min_step, loss_rise_after_min_rel, loss_rise_after_min_z, loss_trend_after_min_tau and
loss_trend_after_min_p (Kendall's tau of the loss from its minimum on, and its p-value; 0 and
1 when fewer than 20 evaluations follow the minimum, where the trend is not read),
metric_gain_after_min_z, metric_gain_after_min_rel, evaluations_after_min, score_metric,
score_direction ('higher' | 'lower'), direction_source ('name' | 'correlation'), loss_gain_z,
loss_gain_rel, loss_range_z, loss_range_rel, metric_gain_z, metric_gain_rel (share of its room),
correlation (Spearman, loss vs score), loss_metric, loss_head / loss_tail and score_head /
score_tail (each curve's level at the start and the end).
A validation loss that never changed (a one-class detector's class loss, always 0) is not
read: there is nothing to compare the metric with.
A metric at its best possible value at every evaluation after the first, or at
`_SATURATED_SHARE` (90%) of them (100% accuracy, a WER of 0: a tiny or easy validation set), has
no room to improve: a loss that falls beside it is no disagreement (evidence metric_saturated).
Nor has one within `CONVERGED_ROOM` (5%) of its scale of that best value at every evaluation after
the first and still moving there (99.1-99.5% accuracy on an easy binary task): the loss's gain is
confidence on examples already right (evidence metric_converged); nor does such a metric's creep
toward its bound beside a flat loss disagree with it (TensorFlow's MNIST quickstart: 97.9% ->
98.2% test accuracy while the test loss holds at 0.06): its last gains are examples the loss
already counts as nearly right. A metric that read one value
(to `_PINNED_TOL`, 1e-5 of its scale) at 90% of those evaluations is pinned, not converged (pixel
accuracy at the background's share): its disagreement with the loss stands. The same holds for
every other val score of the loss: when the paired score shows no disagreement, a second score
pinned at one value (not its best) beside a loss that improved by the 'loss_improves' bars is
the finding (a validation accuracy frozen at 0.0135 while the loss falls 60% and the Dice
climbs: that metric is not computed on what the model predicts, or the model predicts one class
for every example); evidence metric_pinned.
A log with no validation loss is read for one case only: a held-out score whose name says higher
is better (mAP, accuracy, F1) at exactly 0 at every one of 4 evaluations or more while the
training loss fell by half (the medians of its first and last fifth): the model learns what the
metric never sees (a metric or label-format bug, a class mapping, a score threshold), or predicts
nothing (evidence reading='score_at_zero', direction 'loss_improves'; confidence
`_ZERO_SCORE_CONFIDENCE`, 0.7: the training loss stands in for the missing validation loss).
mmdetection and YOLOv6 log their mAP and no validation loss.
Known false positives: a metric on a different eval subset than the loss.
"""

from __future__ import annotations

import re

import numpy as np
from lossforensics.classifiers._align import (
    MAX_EVALS,
    closest_name,
    detrended_noise,
    finite_curve,
    floor,
    levels_at,
    score_noise,
)
from lossforensics.classifiers._chance import chance_of, in_chance_band
from lossforensics.classifiers.base import Classifier
from lossforensics.classifiers.diagnosis import Finding, Span
from lossforensics.classifiers.roles import DECODED_HIGHER, GENERATIVE_SCORE, metric_words
from lossforensics.classifiers.run import RunSeries
from lossforensics.classifiers.signals import (
    TINY,
    all_positive,
    head_level,
    odd_window,
    robust_range,
    rolling_median,
    scale,
    spearman,
    tail_level,
    trend,
)

# the scores that are shares of the examples (or of n-grams), bounded at 100 in percent
_SHARES = {
    "acc",
    "accuracy",
    "accuracies",
    "wacc",
    "acc1",
    "acc5",
    "prec1",
    "prec5",
    "f1",
    "fscore",
    "fbeta",
    "fmeasure",
    "f2",
    "auc",
    "auroc",
    "map",
    "map50",
    "iou",
    "miou",
    "jaccard",
    "dice",
    "dsc",
    "precision",
    "recall",
    "top1",
    "top5",
    "exact",
    "em",
    "correct",
    "accurancy",  # accuracy as often misspelt in printed logs
} | DECODED_HIGHER
# higher is better: the shares, and scores with no bound of 100 (correlations, dB, ranks)
_HIGHER = _SHARES | {
    "r2",
    "mrr",
    "ndcg",
    "score",
    "kappa",
    "mcc",
    "spearman",
    "pearson",
    "corr",  # the correlation of a forecast with the truth (LSTNet's `CORR`)
    "psnr",
    "ssim",
    "sdr",
    "sisdr",
}
_LOWER = {
    "wer",
    "cer",
    "ter",
    "mae",
    "rmse",
    "mse",
    "mape",
    "smape",
    "rse",  # root relative squared error (LSTNet)
    "rae",  # relative absolute error
    "perplexity",
    "ppl",
    "error",
    "err",
    "nll",
    "bpc",
    "bpb",
    "fid",
    "kid",
    "fvd",
    "lpips",
    "eer",
    "mindcf",
    "distance",
}
# Error-rate acronyms that are also English words (phoneme / symbol error rate): lower is better
# only as the name's last token (`val_per`), as in roles.
_LOWER_SUFFIXES = {"per", "ser"}


# How far beyond the usual bar (min_z sigmas, min_gain of its room) a metric must improve to
# stand against a loss that is noisy rather than flat: a strong, unmistakable improvement.
STRONG_GAIN = 2.0

# head and tail levels are medians of the first and last 20% of the evaluations: val curves are
# short, a fifth of them outvotes a noisy evaluation and still reads the start and the end
_END_SHARE = 0.2
# the running median that finds the loss minimum spans 5% of the evaluations ...
_SMOOTH_FRAC = 0.05
# ... and at least 3, the smallest window a median can outvote a bad evaluation in
_SMOOTH_MIN_WINDOW = 3
# a loss whose 5-95% range is within 4 sigmas (and min_rel of its level) is flat, only noisy
_FLAT_RANGE_Z = 4.0
# ... and a loss whose range spans over 10 sigmas moved (fell, then rose: a U), whatever its
# head and tail levels: it is no noisy flat loss beside a strongly improving metric
_NOISY_RANGE_Z = 10.0
# a flat loss's head-to-tail change is under 2 sigmas of its noise ...
_FLAT_GAIN_Z = 2.0
# ... or under 1% of its level: near chance, cross-entropy creeps while accuracy climbs
_FLAT_GAIN_REL = 0.01
# the metric moved the right way by at least one sigma of its own noise: beyond chance
_METRIC_GAIN_Z = 1.0
# the loss rose back over at least 2 evaluations after its minimum: one is a noisy evaluation
_MIN_EVALS_AFTER_MIN = 2
# ... or, over at least 20 evaluations after its minimum, climbed on a Mann-Kendall trend with
# p <= 0.01: a steady creep over many evaluations is beyond the noise even when each
# evaluation's scatter hides it (the late level's median then knows far better than one sigma)
_TREND_MIN_EVALS = 20
# ... at 1%: one run in a hundred of flat noise climbs that steadily by chance
_TREND_P = 0.01
# confidence at the thresholds: a disagreement at the bar is already a finding
_BASE_CONFIDENCE = 0.5
# added for each doubling of the improving side's sigmas over min_z
_CONFIDENCE_PER_DOUBLING = 0.2
# confidence stays under 0.9: a saturated metric or a different eval subset looks the same
_MAX_CONFIDENCE = 0.9


# the best values a bounded metric can take: a share or a percentage (higher is better), an
# error rate (lower is better)
_BEST_HIGH = (1.0, 100.0)
_BEST_LOW = (0.0,)
# a share printed in percent (`_SHARES`) is at its best at 100
_PERCENT_TOP = 100.0
# a metric at its best value at 90% of the evaluations (or all but the first) is saturated
_SATURATED_SHARE = 0.9
# a bounded score within 5% of its scale of its bound (0.95 accuracy, 5% error) has converged
CONVERGED_ROOM = 0.05
# a score whose evaluations all agree to 1e-5 of its scale read the same value each time (float32
# printing differs in the 7th digit): pinned, not converged
_PINNED_TOL = 1e-5


def _top(metric: str, score: np.ndarray) -> float | None:
    """The best value a bounded metric can take: 1 for values within [0, 1]; 100 for a share
    (accuracy, F1, IoU, BLEU, ...) printed in percent, within [0, 100]; None otherwise."""
    if np.all((score >= 0) & (score <= 1)):
        return 1.0
    tokens = {t for t in re.split(r"[^a-z0-9]+", metric.lower()) if t}
    if tokens & _SHARES and np.all((score >= 0) & (score <= _PERCENT_TOP)):
        return _PERCENT_TOP
    return None


def _saturated(score: np.ndarray, best: tuple[float, ...]) -> bool:
    """The metric sat at its best possible value at every evaluation after the first, or at
    `_SATURATED_SHARE` of them: an easy or tiny validation set with no room left to show a
    disagreement."""
    at_best = np.isin(score, best)
    return bool(at_best[1:].all() or at_best.mean() >= _SATURATED_SHARE)


def _pinned(score: np.ndarray, scale: float | None = None) -> bool:
    """One value (to `_PINNED_TOL` of `scale`, by default its largest size) at
    `_SATURATED_SHARE` of the evaluations: the metric did not move at all."""
    size = float(np.max(np.abs(score))) if scale is None else scale
    _, counts = np.unique(np.round(score / (_PINNED_TOL * max(size, TINY))), return_counts=True)
    return bool(counts.max() >= _SATURATED_SHARE * len(score))


def _converged_throughout(score: np.ndarray, top: float | None, sign: int) -> bool:
    """A bounded metric within `CONVERGED_ROOM` of its scale of its best end (the bound when
    higher is better, 0 when lower is) at every evaluation after the first, and still moving
    there: it had no room to show what the loss gained. A metric that read one value (to
    `_PINNED_TOL`) at `_SATURATED_SHARE` of those evaluations is not converged but pinned (pixel
    accuracy at the background's share): it measures nothing, and disagrees with the loss."""
    later = score[1:]
    if top is None or len(later) < 2:
        return False
    if _pinned(later, top):
        return False
    room = top - later if sign > 0 else later
    return bool(np.all(room <= CONVERGED_ROOM * top))


def _at_chance_throughout(x: np.ndarray, y: np.ndarray) -> int | None:
    """k when the validation loss started at a classifier's chance level ln k (its first
    evaluation, in a log that starts with its run: classifiers._chance) and every evaluation
    stayed within `HELD_BAND` (a tenth) of it; else None."""
    if len(y) < 2 or not np.all(y > 0):
        return None
    k = chance_of(y, x)
    return k if k is not None and in_chance_band(y, k) else None


def name_direction(metric: str) -> int:
    """+1 when higher is better, -1 when lower is better, 0 when the name does not say."""
    parts = [t for t in re.split(r"[^a-z0-9]+", metric.lower()) if t]
    tokens = metric_words(parts)
    if tokens & _LOWER or (parts and parts[-1] in _LOWER_SUFFIXES):
        return -1
    if any(GENERATIVE_SCORE.fullmatch(t) for t in parts):  # `fid50k_full`
        return -1
    return 1 if tokens & _HIGHER else 0


def _own_scores(run: RunSeries) -> list[str]:
    """The val scores that may pair with the primary val loss: a score closer by name to
    another val loss is that loss's (a multi-output model's `val_audio_pred_accuracy` is
    `val_audio_pred_loss`'s, not the total `val_loss`'s)."""
    loss_name = run.primary("val_loss")
    losses = run.metrics("val_loss")
    return [s for s in run.metrics("val_score") if closest_name(losses, s) == loss_name]


# a score at exactly 0 at this many evaluations or more: one or two zeros come early in any run
_ZERO_EVALS = 4
# ...while the training loss fell by half or more: learning that a score counting right answers
# would show...
_ZERO_TRAIN_FALL = 0.5
# ...its levels the medians of its first and last fifth (one noisy log does not make a fall)
_ZERO_PART = 0.2
# confidence of that reading: the training loss stands in for the validation loss not logged
_ZERO_SCORE_CONFIDENCE = 0.7


def _zero_score(run: RunSeries) -> dict | None:
    """A held-out score whose name says higher is better (mAP, accuracy, F1) at exactly 0 at
    every one of `_ZERO_EVALS` evaluations or more, in a log with no validation loss, while the
    training loss fell by `_ZERO_TRAIN_FALL` (mmdetection's `bbox_mAP: 0.0000` at every
    evaluation as its losses fall: the FAQ of detection trainers); None otherwise."""
    if run.has("val_loss"):
        return None
    tx, ty = finite_curve(run, "train_loss")
    if len(ty) < _ZERO_EVALS or not all_positive(ty):
        return None
    head, tail = head_level(ty, _ZERO_PART), tail_level(ty, _ZERO_PART)
    if head <= 0 or tail > (1 - _ZERO_TRAIN_FALL) * head:
        return None
    for name in run.metrics("val_score"):
        if name_direction(name) <= 0:
            continue  # lower is better (0 is its best), or the name does not say
        sx, sy = finite_curve(run, "val_score", name)
        if len(sy) >= _ZERO_EVALS and not np.any(sy):
            return {
                "score_metric": name,
                "evaluations": len(sy),
                "train_head": float(head),
                "train_tail": float(tail),
                "train_fall_rel": float(1 - tail / head),
                "first_step": int(min(tx[0], sx[0])),
                "last_step": int(max(tx[-1], sx[-1])),
            }
    return None


class MetricMismatch(Classifier):
    label = "metric_mismatch"
    needs = frozenset({"val_loss", "val_score"})
    # evaluations with a score beside them: a head, a tail and a middle between them
    min_points = 5

    def __init__(
        self,
        *,
        # the improving side moved by 4 sigmas of its detrended noise: unmistakable on a short
        # val curve, where 2 sigmas come by chance
        min_z: float = 4.0,
        # the loss improved by 10% of its level; a loss swinging by more is noisy, not flat
        min_rel: float = 0.1,
        # a loss whose 5-95% range is within 5% of its level is flat
        flat_rel: float = 0.05,
        # the metric improved by 5% of its room (to 1 or 0 for a [0, 1] metric, else its size)
        min_gain: float = 0.05,
        # after its minimum the loss rose back by 5% of its level ...
        rise_rel: float = 0.05,
        # ... and by 2 sigmas of its noise
        rise_z: float = 2.0,
        # the metric's gain after the loss minimum is twice the loss's relative rise: the
        # metric is the bigger story (less is overfitting first, overfit's to report)
        outweigh: float = 2.0,
    ) -> None:
        self.min_z = min_z
        self.min_rel = min_rel
        self.flat_rel = flat_rel
        self.min_gain = min_gain
        self.rise_rel = rise_rel
        self.rise_z = rise_z
        self.outweigh = outweigh

    def measure(self, run: RunSeries, score_name: str | None = None) -> dict | None:
        """The val loss beside one val score: `score_name`, by default the one that pairs with
        the loss by name."""
        loss_name = run.primary("val_loss")
        # a score closer by name to another val loss is that loss's (a multi-output model's
        # `val_audio_pred_accuracy` is `val_audio_pred_loss`'s, not the total `val_loss`'s)
        if score_name is None:
            score_name = closest_name(_own_scores(run), loss_name or "")
        if score_name is None:
            return None
        vx, vy = finite_curve(run, "val_loss", max_points=MAX_EVALS)
        sx, sy = finite_curve(run, "val_score", score_name, max_points=MAX_EVALS)
        if not len(vy) or np.ptp(vy) == 0:
            # a val loss that never changed measures nothing to compare the metric with (the
            # class loss of a one-class detector, always 0): as distribution_mismatch reads it
            return None
        score = levels_at(sx, sy, vx)
        ok = np.isfinite(score)
        if ok.sum() < self.min_points:
            return None
        vx, vy, score = vx[ok], vy[ok], score[ok]
        rho = spearman(vy, score)
        rho = float(np.nan_to_num(rho))
        sign, source = name_direction(score_name), "name"
        if sign == 0:
            sign, source = (1 if rho <= 0 else -1), "correlation"
        good = sign * score
        l_head, l_tail = head_level(vy, _END_SHARE), tail_level(vy, _END_SHARE)
        g_head, g_tail = head_level(good, _END_SHARE), tail_level(good, _END_SHARE)
        l_noise = floor(detrended_noise(vy), scale(vy))
        # how far the metric could still go: to 1 (or 0) for a [0, 1] metric, to 100 for a
        # share printed in percent (an accuracy of 89.6 has 10.4 points left), else its size
        top = _top(score_name, score)
        bounded = top is not None
        room = (
            ((top or 1.0) - sign * g_head if sign > 0 else -g_head)
            if bounded
            else max(abs(g_head), abs(g_tail))
        )
        # from the val loss's (smoothed) minimum to the end: how far the loss rose back, and
        # how the metric moved over that same stretch
        smooth = rolling_median(vy, odd_window(len(vy), _SMOOTH_FRAC, lo=_SMOOTH_MIN_WINDOW))
        i_min = int(np.argmin(smooth))
        late_loss = tail_level(vy, _END_SHARE)
        g_at_min = float(np.median(good[max(0, i_min - 1) : i_min + 2]))
        g_noise = score_noise(good)
        # the gain after the minimum is a share of the room left there: late in training the
        # last points of accuracy are the hard ones (96.0% -> 96.7% is a sixth of what is left)
        room_at_min = (
            ((top or 1.0) - sign * g_at_min if sign > 0 else -g_at_min)
            if bounded
            else max(abs(g_at_min), abs(g_tail))
        )
        # the creep's trend is read only where the rule asks for it (20+ evaluations after the
        # minimum): a Theil-Sen fit costs ~1 ms, most runs have too few evaluations to use it
        read = len(vy) - 1 - i_min >= _TREND_MIN_EVALS
        after = trend(vx[i_min:], vy[i_min:]) if read else None
        return {
            # the metric sat at its best possible value at every evaluation (100% accuracy, 0
            # WER): no room to improve, so no disagreement with a loss that still falls
            "metric_saturated": _saturated(score, _BEST_HIGH if sign > 0 else _BEST_LOW),
            # within CONVERGED_ROOM of its best end at every evaluation after the first (99.4%
            # accuracy throughout): the loss's gains are confidence on examples already right
            "metric_converged": _converged_throughout(score, top, sign),
            "metric_pinned": _pinned(score),
            "loss_min_step": int(vx[i_min]),
            "loss_trend_after_min_tau": after.tau if after else 0.0,
            "loss_trend_after_min_p": after.p_value if after else 1.0,
            "loss_rise_after_min_rel": (late_loss - float(smooth[i_min]))
            / max(abs(float(smooth[i_min])), TINY),
            "loss_rise_after_min_z": (late_loss - float(smooth[i_min])) / l_noise,
            "metric_gain_after_min_z": (g_tail - g_at_min) / g_noise,
            "metric_gain_after_min_rel": (g_tail - g_at_min) / max(room_at_min, TINY),
            "evaluations_after_min": int(len(vy) - 1 - i_min),
            "loss_metric": loss_name,
            "score_metric": score_name,
            "score_direction": "higher" if sign > 0 else "lower",
            "direction_source": source,
            "start_step": int(vx[0]),
            "end_step": int(vx[-1]),
            "loss_gain_z": (l_head - l_tail) / l_noise,
            "loss_range_z": robust_range(vy) / l_noise,
            "loss_range_rel": robust_range(vy) / max(abs(float(np.median(vy))), TINY),
            "metric_gain_rel": (g_tail - g_head) / max(room, TINY),
            "loss_gain_rel": (l_head - l_tail) / max(abs(l_head), abs(l_tail), TINY),
            "metric_gain_z": (g_tail - g_head) / g_noise,
            "loss_head": l_head,
            "loss_tail": l_tail,
            "score_head": sign * g_head,
            "score_tail": sign * g_tail,
            "correlation": rho,
            "loss_at_chance": _at_chance_throughout(vx, vy),
        }

    def judge(self, m: dict) -> Finding | None:
        loss_better = m["loss_gain_z"] >= self.min_z and m["loss_gain_rel"] >= self.min_rel
        # flat: within 5% of its level, or within its noise while swinging by under min_rel
        # (10%): a val loss that wanders by 20% is noisy, not flat, and says nothing either way
        loss_flat = (
            m["loss_range_rel"] <= self.flat_rel
            or (m["loss_range_z"] <= _FLAT_RANGE_Z and m["loss_range_rel"] <= self.min_rel)
        ) and (abs(m["loss_gain_z"]) < _FLAT_GAIN_Z or abs(m["loss_gain_rel"]) < _FLAT_GAIN_REL)
        # or no net move beyond its noise (head to tail under 2 sigmas and min_rel) while the
        # metric improves by STRONG_GAIN x the usual bar: a noisy loss that went nowhere beside
        # a metric that kept improving is the same disagreement
        loss_flat = loss_flat or (
            abs(m["loss_gain_z"]) < _FLAT_GAIN_Z
            and abs(m["loss_gain_rel"]) < self.min_rel
            and m["loss_range_z"] <= _NOISY_RANGE_Z
            and m["metric_gain_z"] >= STRONG_GAIN * self.min_z
            and m["metric_gain_rel"] >= STRONG_GAIN * self.min_gain
        )
        # or held at a classifier's chance level from its first evaluation to its last: a
        # val loss that never left ln k measures no learning, whatever it crept within the band
        loss_flat = loss_flat or m.get("loss_at_chance") is not None
        metric_better = (
            m["metric_gain_z"] >= _METRIC_GAIN_Z and m["metric_gain_rel"] >= self.min_gain
        )
        if loss_better and not metric_better:
            if m.get("metric_saturated") or m.get("metric_converged"):
                return None
            direction, z = "loss_improves", m["loss_gain_z"]
        elif metric_better and m["metric_gain_z"] >= self.min_z and loss_flat:
            if m.get("metric_converged"):
                return None
            direction, z = "metric_improves", m["metric_gain_z"]
        elif self._loss_rises_metric_improves(m):
            direction, z = (
                "loss_rises_metric_improves",
                self.min_z * max(1.0, m["metric_gain_after_min_z"] / 2.0),
            )
        else:
            return None
        conf = _BASE_CONFIDENCE + _CONFIDENCE_PER_DOUBLING * np.log2(z / self.min_z)
        summary = (
            f"Validation loss went {m['loss_head']:.4g} -> {m['loss_tail']:.4g} while "
            f"{m['score_metric']} went {m['score_head']:.4g} -> {m['score_tail']:.4g} "
            f"({m['score_direction']} is better): "
            + {
                "loss_improves": "the loss improved, the metric did not.",
                "metric_improves": "the metric improved, the loss did not.",
                "loss_rises_metric_improves": (
                    f"the loss rose back {m['loss_rise_after_min_rel']:.0%} from its minimum at "
                    f"step {m['loss_min_step']} while the metric kept improving: stop on the "
                    "metric you care about, not the loss minimum, and check calibration."
                ),
            }[direction]
        )
        evidence = {
            "direction": direction,
            **{k: v for k, v in m.items() if k not in ("start_step", "end_step")},
        }
        return Finding(
            self.label,
            float(np.clip(conf, _BASE_CONFIDENCE, _MAX_CONFIDENCE)),
            Span(m["start_step"], m["end_step"]),
            evidence,
            summary,
        )

    def judge_zero(self, z: dict) -> Finding:
        """A held-out score at exactly 0 at every evaluation while the training loss fell."""
        summary = (
            f"{z['score_metric']} read exactly 0 at all {z['evaluations']} evaluations while "
            f"the training loss fell {z['train_fall_rel']:.0%} ({z['train_head']:.4g} -> "
            f"{z['train_tail']:.4g}) and no validation loss is logged: the model learns "
            "something the metric does not see (a metric or label-format bug, a wrong class "
            "mapping or score threshold), or it predicts nothing at all."
        )
        evidence = {"direction": "loss_improves", "reading": "score_at_zero", **z}
        return Finding(
            self.label,
            _ZERO_SCORE_CONFIDENCE,
            Span(z["first_step"], z["last_step"]),
            evidence,
            summary,
        )

    def _loss_rises_metric_improves(self, m: dict) -> bool:
        """After its minimum the val loss rose back by `rise_rel` of its level and `rise_z`
        sigmas over at least 2 evaluations, while the metric kept improving over the same
        stretch (a sigma and `min_gain` of its room) by `outweigh` times the loss's relative
        rise."""
        return (
            m.get("evaluations_after_min", 0) >= _MIN_EVALS_AFTER_MIN
            and m.get("loss_rise_after_min_rel", 0.0) >= self.rise_rel
            and (
                m.get("loss_rise_after_min_z", 0.0) >= self.rise_z
                or (
                    m.get("evaluations_after_min", 0) >= _TREND_MIN_EVALS
                    and m.get("loss_trend_after_min_tau", 0.0) > 0
                    and m.get("loss_trend_after_min_p", 1.0) <= _TREND_P
                )
            )
            and m.get("metric_gain_after_min_z", 0.0) >= _METRIC_GAIN_Z
            and m.get("metric_gain_after_min_rel", 0.0) >= self.min_gain
            and m.get("metric_gain_after_min_rel", 0.0)
            >= self.outweigh * m.get("loss_rise_after_min_rel", 0.0)
        )

    def skip_reason(self, run: RunSeries) -> str | None:
        reason = super().skip_reason(run)
        if reason is not None and _zero_score(run) is not None:
            return None  # no validation loss, but a score at 0 beside a falling training loss
        if reason is None and not _own_scores(run):
            return (
                f"each validation metric pairs with its own loss, none with "
                f"{run.primary('val_loss')} (a model with several outputs)"
            )
        return reason

    def measured(self, run: RunSeries) -> dict | None:
        """measure(run), once per run and setting: overfit reads the same measurement (how the
        score moved after the val loss's minimum)."""
        return run.measured(("metric_mismatch", self.min_points), lambda: self.measure(run))

    def detect(self, run: RunSeries) -> Finding | None:
        if not run.has("val_loss"):
            zero = _zero_score(run)
            return None if zero is None else self.judge_zero(zero)
        m = self.measured(run)
        found = None if m is None else self.judge(m)
        if found is not None:
            return found
        # another val score frozen at one value while the loss improved: whatever the paired
        # score says, that metric is not computed on what the model predicts, or the model
        # predicts one class for every example
        for name in _own_scores(run):
            if m is not None and name == m["score_metric"]:
                continue
            _, values = finite_curve(run, "val_score", name, max_points=MAX_EVALS)
            if len(values) < self.min_points or not _pinned(values):
                continue  # (most scores move: read on their own values, the loss unread)
            other = self.measure(run, name)
            if other is None or not other["metric_pinned"]:
                continue
            found = self.judge(other)
            if found is not None and found.evidence["direction"] == "loss_improves":
                return found
        return None
