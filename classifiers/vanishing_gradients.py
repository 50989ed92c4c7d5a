"""vanishing_gradients: the gradient norm decays toward zero while the loss stalls.

Symptom: the global grad norm falls by orders of magnitude from its early level and the loss
stops moving; typical of saturating activations, deep stacks without residuals or
normalisation, or a bad initialisation.
Signal read: the primary grad norm, as bucket medians (non-positive values floored at 1e-12):
its early level (median of the first 10%) against its late level (median of the last 20%), in
orders of magnitude; the step where its smoothed level first fell `min_orders` below the early
level (the onset); the train loss from the onset to the end.
Rule: the grad norm lost at least `min_orders` orders of magnitude, and over the stretch after
the onset the loss improved by at most `stall` of its whole improvement (or by no more than 3
noise sigmas), while it is not near zero (a loss that reached ~0 legitimately has ~0 gradients).
Confidence: 0.5 at `min_orders`, +0.2 per further order, capped at 0.95.
Evidence: grad_norm_decay (early / late grad norm), grad_norm_orders, grad_norm_early,
grad_norm_late, onset_step, loss_at_onset, loss_end, loss_gain_after (share of the run's loss
improvement made after the onset).
Known false positives: a model that has truly converged on a full-batch objective (the gradient
does vanish there); a grad norm logged after a scaling that shrinks over time (an fp16 loss
scale left in the logged value).
"""

from __future__ import annotations

import numpy as np

from classifiers._align import finite_curve, trailing_median
from classifiers.base import Classifier
from classifiers.diagnosis import Finding, Span
from classifiers.run import RunSeries
from classifiers.signals import (
    TINY,
    head_level,
    noise_level,
    odd_window,
    rolling_median,
    tail_level,
)


class VanishingGradients(Classifier):
    label = "vanishing_gradients"
    needs = frozenset({"train_loss", "grad_norm"})
    min_points = 10

    def __init__(self, *, min_orders: float = 2.0, stall: float = 0.1,
                 near_zero: float = 0.05) -> None:
        self.min_orders = min_orders
        self.stall = stall
        self.near_zero = near_zero

    def measure(self, run: RunSeries) -> dict | None:
        gx, gy = finite_curve(run, "grad_norm")
        tx, ty = finite_curve(run, "train_loss")
        if len(gy) < self.min_points or len(ty) < self.min_points:
            return None
        logg = np.log10(np.maximum(np.abs(gy), 1e-12))
        early, late = head_level(logg, 0.1), tail_level(logg, 0.2)
        smooth = rolling_median(logg, odd_window(len(logg), 0.05, lo=3))
        below = np.flatnonzero(smooth <= early - self.min_orders)
        onset = float(gx[below[0]]) if len(below) else float(gx[-1])
        k = max(3, len(ty) // 20)
        start, end = head_level(ty, 0.0, k), tail_level(ty, 0.0, k)
        at_onset = trailing_median(tx, ty, onset, k)
        at_onset = at_onset if np.isfinite(at_onset) else start
        total = start - end
        return {
            "grad_norm_metric": run.primary("grad_norm"),
            "grad_norm_early": float(10 ** early), "grad_norm_late": float(10 ** late),
            "grad_norm_orders": float(early - late),
            "grad_norm_decay": float(10 ** (early - late)),
            "onset_step": int(onset), "end_step": int(max(gx[-1], tx[-1])),
            "loss_start": start, "loss_at_onset": at_onset, "loss_end": end,
            "loss_gain_after": float((at_onset - end) / total) if total > 0 else 0.0,
            "loss_gain_after_z": float((at_onset - end) / max(noise_level(ty), TINY)),
        }

    def judge(self, m: dict) -> Finding | None:
        if m["grad_norm_orders"] < self.min_orders:
            return None
        if m["loss_gain_after"] > self.stall and m["loss_gain_after_z"] > 3.0:
            return None
        if m["loss_start"] > 0 and m["loss_end"] <= self.near_zero * m["loss_start"]:
            return None  # the loss reached ~0: small gradients are expected there
        conf = 0.5 + 0.2 * (m["grad_norm_orders"] - self.min_orders)
        summary = (f"The gradient norm fell {m['grad_norm_decay']:.3g}x "
                   f"({m['grad_norm_early']:.3g} -> {m['grad_norm_late']:.3g}) and the loss "
                   f"barely moved after step {m['onset_step']} "
                   f"({m['loss_at_onset']:.4g} -> {m['loss_end']:.4g}).")
        evidence = {k: v for k, v in m.items() if k != "end_step"}
        return Finding(self.label, float(min(0.95, conf)), Span(m["onset_step"], m["end_step"]),
                       evidence, summary)

    def detect(self, run: RunSeries) -> Finding | None:
        m = self.measure(run)
        return None if m is None else self.judge(m)
