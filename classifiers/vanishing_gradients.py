"""vanishing_gradients: the gradient norm decays toward zero while the loss stalls.

Symptom: the global grad norm falls by orders of magnitude from its early level and the loss
stops moving; typical of saturating activations, deep stacks without residuals or
normalisation, or a bad initialisation.
Signal read: the primary grad norm, as bucket medians (non-positive values floored at TINY): its
level at initialisation (median of the first _INIT_SHARE, 0.5%, at least 3 points) against its
late level (median of the last _LATE_SHARE, 20%), in orders of magnitude; the step where its
smoothed level first fell `min_orders` below the initial one (the onset); the train loss from
the onset to the end.
Rule: the grad norm lost at least `strong_orders` orders of magnitude, or at least `min_orders`
with the collapse in the first half of the run and the loss having removed at most
`weak_progress` of its starting level (a deep saturating net stuck near its initial loss); and
from the onset on the loss improved by at most `stall` of its whole improvement (or by no more
than _STALL_Z (3) standard errors, unless it lost over _MOVED_REL (half) of its level, or by no
more than _STALL_REL (2%) of its level) and did not blow up, while
it is not near zero at the onset or the end (a loss that reached ~0 legitimately has ~0
gradients).
Early collapse: a deep saturating net's norm often falls only 3-10x (the head soaks up the first
updates, then the body's gradients are all that is left), as a healthy run's does while its loss
falls; what separates them is timing and the loss. So a fall of `collapse_orders` from the early
peak (the largest smoothed level in the first 10%) that is reached within the first
`collapse_by` of the run and held to the end (the late level), while the loss over the whole run
removed at most `weak_progress` of its start, fires too (the blow-up and near-zero exclusions
still apply), so long as the loss did not keep improving after the norm's fall of `min_orders`
(the stall test above, asked of every reading: a norm that settles early beside a loss still
falling steadily is a fine-tune's start-up). A healthy run's norm quietens gradually as its loss
falls by well over half.
Confidence: _BASE_CONFIDENCE (0.45) at `min_orders`, +_PER_ORDER (0.2) per further order, capped
at 0.95; an early collapse of under `min_orders` reads _EARLY_COLLAPSE_CONFIDENCE (0.4).
Evidence: grad_norm_decay (initial / late grad norm), grad_norm_orders, grad_norm_early,
grad_norm_late, onset_step, onset_fraction, loss_progress (share of the starting loss removed),
loss_at_onset, loss_end, loss_gain_after (share of the run's loss improvement made after the
onset; loss_gain_after_z and loss_gain_after_rel the same gain in standard errors and relative
to the level), collapse_orders (early peak / late level, in orders), collapse_step,
collapse_fraction, grad_norm_peak, loss_at_collapse, loss_start, grad_norm_metric.
Known false positives: a model that has truly converged on a full-batch objective (the gradient
does vanish there); a grad norm logged after a scaling that shrinks over time (an fp16 loss
scale left in the logged value); on the early-collapse path, a fine-tune whose norm carries a
start-up transient lasting over 5% of the log (3x its settled level) while its loss, starting
near its best, has little to remove (no real run in the labelled set does this; unmeasured).
Known misses: a sparse log whose first point already follows most of the collapse (one high
point is smoothed away as a spike).
"""

from __future__ import annotations

import numpy as np
from lossforensics.classifiers._align import finite_curve, leading_median
from lossforensics.classifiers.base import Classifier
from lossforensics.classifiers.diagnosis import Finding, Span
from lossforensics.classifiers.run import RunSeries
from lossforensics.classifiers.signals import (
    TINY,
    head_level,
    noise_level,
    odd_window,
    rolling_median,
    tail_level,
)

# grad norms are compared in orders of magnitude: log10 levels, turned back with this base
_DECADE = 10
# the level at initialisation: median of the first 0.5% of the grad norm log (before the
# collapse, which can take only a few percent of the run)...
_INIT_SHARE = 0.005
# ...and of at least this many points, so one odd first step does not set it
_INIT_MIN_POINTS = 3
# the late level: median of the last fifth (where a stuck run sits, not a single low point)
_LATE_SHARE = 0.2
# the grad norm is smoothed by a rolling median over 5% of the run before the onset and the early
# peak are read: spikes of a few steps must not count as a fall or a peak...
_SMOOTH_SHARE = 0.05
# ...over at least this many points
_SMOOTH_MIN_POINTS = 3
# the early peak is the largest smoothed level in the first tenth of the run (the head's start-up
# transient included)...
_PEAK_PER_RUN = 10
# ...or in at least this many points
_PEAK_MIN_POINTS = 3
# the loss's start, end and level at the onset are medians of a twentieth of its points...
_LOSS_LEVEL_PER_RUN = 20
# ...and of at least this many (a level, not one noisy point)
_LOSS_LEVEL_MIN_POINTS = 3
# a median of k points has a standard error about sqrt(pi / 2) = 1.25 times a mean's
_MEDIAN_SE_FACTOR = 1.25
# the loss moved after the onset only if it fell by over this many standard errors (noise
# reaches 2-3 by chance)...
_STALL_Z = 3.0
# ...and by over this share of its level (a tiny real drift is still a stall)
_STALL_REL = 0.02
# a loss that lost over half its level after the onset moved, whatever the noise reads: in a
# short log the first differences are mostly trend, and their spread overstates the noise
_MOVED_REL = 0.5
# a loss that rose after the onset by over half its level blew up: exploding's, not stuck
_BLOW_UP_REL = 0.5
# judge: confidence at `min_orders` of decay: a fall of one order with a stalled loss is
# suggestive, not proof (a converged run quietens too)...
_BASE_CONFIDENCE = 0.45
# ...plus this per further order of magnitude lost
_PER_ORDER = 0.2
# an early collapse of under `min_orders`: the weakest of the calls
_EARLY_COLLAPSE_CONFIDENCE = 0.4
# no finding read from curves alone is certain
_MAX_CONFIDENCE = 0.95


class VanishingGradients(Classifier):
    label = "vanishing_gradients"
    needs = frozenset({"train_loss", "grad_norm"})
    # fewest points that have an initial level, a late level and something between
    min_points = 10

    def __init__(
        self,
        *,
        # orders of magnitude the grad norm must lose from its initial level: a healthy run's
        # norm rarely falls tenfold while its loss still has far to go
        min_orders: float = 1.0,
        # orders lost that fire whenever the loss stalled, whatever the timing and progress
        strong_orders: float = 2.0,
        # from the onset on the loss made at most this share of its whole improvement: stuck
        stall: float = 0.1,
        # a loss at or below this share of its start is near zero: small gradients are expected
        near_zero: float = 0.05,
        # the loss removed at most this share of its starting level (stuck near its initial loss)
        weak_progress: float = 0.5,
        # early collapse: orders the norm must fall from its early peak (about 3x, as a deep
        # saturating net's does when only the body's gradients are left)
        collapse_orders: float = 0.5,
        # ...reached within this share of the run (a healthy run quietens gradually, later)
        collapse_by: float = 0.25,
    ) -> None:
        self.min_orders = min_orders
        self.strong_orders = strong_orders
        self.stall = stall
        self.near_zero = near_zero
        self.weak_progress = weak_progress
        self.collapse_orders = collapse_orders
        self.collapse_by = collapse_by

    def measure(self, run: RunSeries, *, screen: bool = False) -> dict | None:
        """With `screen`, None for a run `judge` turns down on the norm's fall and the loss's
        progress alone (under `min_orders` and a loss that progressed too far for an early
        collapse), before the norm is smoothed and the loss's noise read."""
        gx, gy = finite_curve(run, "grad_norm")
        tx, ty = finite_curve(run, "train_loss")
        if len(gy) < self.min_points or len(ty) < self.min_points:
            return None
        logg = np.log10(np.maximum(np.abs(gy), TINY))
        early, late = (
            head_level(logg, _INIT_SHARE, _INIT_MIN_POINTS),
            tail_level(logg, _LATE_SHARE),
        )  # at init; stuck
        k = max(_LOSS_LEVEL_MIN_POINTS, len(ty) // _LOSS_LEVEL_PER_RUN)
        start, end = head_level(ty, 0.0, k), tail_level(ty, 0.0, k)
        total = start - end
        progress = float(total / max(abs(start), abs(end), TINY))
        if screen and float(early - late) < self.min_orders and progress > self.weak_progress:
            return None
        smooth = rolling_median(logg, odd_window(len(logg), _SMOOTH_SHARE, lo=_SMOOTH_MIN_POINTS))
        below = np.flatnonzero(smooth <= early - self.min_orders)
        onset = float(gx[below[0]]) if len(below) else float(gx[-1])
        peak = float(
            np.max(smooth[: max(_PEAK_MIN_POINTS, len(smooth) // _PEAK_PER_RUN)])
        )  # early peak, smoothed
        fell = np.flatnonzero(smooth <= peak - self.collapse_orders)
        collapse = float(gx[fell[0]]) if len(fell) else float(gx[-1])
        span = max(gx[-1] - gx[0], TINY)
        at_onset = leading_median(tx, ty, onset - 0.5, k)  # from the onset on (epoch logs)
        at_onset = at_onset if np.isfinite(at_onset) else end
        at_collapse = leading_median(tx, ty, collapse - 0.5, k)
        at_collapse = at_collapse if np.isfinite(at_collapse) else end
        se = _MEDIAN_SE_FACTOR * max(noise_level(ty), TINY) * np.sqrt(2.0 / k)
        return {
            "grad_norm_metric": run.primary("grad_norm"),
            "grad_norm_early": float(_DECADE**early),
            "grad_norm_late": float(_DECADE**late),
            "grad_norm_orders": float(early - late),
            "grad_norm_decay": float(_DECADE ** (early - late)),
            "onset_step": int(onset),
            "end_step": int(max(gx[-1], tx[-1])),
            "onset_fraction": float((onset - gx[0]) / span),
            "collapse_orders": float(peak - late),
            "collapse_step": int(collapse),
            "collapse_fraction": float((collapse - gx[0]) / span),
            "grad_norm_peak": float(_DECADE**peak),
            "loss_at_collapse": at_collapse,
            "loss_progress": progress,
            "loss_start": start,
            "loss_at_onset": at_onset,
            "loss_end": end,
            "loss_gain_after": float((at_onset - end) / total) if total > 0 else 0.0,
            "loss_gain_after_z": float((at_onset - end) / se),
            "loss_gain_after_rel": float((at_onset - end) / max(abs(at_onset), abs(end), TINY)),
        }

    def _collapsed_early(self, m: dict) -> bool:
        """A fall of `collapse_orders` from the early peak, reached in the first `collapse_by`
        of the run and held, with the loss never getting far from its start."""
        return (
            m["collapse_orders"] >= self.collapse_orders
            and m["collapse_fraction"] <= self.collapse_by
            and m["loss_progress"] <= self.weak_progress
        )

    def _stalled(self, m: dict) -> bool:
        """From the onset on, the loss made no real progress (share, z-score or relative); a
        fall of over `_MOVED_REL` of its level needs no z-score to count."""
        return not (
            m["loss_gain_after"] > self.stall
            and (m["loss_gain_after_z"] > _STALL_Z or m["loss_gain_after_rel"] > _MOVED_REL)
            and m["loss_gain_after_rel"] > _STALL_REL
        )

    def judge(self, m: dict) -> Finding | None:
        early = self._collapsed_early(m)
        if m["grad_norm_orders"] < self.min_orders and not early:
            return None
        # one order: the collapse came early and the loss never got far from where it started
        # (a run that converged first and then quietened down has small gradients too)
        weak = m["onset_fraction"] <= 0.5 and m["loss_progress"] <= self.weak_progress
        decayed = m["grad_norm_orders"] >= self.strong_orders or weak
        # the loss's stall after the onset is asked of every reading: an early collapse of the
        # norm beside a loss that kept improving after a full order's fall is a settling norm
        if not ((early or decayed) and self._stalled(m)):
            return None
        if (
            m["loss_gain_after_rel"] < -_BLOW_UP_REL
        ):  # the loss blew up after it: exploding, not stuck
            return None
        near_zero = self.near_zero * m["loss_start"]
        if m["loss_start"] > 0 and min(m["loss_end"], m["loss_at_onset"]) <= near_zero:
            return None  # the loss reached ~0: small gradients are expected there
        conf = _BASE_CONFIDENCE + _PER_ORDER * (m["grad_norm_orders"] - self.min_orders)
        if m["grad_norm_orders"] < self.min_orders:  # only the early collapse: report that one
            conf = _EARLY_COLLAPSE_CONFIDENCE
            m = {
                **m,
                "onset_step": m["collapse_step"],
                "onset_fraction": m["collapse_fraction"],
                "loss_at_onset": m["loss_at_collapse"],
                "grad_norm_early": m["grad_norm_peak"],
                "grad_norm_decay": float(_DECADE ** m["collapse_orders"]),
            }
        summary = (
            f"The gradient norm fell {m['grad_norm_decay']:.3g}x "
            f"({m['grad_norm_early']:.3g} -> {m['grad_norm_late']:.3g}) and the loss "
            f"barely moved after step {m['onset_step']} "
            f"({m['loss_at_onset']:.4g} -> {m['loss_end']:.4g})."
        )
        evidence = {k: v for k, v in m.items() if k != "end_step"}
        return Finding(
            self.label,
            float(min(_MAX_CONFIDENCE, conf)),
            Span(m["onset_step"], m["end_step"]),
            evidence,
            summary,
        )

    def detect(self, run: RunSeries) -> Finding | None:
        m = self.measure(run, screen=True)
        return None if m is None else self.judge(m)
