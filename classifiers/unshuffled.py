"""unshuffled: a sawtooth in the training loss that repeats every epoch.

Symptom: the per-step loss traces the same shape in every epoch (data sorted by class, length
or source and never shuffled), so it rises and falls with the position inside the epoch.
Signal: signals.dominant_period of the detrended training loss (autocorrelation peak, harmonics
folded to the fundamental) and the epoch length in steps when the run says it: from an `epoch`
metric (where its integer part changes), else from the validation cadence. Running-mean metrics
(Keras `batch_*`) reset every epoch by construction and are not read.
Rule: a period of at least 4 points seen at least 3 times with autocorrelation >= 0.3 that dips
by as much in between (a bump on a slowly decaying autocorrelation is no cycle); when the epoch
length is logged (an `epoch` metric) or hinted (the validation cadence), one must be a small
multiple of the other (class blocks of equal size repeat inside the epoch; a logged epoch can
count in other units); a period that fits no logged epoch is rejected; a learning rate that
itself cycles with that period (warm restarts) vetoes the finding.
Confidence: 0.5 + 0.4 x min(1, (strength - 0.3) / 0.4), + 0.1 when the period matches the
epoch length.
Known false positives: cyclic schedules when the LR is not logged; a periodic evaluation or
checkpoint that perturbs training; deliberate curriculum cycles.
Evidence: period_steps, strength, prominence, cycles, epoch_steps, epoch_source, epoch_match.
"""

from __future__ import annotations

import re

import numpy as np

from classifiers import signals
from classifiers.base import Classifier
from classifiers.diagnosis import Finding, Span
from classifiers.run import RunSeries

_RUNNING_MEAN = re.compile(r"(^|/)batch_")
_EPOCH = re.compile(r"(^|/)epoch$")


def epoch_length(run: RunSeries) -> tuple[float | None, str | None]:
    """Steps per epoch and where it came from: an `epoch` metric (where its integer part
    changes), else the validation cadence (a hint only: some runs evaluate twice an epoch, or
    every other); (None, None) if neither says."""
    names = [m for m in run.metrics("other") if _EPOCH.search(m.lower())]
    if names:
        c = run.curve("other", names[0])
        ok = np.isfinite(c.values)
        steps, ep = c.steps[ok], np.floor(c.values[ok] + 1e-9)
        starts = steps[1:][np.diff(ep) > 0]
        if len(starts) >= 2:
            return float(np.median(np.diff(starts))), "epoch"
    val = run.curve("val_loss")
    if val is not None and len(val) >= 3:
        return float(np.median(np.diff(val.steps))), "val_cadence"
    return None, None


def _multiple(a: float, b: float) -> bool:
    """Is `a` about m x `b` for a small whole m (1..8)?"""
    return bool(np.any(np.abs(a - np.arange(1, 9) * b) <= 0.1 * b))


class Unshuffled(Classifier):
    label = "unshuffled"
    needs = frozenset({"train_loss"})
    min_points = 24

    def __init__(self, *, min_strength: float = 0.3, min_cycles: float = 3.0) -> None:
        self.min_strength = min_strength
        self.min_cycles = min_cycles

    def skip_reason(self, run: RunSeries) -> str | None:
        """Judged on the per-step series when one exists (the base counts the primary)."""
        detail = run.detailed("train_loss")
        if detail is None or len(detail) >= self.min_points:
            return None if detail is not None else super().skip_reason(run)
        return (f"training loss has {len(detail)} point(s) at its finest logging; "
                f"{self.label} needs at least {self.min_points}")

    def measure(self, run: RunSeries) -> dict | None:
        curve = run.detailed("train_loss")
        if _RUNNING_MEAN.search(curve.metric.lower()):
            return None
        x, y = signals.finite_points(curve.steps, curve.values)
        if len(y) < self.min_points:
            return None
        per = signals.loss_cycle(x, y, self.min_cycles)
        if per.period == 0:
            return None
        period_steps = per.period
        epoch, source = epoch_length(run)
        # the epoch, or equal class blocks inside it (epoch ~ m x period), or a few epochs when
        # the logged epoch counts in other units (logging every k steps, accumulation)
        match = bool(epoch) and (_multiple(epoch, period_steps) or _multiple(period_steps, epoch))
        ev = {"period_steps": period_steps, "strength": per.strength, "cycles": per.cycles,
              "prominence": per.prominence, "epoch_steps": epoch, "epoch_source": source,
              "metric": curve.metric,
              "epoch_match": match,
              "first_step": int(x[0]), "last_step": int(x[-1])}
        ev["lr_cycles"] = self._lr_cycles(run, period_steps)
        return ev

    def _lr_cycles(self, run: RunSeries, period_steps: float) -> bool:
        """Does the learning rate repeat with (about) the same period?"""
        lr = run.curve("lr")
        if lr is None or len(lr) < self.min_points:
            return False
        lx, ly = signals.finite_points(lr.steps, lr.values)
        if len(ly) < self.min_points or np.ptp(ly) == 0:
            return False
        dx = float(np.median(np.diff(lx)))
        per = signals.dominant_period(ly, min_period=4, max_period=len(ly) // 2)
        return per.strength > 0.5 and abs(per.period * dx - period_steps) < 0.15 * period_steps

    def judge(self, ev: dict) -> Finding:
        over = (ev["strength"] - self.min_strength) / 0.4
        confidence = min(0.95, 0.5 + 0.4 * min(1.0, over) + 0.1 * ev["epoch_match"])
        where = (f"the epoch length ({ev['epoch_steps']:.0f} steps)" if ev["epoch_match"]
                 else "no logged epoch length")
        summary = (f"Training loss repeats a sawtooth every {ev['period_steps']:.0f} steps "
                   f"(autocorrelation {ev['strength']:.2f}, {ev['cycles']:.0f} cycles), "
                   f"matching {where}: the data order looks fixed.")
        return Finding(self.label, float(confidence), Span(ev["first_step"], ev["last_step"]),
                       ev, summary)

    def detect(self, run: RunSeries) -> Finding | None:
        ev = self.measure(run)
        if ev is None or ev["lr_cycles"] or ev["strength"] < self.min_strength \
                or ev["prominence"] < self.min_strength or ev["cycles"] < self.min_cycles:
            return None
        if ev["epoch_source"] == "epoch" and not ev["epoch_match"]:
            return None
        return self.judge(ev)
