"""oscillating: large swings around a trend that barely moves.

Symptom: the training loss keeps going up and down by a large fraction of its level while its
trend makes little progress.
Signal: the training loss's rolling-median trend (window an eighth of the run, at least 9
points) and the residual around it; the swing is the median |residual|; the trend's movement is
the change between its first and last fifth. Long series are reduced to bucket medians first.
Rule: for positive losses the swing is at least 10% of the trend's level and the trend moved
less than 30% of its starting level; for losses that can be zero or negative, the swing is at
least 40% of the trend's movement and of 10% of its robust range. A loss that blows up at the
end (ends non-finite, or its last tenth is above 3x its level) is exploding, not swinging.
Needs 30 points on the per-step series (epoch averages hide the swings).
Confidence: 0.55 + 0.3 x min(1, (swing ratio - threshold) / threshold) + 0.1 when the trend
moved less than 10%.
Known false positives: a healthy run with very small batches whose per-step loss is noisy and
that has already converged (noise, not oscillation: the swings are uncorrelated); a run
alternating between data sources on purpose.
Evidence: swing_ratio, trend_move, amplitude_ratio, level, lag1 (residual autocorrelation).
"""

from __future__ import annotations

import numpy as np
from lossforensics.classifiers import signals
from lossforensics.classifiers.base import Classifier
from lossforensics.classifiers.diagnosis import Finding, Span
from lossforensics.classifiers.run import RunSeries


class Oscillating(Classifier):
    label = "oscillating"
    needs = frozenset({"train_loss"})
    min_points = 30
    per_step = True

    def __init__(self, *, min_swing: float = 0.10, max_move: float = 0.3) -> None:
        self.min_swing = min_swing
        self.max_move = max_move

    def measure(self, run: RunSeries) -> dict | None:
        curve = run.detailed("train_loss")
        if curve is None:
            return None
        x, y = signals.finite_points(curve.steps, curve.values)
        if len(y) < self.min_points:
            return None
        xb, yb = signals.bucket(x, y, 4000, "median")
        trend = signals.rolling_median(yb, max(9, len(yb) // 8) | 1)
        res = yb - trend
        swing = float(np.median(np.abs(res)))
        first, last = signals.head_level(trend, 0.2), signals.tail_level(trend, 0.2)
        move = abs(first - last)
        positive = signals.all_positive(yb)
        level = float(np.median(np.abs(trend)))
        lag1 = float(signals.autocorrelation(res, 1)[1]) if np.any(res) else 0.0
        # a loss that blows up at the end (or turns NaN) is exploding, not swinging
        blew_up = not np.isfinite(curve.values[-1]) or (
            positive and signals.tail_level(trend, 0.1) > 3 * level
        )
        return {
            "points": len(y),
            "swing": swing,
            "level": level,
            "positive": positive,
            "swing_ratio": swing / max(level, 1e-12)
            if positive
            else swing / max(signals.robust_range(trend), 1e-12),
            "trend_move": move / max(abs(first), 1e-12) if positive else None,
            "amplitude_ratio": swing / max(move, 1e-12),
            "lag1": lag1,
            "blew_up": blew_up,
            "first_step": int(x[0]),
            "last_step": int(x[-1]),
        }

    def oscillates(self, ev: dict) -> bool:
        if ev["blew_up"]:
            return False
        if ev["positive"]:
            return ev["swing_ratio"] >= self.min_swing and ev["trend_move"] < self.max_move
        return ev["amplitude_ratio"] >= 0.4 and ev["swing_ratio"] >= 0.1

    def judge(self, ev: dict) -> Finding:
        if ev["positive"]:
            over = (ev["swing_ratio"] - self.min_swing) / self.min_swing
            calm = ev["trend_move"] < 0.1
        else:
            over, calm = ev["amplitude_ratio"] - 0.4, False
        confidence = min(0.95, 0.55 + 0.3 * min(1.0, over) + 0.1 * calm)
        summary = f"Training loss swings by about {ev['swing']:.3g} around its trend " + (
            f"({ev['swing_ratio']:.0%} of its level) while the trend moved {ev['trend_move']:.0%}."
            if ev["positive"]
            else f"({ev['amplitude_ratio']:.1f}x the trend's total movement)."
        )
        return Finding(
            self.label, float(confidence), Span(ev["first_step"], ev["last_step"]), ev, summary
        )

    def detect(self, run: RunSeries) -> Finding | None:
        ev = self.measure(run)
        if ev is None or not self.oscillates(ev):
            return None
        return self.judge(ev)
