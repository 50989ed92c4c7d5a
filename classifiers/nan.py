"""nan: the loss (or the gradient norm) became NaN or infinite.

Symptom: a non-finite value in the training loss, the validation loss or the gradient norm.
When the primary losses are finite, every other loss logged is read too (one head of a
multi-task loss, one part of a detector's): a non-finite part makes any total of the parts
non-finite, so a box-regression head that is NaN beside a finite class head is a finding.
Signal: the step-sorted curves' non-finite points (readers keep NaN and inf as logged), plus
what happened just before the first one: the gradient norm's jump over its earlier median and
the loss's rise over its earlier range.
Rule: any non-finite loss value is a finding, at any length of log (a 3-point validation-only
log ending in NaN included: the check runs whenever a training loss, a validation loss or a
gradient norm is logged). Every write counts: a session that went NaN and was restarted over the
same steps keeps its NaN in the rows the later session overwrote, so those are read too when the
step-sorted curves are all finite. One exception: a validation loss whose only non-finite value
is one of its first `leading_val_window` (3) evaluations, finite from then on, while training is
finite all along, is an evaluation that had nothing to measure yet (YOLO's early eval before any
box is predicted: 0/0; a step-0 eval) - `leading_val_points` (1) such point is not a finding;
more than one is (a validation path broken for epochs).
Nor is a training loss part non-finite at every print while another training loss kept
falling over those prints (by `_TRAINED_THROUGH_GAIN`, over `_BESIDE_MIN_POINTS` prints or
more) and no total (`loss`, `total_loss`: a canonical name) went non-finite: a NaN in the summed
loss makes every weight NaN at the next update and every loss with it, so such a part is logged
outside the backward pass (DAFormer's `src.loss_imnet_feat_dist` at NaN from its first print
with the feature-distance term off, beside segmentation losses falling 2.68 -> 1.61).
A non-finite gradient
norm with finite losses counts only when it persists: `persist_points` (3) non-finite in a row,
non-finite to the end, or `persist_fraction` (a quarter) of its points. A mixed-precision loss
scaler skips the odd step with an inf gradient by design and is finite again at the next one
(the Trainer then logs a NaN grad_norm while the learning rate does not advance). Nor does a
persisting one count while the training loss, finite all along, still improved by 2.5% of its
level from the start of the norm's longest non-finite stretch on (`_trained_through`: its
first third of points from there against its last third): the updates landed, so the
non-finite norms were skipped steps (a per-epoch mean of the norm, as BEiT/MAE-style logs
write it, is inf whenever one step of the epoch overflowed: every epoch of a healthy
mixed-precision fine-tune).
Confidence: 0.99 when the loss stays non-finite to the end, 0.9 when several points are
non-finite but training carried on, 0.8 for one isolated point, 0.6 for gradient norm only.
Evidence: series (the metric that went non-finite), grad_norm_only (only the gradient norm did),
val_only (every non-finite value is in the validation loss: training stayed finite), kind
('nan' | 'inf': the first bad value), first_nonfinite_step, last_nonfinite_step,
first_nonfinite_fraction (0..1 of the run), nonfinite_count, nonfinite_fraction, recovered (the
last value is finite), stayed_nonfinite (every value from the first non-finite one on is),
also_nonfinite (each other loss that went non-finite, with its first non-finite step). early
(within the first 2% or 3 points, in a log that starts where its run did: a window pasted from
mid-run that opens on NaN says nothing about initialisation) / grad_norm_jump / grad_norm_calm /
loss_rise_before drive the playbook's ranking (init or data vs blow-up vs bad sample). On a
curve judged in blocks (over JUDGED_POINTS points, classifiers.resolution) the label and
first_nonfinite_step stay exact, while the counts, last_nonfinite_step and recovered are read
per block: a block holding one non-finite point counts as one.
Set aside: a run with non-finite values that none of these rules counts says so under the
diagnosis's `set_aside`, naming each value and the rule that let it pass, so a `healthy` verdict
is never silent on a NaN in the log.
Known false positives: a logger that writes NaN for "not computed" beyond the first
evaluation, in a loss that is not all NaN; a deliberately skipped fp16 step that also logs an
inf loss.
"""

from __future__ import annotations

from functools import partial

import numpy as np
from lossforensics.classifiers import signals
from lossforensics.classifiers._log_start import mid_run_start
from lossforensics.classifiers.base import Classifier
from lossforensics.classifiers.diagnosis import Finding, Span
from lossforensics.classifiers.run import Curve, RunSeries, is_canonical


def _nonfinite(curve: Curve | None) -> np.ndarray:
    """Indices of the curve's non-finite values (empty when there is no curve)."""
    if curve is None or len(curve) == 0:
        return np.array([], dtype=np.int64)
    return np.flatnonzero(~np.isfinite(curve.values))


def _longest_stretch(bad: np.ndarray) -> tuple[int, int]:
    """The longest run of consecutive indices in `bad` (non-empty, sorted): its first index and
    its length (the first such run on a tie)."""
    breaks = np.flatnonzero(np.diff(bad) != 1)  # where one stretch of consecutive points ends
    ends = np.concatenate((breaks, [len(bad) - 1]))
    starts = np.concatenate(([0], breaks + 1))
    i = int(np.argmax(ends - starts))
    return int(bad[starts[i]]), int(ends[i] - starts[i] + 1)


def _gain_after(train: Curve | None, step: int) -> float | None:
    """How much a training loss, finite all along, improved from `step` on, as a share of its
    level there (the median of the first third of its points from there against the last
    third's); None when it is not finite all along or has too few points there."""
    if train is None or not np.isfinite(train.values).all():
        return None
    after = train.values[train.steps >= step]
    if len(after) < _TRAINED_THROUGH_POINTS:
        return None
    k = len(after) // _THIRDS
    head, tail = float(np.median(after[:k])), float(np.median(after[-k:]))
    return (head - tail) / max(abs(head), signals.TINY)


def _trained_through(train: Curve | None, step: int) -> bool:
    """Whether the training loss still improved by `_TRAINED_THROUGH_GAIN` of its level from
    `step` on (_gain_after): the updates landed, so the non-finite gradient norms were skipped
    steps."""
    gain = _gain_after(train, step)
    return gain is not None and gain >= _TRAINED_THROUGH_GAIN


def _learning_beside(run: RunSeries, curve: Curve) -> str | None:
    """Another loss of the run's training losses, finite at every one of at least
    `_BESIDE_MIN_POINTS` points over `curve`'s steps, that ended `_TRAINED_THROUGH_GAIN` of its
    level below where it started there: its name, else None."""
    lo, hi = curve.steps[0], curve.steps[-1]
    for metric in run.metrics("train_loss"):
        other = run.curve("train_loss", metric)
        if other is None or metric == curve.metric:
            continue
        values = other.values[(other.steps >= lo) & (other.steps <= hi)]
        if len(values) < _BESIDE_MIN_POINTS or not np.isfinite(values).all():
            continue
        if values[-1] <= (1 - _TRAINED_THROUGH_GAIN) * values[0]:
            return metric
    return None


def _every_write(run: RunSeries, curve: Curve) -> Curve:
    """The curve's metric with every row as logged, in source order (a restarted session's
    rows included, which the step-sorted curve overwrites); the curve itself when nothing
    was overwritten."""
    rows = run.rows(curve.metric)  # kept with the run: source_order reads them too
    if not len(rows) or len(rows) == len(curve):
        return curve  # nothing overwritten
    return run.writes(curve.metric)


_LOSS_ROLES = ("train_loss", "val_loss", "grad_norm")
# a first non-finite value within the first 3 points is "early" however long the log (with
# `early_fraction`): the run never trained finitely, so init or data are the suspects
_EARLY_POINTS = 3
# the loss's rise before the first non-finite value needs 3 finite points to have a range
_RISE_MIN_POINTS = 3
# the gradient norm's jump needs 4 finite points: a few recent ones and an earlier median
_GRAD_MIN_POINTS = 4
# "just before" is the last tenth of the finite points before it, between 1 and 5 of them:
# late enough to catch the kick, wide enough not to be one noisy batch
_RECENT_DIVISOR = 10
_RECENT_MAX = 5  # at most 5 points: a longer stretch would reach back past the kick
# confidence by what was seen:
_CONFIDENCE_STAYED = 0.99  # the loss stayed non-finite to the end: nothing else reads so
_CONFIDENCE_SEVERAL = 0.9  # several non-finite points, but training carried on
_CONFIDENCE_ONE_POINT = 0.8  # one isolated point: perhaps a logger's placeholder
_CONFIDENCE_GRAD_ONLY = 0.6  # gradient norm only: loss scalers skip inf-gradient steps
# a training loss that still gained 2.5% of its level after the gradient norm went non-finite
# (plateau's bar for a loss that improved) trained through it: its updates landed
_TRAINED_THROUGH_GAIN = 0.025
# a training loss part non-finite at every print is outside the gradient when another loss kept
# learning over at least this many prints beside it: fewer cannot show training carried on
_BESIDE_MIN_POINTS = 3
# ... read as the median of its first third of points from there against its last third's,
# which needs 6 points
_TRAINED_THROUGH_POINTS = 6
# the head and the tail are each a third of those points
_THIRDS = 3


class NaN(Classifier):
    label = "nan"
    needs = frozenset(_LOSS_ROLES)  # any ONE of them is enough: see skip_reason
    min_points = 1

    def __init__(
        self,
        *,
        # a first non-finite value within the first 2% of the log is "early" (init or data)
        early_fraction: float = 0.02,
        # a non-finite gradient norm alone counts once it persists: 3 points in a row (a loss
        # scaler skips the odd inf-gradient step by design, finite again at the next)...
        persist_points: int = 3,
        # ... or a quarter of the gradient norm's points, however scattered (that many skipped
        # updates is a run that barely trains)
        persist_fraction: float = 0.25,
        # one non-finite early validation point is an eval with nothing to measure yet
        leading_val_points: int = 1,
        # ... when it is among the first 3 evaluations (YOLO's first eval, a step-0 eval)
        leading_val_window: int = 3,
    ) -> None:
        self.early_fraction = early_fraction
        self.persist_points = persist_points
        self.persist_fraction = persist_fraction
        self.leading_val_points = leading_val_points
        self.leading_val_window = leading_val_window

    def skip_reason(self, run: RunSeries) -> str | None:
        """Judged whenever any loss (or the gradient norm) is logged, with any number of points."""
        if any(len(c) for c in map(run.curve, _LOSS_ROLES) if c is not None):
            return None
        return "no training loss, validation loss or gradient norm logged"

    def _not_yet_computed(self, run: RunSeries, curve: Curve, bad: np.ndarray) -> bool:
        """A validation loss non-finite at no more than `leading_val_points` of its first
        `leading_val_window` evaluations and finite after, beside a training loss finite all
        along: an evaluation with nothing to measure yet."""
        if curve.metric != run.primary("val_loss") and curve.metric not in run.metrics("val_loss"):
            return False
        train = run.curve("train_loss")
        return (
            len(bad) <= self.leading_val_points
            and int(bad[-1]) < self.leading_val_window
            and np.isfinite(curve.values[int(bad[-1]) + 1 :]).all()
            and len(curve) > int(bad[-1]) + 1
            and train is not None
            and bool(np.isfinite(train.values).all())
        )

    def _benign(self, run: RunSeries, curve: Curve, bad: np.ndarray) -> bool:
        """Non-finite values that are no finding: an early evaluation's (`_not_yet_computed`),
        or a training loss part's that never reached the gradient (`_outside_gradient`)."""
        return (
            self._not_yet_computed(run, curve, bad)
            or self._outside_gradient(run, curve, bad) is not None
        )

    @staticmethod
    def _outside_gradient(run: RunSeries, curve: Curve, bad: np.ndarray) -> str | None:
        """The name of the training loss that kept learning beside a part non-finite at every
        print (_learning_beside), when no total (a canonical name: `loss`, `total_loss`) is
        non-finite there; None otherwise. A NaN in the summed loss makes every weight NaN
        at the next update and every loss with it, so this one is logged outside the backward
        pass (a term the config switched off, a logger's NaN for "not computed"). A total that
        is non-finite is what was backpropagated (Keras' running means of the finite parts may
        still fall when the NaN batches add zeros)."""
        train = run.metrics("train_loss")
        if len(bad) < len(curve) or curve.metric not in train:
            return None
        lo, hi = curve.steps[0], curve.steps[-1]
        for metric in train:  # a total non-finite too is what was backpropagated: a finding
            total = run.curve("train_loss", metric)
            if total is not None and is_canonical("train_loss", metric):
                values = total.values[(total.steps >= lo) & (total.steps <= hi)]
                if not np.isfinite(values).all():
                    return None
        return _learning_beside(run, curve)

    def _persists(self, grad: Curve, bad: np.ndarray) -> bool:
        """Whether a gradient norm's non-finite points are more than a loss scaler's skips:
        `persist_points` in a row, non-finite to the end, or `persist_fraction` of them."""
        if not len(bad):
            return False
        _, longest = _longest_stretch(bad)
        return (
            longest >= self.persist_points
            or int(bad[-1]) == len(grad) - 1
            or len(bad) >= self.persist_fraction * len(grad)
        )

    def measure(self, run: RunSeries) -> dict | None:
        """Where the first non-finite value is and what led up to it; None if all finite."""
        # the primary curves, and the per-step train series when it is logged per epoch too
        losses = {
            c.metric: c
            for c in (run.curve("train_loss"), run.detailed("train_loss"), run.curve("val_loss"))
            if c is not None
        }
        hits = [(c, _nonfinite(c)) for c in losses.values()]
        hits = [(c, bad) for c, bad in hits if len(bad) and not self._benign(run, c, bad)]
        if not hits:
            # a session that went NaN and was restarted from the same steps: the curve keeps
            # each step's last write, so the NaN lives only in the overwritten rows
            written = [(c, _nonfinite(c)) for c in map(partial(_every_write, run), losses.values())]
            hits = [(c, bad) for c, bad in written if len(bad) and not self._benign(run, c, bad)]
        if not hits:
            # a loss other than the primary (one head of a multi-task loss, one part of a
            # detector's): a non-finite part makes any total of the parts non-finite too
            parts = (
                run.curve(role, m)
                for role in ("train_loss", "val_loss")
                for m in run.metrics(role)
                if m not in losses
            )
            hits = [(c, b) for c in parts if c is not None and len(b := _nonfinite(c))]
            hits = [(c, bad) for c, bad in hits if not self._benign(run, c, bad)]
        grad = run.curve("grad_norm")
        grad_bad = _nonfinite(grad)
        if not hits:
            if grad is None or not self._persists(grad, grad_bad):
                return None
            start, _ = _longest_stretch(grad_bad)
            if _trained_through(run.curve("train_loss"), int(grad.steps[start])):
                return None
            hits, from_grad = [(grad, grad_bad)], True
        else:
            from_grad = False
        val = run.curve("val_loss")
        # every non-finite value is in the validation loss: training itself stayed finite
        val_metrics = set(run.metrics("val_loss"))
        val_only = (
            val is not None and all(c.metric in val_metrics for c, _ in hits) and not from_grad
        )
        curve, bad = min(hits, key=lambda h: h[0].steps[h[1][0]])
        first, n = int(bad[0]), len(curve)
        step = int(curve.steps[first])
        span = max(int(curve.steps[-1] - curve.steps[0]), 1)
        ev = {
            "series": curve.metric,
            "grad_norm_only": from_grad,
            "val_only": val_only,
            "first_nonfinite_step": step,
            "last_nonfinite_step": int(curve.steps[bad[-1]]),
            "first_nonfinite_fraction": (step - int(curve.steps[0])) / span,
            "nonfinite_count": len(bad),
            "nonfinite_fraction": len(bad) / n,
            "kind": "nan" if np.isnan(curve.values[first]) else "inf",
            "recovered": bool(np.isfinite(curve.values[-1])),
            # every point from the first non-finite one on is non-finite (else finite values
            # came back between them: fp16 overflow skipping some steps, not all)
            "stayed_nonfinite": len(bad) == n - first,
            # early in the run: near its first points, in a log that starts where the run did
            # (a window pasted from epoch 2457 that opens on NaN says nothing of the start)
            "early": first < max(_EARLY_POINTS, self.early_fraction * n)
            and mid_run_start(run, curve.steps) is None,
            # the other losses that went non-finite: a validation NaN beside a training one is
            # a second fact, not a detail of the first
            "also_nonfinite": {
                c.metric: int(c.steps[b[0]]) for c, b in hits if c.metric != curve.metric
            },
        }
        before = curve.values[:first]
        before = before[np.isfinite(before)]
        if len(before) >= _RISE_MIN_POINTS:
            k = max(1, min(_RECENT_MAX, len(before) // _RECENT_DIVISOR))
            rise = np.max(before[-k:]) - np.min(before)
            ev["loss_rise_before"] = rise / signals.scale(before)
        if grad is not None and not from_grad:
            ev.update(self._grad_before(grad, step))
        return ev

    def set_aside(self, run: RunSeries) -> str | None:
        """The non-finite values the rules above judged benign, and why: validation losses
        non-finite only at their first evaluations, training loss parts outside the backward
        pass, a gradient norm's skipped steps."""
        reasons = [
            self._early_evals_reason(run),
            self._outside_gradient_reason(run),
            self._skipped_steps_reason(run),
        ]
        kept = [r for r in reasons if r]
        return "; ".join(kept) if kept else None

    def _early_evals_reason(self, run: RunSeries) -> str:
        """Why the validation losses non-finite only at one of their first evaluations are no
        finding ('' when none is)."""
        forgiven: list[str] = []
        where = ""
        for metric in run.metrics("val_loss"):
            curve = run.curve("val_loss", metric)
            bad = _nonfinite(curve)
            if curve is None or not len(bad) or not self._not_yet_computed(run, curve, bad):
                continue
            kind = "NaN" if np.isnan(curve.values[bad[0]]) else "inf"
            forgiven.append(f"{metric} ({kind} at step {int(curve.steps[bad[0]])})")
            where = where or f"evaluation {int(bad[0]) + 1} of {len(curve)}"
        if not forgiven:
            return ""
        return (
            f"non-finite at one early evaluation only ({where}) and finite at every one "
            f"after: {', '.join(forgiven)}, while the training loss stayed finite: an "
            "evaluation with nothing to measure yet (no predictions so early), not a run that "
            "went NaN"
        )

    def _outside_gradient_reason(self, run: RunSeries) -> str:
        """Why training loss parts non-finite at every print are no finding ('' when none is)."""
        reasons = []
        for metric in run.metrics("train_loss"):
            curve = run.curve("train_loss", metric)
            bad = _nonfinite(curve)
            if curve is None or not len(bad):
                continue
            beside = self._outside_gradient(run, curve, bad)
            if beside is None:
                continue
            reasons.append(
                f"{metric} is non-finite at all {len(curve)} of its points while {beside} kept "
                "falling beside it: a NaN in the summed loss would have made every loss NaN at "
                "the next update, so this one is logged outside the backward pass (a term "
                "switched off, a logger's NaN for 'not computed')"
            )
        return "; ".join(reasons)

    def _skipped_steps_reason(self, run: RunSeries) -> str:
        """Why a gradient norm's non-finite points are no finding ('' when it has none): a loss
        scaler's scattered skips, or a training loss that improved after them."""
        grad = run.curve("grad_norm")
        bad = _nonfinite(grad)
        if grad is None or not len(bad):
            return ""
        if not self._persists(grad, bad):
            return (
                f"{grad.metric} is non-finite at {len(bad)} of its {len(grad)} points, never "
                f"{self.persist_points} in a row and finite at the end: the steps a "
                "mixed-precision loss scaler skips by design"
            )
        start, length = _longest_stretch(bad)
        gain = _gain_after(run.curve("train_loss"), int(grad.steps[start]))
        if gain is None or gain < _TRAINED_THROUGH_GAIN:
            return ""  # a finding (detect), not a sign set aside
        return (
            f"{grad.metric} is non-finite for {length} point(s) in a row from step "
            f"{int(grad.steps[start])}, but the training loss, finite all along, still "
            f"improved by {gain:.1%} after: the updates landed, so those were skipped steps "
            "(or per-epoch means holding one overflowed step)"
        )

    @staticmethod
    def _grad_before(grad: Curve, step: int) -> dict:
        """How the gradient norm behaved just before `step`: last few points vs earlier median."""
        keep = (grad.steps <= step) & np.isfinite(grad.values)
        g = grad.values[keep]
        if len(g) < _GRAD_MIN_POINTS:
            return {}
        k = max(1, min(_RECENT_MAX, len(g) // _RECENT_DIVISOR))
        base = float(np.median(g[:-k]))
        jump = float(np.max(g[-k:]) / base) if base > 0 else float("inf")
        return {"grad_norm_jump": jump, "grad_norm_calm": bool(jump < 2.0)}

    def judge(self, ev: dict) -> Finding:
        if ev["grad_norm_only"]:
            confidence = _CONFIDENCE_GRAD_ONLY
        elif not ev["recovered"]:
            confidence = _CONFIDENCE_STAYED
        else:
            confidence = _CONFIDENCE_SEVERAL if ev["nonfinite_count"] > 1 else _CONFIDENCE_ONE_POINT
        where = "at the very start" if ev["early"] else f"at step {ev['first_nonfinite_step']}"
        if ev["recovered"]:
            tail = "then recovered"
        elif ev.get("stayed_nonfinite", True):
            tail = "and stayed non-finite"
        else:
            tail = "on and off, finite values coming back between, and ended non-finite"
        summary = (
            f"{ev['series']} became {ev['kind'].upper()} {where} "
            f"({ev['nonfinite_count']} non-finite point(s)) {tail}."
        )
        others = ev.get("also_nonfinite") or {}
        if others:
            summary += (
                " Also non-finite: "
                + ", ".join(
                    f"{metric} (from step {step})" for metric, step in sorted(others.items())
                )
                + "."
            )
        return Finding(
            self.label,
            confidence,
            Span(ev["first_nonfinite_step"], ev["last_nonfinite_step"]),
            ev,
            summary,
        )

    def detect(self, run: RunSeries) -> Finding | None:
        ev = self.measure(run)
        return None if ev is None else self.judge(ev)
