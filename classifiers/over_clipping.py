"""over_clipping: the gradient is clipped on most steps, so clipping rescales nearly every update.

Symptom: the pre-clip gradient norm sits above the clip threshold on most steps (or the logged,
post-clip norm is pinned at the threshold): the effective step size is set by the threshold,
not by the LR schedule.
Signal read: the clip threshold from a logged metric whose name says so (`max_grad_norm`,
`clip_grad_norm`, `grad_clip`, `clip_threshold`, `gradient_clip_val`...; its median value).
Without one, a threshold can only be inferred from the grad norm itself: when it is logged
after clipping, every clipped step reads exactly the threshold, so the series shows one
constant ceiling (its maximum, repeated to 0.1%) that no point exceeds. A continuous pre-clip
norm has no such repeated maximum. A Hugging Face Trainer log (the Trainer's own log keys
`loss`, `grad_norm`, `learning_rate` and `epoch` all present) records the PRE-clip norm and
never the threshold (it lives in training_args.bin): there the Trainer's default
`max_grad_norm` of 1.0 is assumed (threshold_source 'trainer_default'), but only judged when
the median norm is at least `DEFAULT_MIN_RATIO` times it: healthy transformer fine-tunes
sit at grad norms of roughly 0.1-5, so a norm in that range says nothing about whether the
user kept the default; a norm an order of magnitude beyond it is clipped hard under any
threshold a recipe plausibly sets. The assumption also needs the updates to have been applied:
a train loss whose best level never got below `MOVED` of its first logged value took no step
(the plateau finding's case: an optimizer not holding the params, so an unzeroed gradient
grows without bound), and its norm says nothing about clipping.
Rule: the share of steps at or above the threshold (within _TOL, 0.1%: pre-clip norms above it
and post-clip norms pinned at it both count) is at least `min_fraction`. When no threshold is
logged and no ceiling holds at least _MIN_CEILING_SHARE (5%) of the points, the run is skipped:
clipping cannot be judged from a norm that never touches a limit.
A short log (`_FEW_POINTS`, 5, to `min_points` grad norms) is judged when a threshold is logged or
assumed and the median norm is `_FAR_RATIO` (100) times it or more.
Confidence: _BASE_CONFIDENCE (0.5) at `min_fraction`, rising by _FULL_CLIP_BONUS to 0.95 when
every step is clipped; a ceiling inferred without a logged threshold scores _CEILING_PENALTY
(0.1) lower.
Evidence: clip_fraction, clip_threshold, threshold_source ('metric' | 'ceiling' |
'trainer_default', with threshold_note 'threshold assumed: the Trainer default'),
grad_norm_median, median_ratio (median grad norm / threshold), grad_norm_metric,
threshold_metric (the logged clip threshold's metric, when there is one).
Known false positives: a grad norm that saturates for another reason (a logging cap, a
constant placeholder); deliberate aggressive clipping (some RL and large-batch recipes clip on
most steps by design).
"""

from __future__ import annotations

import re

import numpy as np
from lossforensics.classifiers._align import finite_curve
from lossforensics.classifiers.base import Classifier
from lossforensics.classifiers.diagnosis import Finding, Span
from lossforensics.classifiers.roles import ROLES
from lossforensics.classifiers.run import RunSeries
from lossforensics.classifiers.signals.reduce import median

_THRESHOLD = re.compile(
    r"max_?(grad_?)?norm|clip_?(grad_?)?(norm|thresh|val|value)|"
    r"grad(ient)?_?clip|clip_?threshold|clipping",
    re.IGNORECASE,
)
_NOT_THRESHOLD = re.compile(r"frac|rate|ratio|coef|pct|percent|count|range|eps", re.IGNORECASE)
# a short grad-norm log (5 points or more, under min_points) is judged...
_FEW_POINTS = 5
# ... when its median is 100x the threshold or more: two orders of magnitude no handful of
# noisy points makes up
_FAR_RATIO = 100.0
# A clipped step reads the threshold to within 0.1% (a logger's rounding of the same float), both
# for a post-clip norm pinned at its ceiling and for a norm at or above a known threshold
_TOL = 1e-3
# A logged threshold is constant to 1% of its median: a setting, not the norm clip_grad_norm_
# returned
_CONSTANT_SHARE = 0.01
# A ceiling holding at least 5% of the points is a post-clip norm pinned at its threshold; a
# maximum touched less often is an ordinary peak of a continuous norm
_MIN_CEILING_SHARE = 0.05
# The clipped share is counted on every logged point (no bucketing: medians would hide the hits)
_ALL_POINTS = 10**9
# judge: confidence at `min_fraction` clipped: even odds (deliberate aggressive clipping exists)...
_BASE_CONFIDENCE = 0.5
# ...rising by up to this much as the share clipped reaches every step (0.95 at all of them)
_FULL_CLIP_BONUS = 0.45
# ...less this for a ceiling inferred without a logged threshold (a saturating logger looks alike)
_CEILING_PENALTY = 0.1
# no finding read from curves alone is certain
_MAX_CONFIDENCE = 0.95
# transformers.TrainingArguments.max_grad_norm's default: what an HF Trainer log was clipped at
# unless the user changed it.
TRAINER_DEFAULT_THRESHOLD = 1.0
# Median pre-clip norm / assumed default needed to call it: healthy fine-tunes reach ~5
# (DIAGNOSTICS: 0.1-5), so only a norm beyond that range is clipped whatever the recipe set.
DEFAULT_MIN_RATIO = 5.0
# Best train loss / first logged value above this: the weights never moved (plateau's chance level).
MOVED = 0.97
# The keys transformers.Trainer writes in every training log entry.
_TRAINER_KEYS = frozenset({"loss", "grad_norm", "learning_rate", "epoch"})


def threshold_metric(run: RunSeries) -> str | None:
    """The logged metric holding the clip threshold, if any: a name that says so, in any role,
    whose values are constant to 1% (a threshold is a setting; a varying series named
    `clip_grad_norm` is the norm that clip_grad_norm_ returned)."""
    names = sorted({n for role in ROLES for n in run.metrics(role)})
    for name in (n for n in names if _THRESHOLD.search(n) and not _NOT_THRESHOLD.search(n)):
        _, t = finite_curve(run, "other", name)
        if len(t) and np.median(t) > 0 and np.ptp(t) <= _CONSTANT_SHARE * np.median(t):
            return name
    return None


def is_trainer_log(run: RunSeries) -> bool:
    """A Hugging Face Trainer log: its own training-entry keys are all logged (the run's metric
    names, from its integer metric codes: no pass over the rows' strings)."""
    return _TRAINER_KEYS <= set(run.metric_codes()[1].tolist())


def _moved(loss: np.ndarray) -> bool:
    """The train loss got below MOVED of its first logged value: updates were applied."""
    return len(loss) > 1 and loss[0] > 0 and float(np.min(loss)) < MOVED * float(loss[0])


def grad_norm_metric(run: RunSeries, exclude: str | None) -> str | None:
    """The gradient norm to judge: the role's first metric that is not the threshold."""
    return next((n for n in run.metrics("grad_norm") if n != exclude), None)


def ceiling_share(g: np.ndarray) -> float:
    """Share of points within 0.1% of the maximum: a post-clip norm pinned at its threshold. A
    maximum reached once is not a ceiling (it is not repeated): 0."""
    top = float(np.max(g)) if len(g) else 0.0
    at_top = g >= top * (1 - _TOL)
    return float(np.mean(at_top)) if top > 0 and np.count_nonzero(at_top) > 1 else 0.0


def _logged_threshold(run: RunSeries, name: str) -> float:
    """A logged clip threshold's value: its median (NaN when it holds no finite point)."""
    _, t = finite_curve(run, "other", name)
    return float(np.median(t)) if len(t) else float("nan")


class OverClipping(Classifier):
    label = "over_clipping"
    needs = frozenset({"grad_norm"})
    # fewest grad norm points whose clipped share means more than a handful of steps
    min_points = 10

    def __init__(
        self,
        *,
        # share of steps at or above the threshold that makes clipping the rule, not a guard
        # against rare bursts: most of them
        min_fraction: float = 0.5,
    ) -> None:
        self.min_fraction = min_fraction

    def skip_reason(self, run: RunSeries) -> str | None:
        reason = super().skip_reason(run)
        if reason is not None and run.has("grad_norm") and self._few_but_far(run):
            return None
        if reason is not None or threshold_metric(run) is not None or is_trainer_log(run):
            return reason
        _, g = finite_curve(run, "grad_norm", grad_norm_metric(run, None))
        if ceiling_share(g) < _MIN_CEILING_SHARE or np.ptp(g) == 0:
            return (
                "no clip threshold logged (e.g. max_grad_norm) and the gradient norm never "
                "sits at a ceiling, so clipping cannot be judged"
            )
        return None

    def measure(self, run: RunSeries) -> dict | None:
        thr_name = threshold_metric(run)
        metric = grad_norm_metric(run, thr_name)
        gx, g = finite_curve(run, "grad_norm", metric, max_points=_ALL_POINTS)
        if metric is None or (len(g) < self.min_points and not self._few_but_far(run)):
            return None
        if thr_name is not None:
            thr, source = _logged_threshold(run, thr_name), "metric"
        elif ceiling_share(g) < _MIN_CEILING_SHARE and is_trainer_log(run):
            thr, source = TRAINER_DEFAULT_THRESHOLD, "trainer_default"
            _, loss = finite_curve(run, "train_loss")
            if median(g) < DEFAULT_MIN_RATIO * thr or not _moved(loss):
                return None
        else:
            thr, source = float(np.max(g)), "ceiling"
        if not np.isfinite(thr) or thr <= 0:
            return None
        clipped = g >= thr * (1 - _TOL)
        hits = np.flatnonzero(clipped)
        # every logged point (no bucketing), once: reduce.median gives np.median's number
        g_median = median(g)
        return {
            "grad_norm_metric": metric,
            "threshold_metric": thr_name,
            "threshold_source": source,
            "clip_threshold": thr,
            "clip_fraction": float(np.mean(clipped)),
            "grad_norm_median": g_median,
            "median_ratio": g_median / thr,
            **(
                {"threshold_note": "threshold assumed: the Trainer default"}
                if source == "trainer_default"
                else {}
            ),
            "first_step": int(gx[hits[0]]) if len(hits) else int(gx[0]),
            "last_step": int(gx[hits[-1]]) if len(hits) else int(gx[-1]),
        }

    def _few_but_far(self, run: RunSeries) -> bool:
        """`_FEW_POINTS` to `min_points` grad norms whose median is `_FAR_RATIO` times the
        threshold (a logged one, or the Trainer's default) or more: an effect of that size no
        handful of noisy points makes up (a norm of 3e5 on all 8 logs of a fine-tune)."""
        thr_name = threshold_metric(run)
        metric = grad_norm_metric(run, thr_name)
        _, g = finite_curve(run, "grad_norm", metric, max_points=_ALL_POINTS)
        if metric is None or not (_FEW_POINTS <= len(g) < self.min_points):
            return False
        if thr_name is not None:
            thr = _logged_threshold(run, thr_name)
        elif is_trainer_log(run):
            thr = TRAINER_DEFAULT_THRESHOLD
        else:
            return False
        return bool(np.isfinite(thr) and thr > 0 and median(g) >= _FAR_RATIO * thr)

    def judge(self, m: dict) -> Finding | None:
        if m["clip_fraction"] < self.min_fraction:
            return None
        conf = _BASE_CONFIDENCE + _FULL_CLIP_BONUS * (m["clip_fraction"] - self.min_fraction) / (
            1 - self.min_fraction
        )
        conf -= _CEILING_PENALTY * (m["threshold_source"] == "ceiling")
        where = {
            "metric": "the logged threshold",
            "trainer_default": "the Trainer's default max_grad_norm (assumed: not logged)",
        }.get(
            m["threshold_source"], "a constant ceiling (the post-clip norm pinned at the threshold)"
        )
        summary = (
            f"The gradient norm was at or above {where} of {m['clip_threshold']:.4g} on "
            f"{m['clip_fraction']:.0%} of steps (median norm "
            f"{m['grad_norm_median']:.4g})."
        )
        evidence = {k: v for k, v in m.items() if k not in ("first_step", "last_step")}
        return Finding(
            self.label,
            float(min(_MAX_CONFIDENCE, conf)),
            Span(m["first_step"], m["last_step"]),
            evidence,
            summary,
        )

    def detect(self, run: RunSeries) -> Finding | None:
        m = self.measure(run)
        return None if m is None else self.judge(m)
