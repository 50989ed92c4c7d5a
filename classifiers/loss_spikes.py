"""loss_spikes: short upward spikes in the loss that recover.

Symptom: the training (or validation) loss jumps well above its recent level for a few points
and comes back down.
Signal: signals.find_spikes on each loss curve (in log scale when positive): a point (or a
block maximum on long series) above the median of the preceding window by many noise sigmas;
an excursion counts when it came back to within half its height.
Rule: at least one recovered excursion that is large in absolute terms: for positive losses at
least 50% above the level before it (ln ratio >= 0.4) and 5% of the curve's range, otherwise
at least 30% of the curve's robust range; and at least 6 noise sigmas, both of the whole curve
and of the points around it (classifiers/_spikes.py: a loss near its floor jitters more late in
training). Jumps after the run blew up (its trailing level back to where it started, 90% of its
progress given back) are the divergence's, which exploding reports. Jumps that belong to a
cycle are not bad batches (unshuffled data, a logger's reset): 4 or more evenly spaced (within
5%), a curve whose autocorrelation shows a clear period, or, with a known epoch length, a
curve that traces the same shape every epoch (both as unshuffled reads them), when the loss
stays raised for at least `spike_width` (8%) of that period (classifiers._spikes.
excursion_width: a sawtooth's share). A narrower excursion that recurs, even at a fixed
interval, is a bad batch that recurs: still spikes. Heights are judged against the local
noise at the curve's own logging interval (per-step logs jitter more than per-epoch ones). A
running-mean metric (Keras `batch_*`) is not read: it smooths real spikes away. The per-step
series is read when a metric is also logged per epoch (Lightning `_step`/`_epoch`).
Confidence: 0.55 + 0.1 per spike beyond the first (up to +0.3) + 0.1 when the largest is more
than twice its level; validation-only spikes score 0.1 lower (one bad eval is weaker evidence).
Known false positives: a logger's running mean resetting each epoch; a deliberate
learning-rate restart (SGDR), whose loss bumps recover; evaluation on a changing subset.
Evidence: series, metric, count, spike_steps (first 20), max_rise_ratio, max_z.
"""

from __future__ import annotations

import re

import numpy as np
from lossforensics.classifiers import _spikes, signals
from lossforensics.classifiers._epochs import epoch_fold, epoch_length
from lossforensics.classifiers.base import Classifier
from lossforensics.classifiers.diagnosis import Finding, Span
from lossforensics.classifiers.run import Curve, RunSeries

_RUNNING_MEAN = re.compile(r"(^|/)batch_")


class LossSpikes(Classifier):
    label = "loss_spikes"
    needs = frozenset({"train_loss"})
    min_points = 8

    def __init__(
        self,
        *,
        z_min: float = 6.0,
        min_rise_log: float = 0.4,
        min_range_share: float = 0.3,
        spike_width: float = _spikes.SPIKE_WIDTH,
    ) -> None:
        self.z_min = z_min
        self.min_rise_log = min_rise_log
        self.min_range_share = min_range_share
        self.spike_width = spike_width

    def measure_curve(self, curve: Curve, epoch: float | None = None) -> dict | None:
        """The recovered, large excursions of one curve; None when there are none."""
        x, y = signals.finite_points(curve.steps, curve.values)
        if len(y) < self.min_points:
            return None
        positive = signals.all_positive(y)
        # positive losses are read in log scale: a jump is a factor, and the noise it must beat
        # is the curve's own relative noise (a loss near zero jitters by large factors)
        ly = np.log(y) if positive else y
        sp = signals.find_spikes(ly, z_min=self.z_min)
        if not len(sp):
            return None
        level = signals.smooth(x, y)[1]
        if positive:
            rise = sp.heights
            # ...and it must matter on the curve's own scale (not one quantum of a rounded log)
            linear = np.expm1(np.minimum(rise, 700.0)) * np.exp(sp.before)
            big = (rise >= self.min_rise_log) & (linear >= 0.05 * signals.robust_range(level))
        else:
            rise = sp.heights / signals.scale(level)
            big = rise >= self.min_range_share
        # the noise where it happened (a loss near its floor jitters more, late), and not a jump
        # of a run that had already blown up (exploding's, not a bad batch's)
        half = max(5, min(50, len(y) // 20))
        calm = sp.heights >= self.z_min * _spikes.local_noise(ly, sp.indices, half)
        # (judged as factors: a signed log when the loss can be zero or negative)
        trained = ~_spikes.diverged(
            x, ly if positive else signals.safe_log(y), x[sp.indices], self.min_rise_log
        )
        keep = big & sp.recovered & calm & trained
        idx = sp.indices[keep]
        if not len(idx) or self._cyclic(x, y, idx, epoch):
            return None
        return {
            "metric": curve.metric,
            "count": int(keep.sum()),
            "spike_steps": [int(s) for s in x[idx][:20]],
            "max_rise_ratio": float(
                np.expm1(min(rise[keep].max(), 700.0)) if positive else rise[keep].max()
            ),
            "max_z": float(sp.z[keep].max()),
            "first_step": int(x[idx[0]]),
            "last_step": int(x[idx[-1]]),
        }

    def _cyclic(self, x: np.ndarray, y: np.ndarray, idx: np.ndarray, epoch: float | None) -> bool:
        """Jumps that belong to a sawtooth (unshuffled data, a logger's reset), not to bad
        batches: a period (four or more evenly spaced jumps, a curve that repeats itself period
        after period, or, when the epoch length is known, one that traces the same shape every
        epoch, the candidates and their neighbours left out) over which the loss stays raised
        for at least `spike_width` of the period. A narrower excursion that recurs is a bad
        batch that recurs (every epoch, every N steps): still spikes."""
        periods = []
        gaps = np.diff(x[idx])
        if len(idx) >= 4 and np.all(np.abs(gaps - np.median(gaps)) <= 0.05 * np.median(gaps)):
            periods.append(float(np.median(gaps)))
        per = signals.loss_cycle(x, y)  # spikes shaved off: they are what is being judged
        if per.strength >= 0.3 and per.prominence >= 0.3 and per.cycles >= 3:
            periods.append(float(per.period))
        if epoch:
            out = np.ones(len(y), dtype=bool)
            out[np.clip((idx[:, None] + np.arange(-1, 2)).ravel(), 0, len(y) - 1)] = False
            share, p, epochs = epoch_fold(x[out], y[out], epoch)
            if share >= 0.3 and p < 1e-3 and epochs >= 3:
                periods.append(float(epoch))
        return any(
            not _spikes.excursion_width(x, y, period) < self.spike_width for period in periods
        )

    def measure(self, run: RunSeries) -> dict | None:
        found = []
        epoch = epoch_length(run)[0]
        for series, role in (("train", "train_loss"), ("val", "val_loss")):
            curve = run.detailed(role)
            if curve is None or _RUNNING_MEAN.search(curve.metric.lower()):
                continue  # a running mean turns a spike into a slow decay: nothing to read
            ev = self.measure_curve(curve, epoch)
            if ev is None:
                continue
            found.append({"series": series, **ev})
        if not found:
            return None
        return max(found, key=lambda e: (e["count"] * e["max_rise_ratio"], e["series"] == "train"))

    def judge(self, ev: dict) -> Finding:
        confidence = (
            0.55
            + min(0.3, 0.1 * (ev["count"] - 1))
            + 0.1 * (ev["max_rise_ratio"] > 1)
            - 0.1 * (ev["series"] == "val")
        )
        summary = (
            f"{ev['count']} spike(s) in the {ev['series']} loss ({ev['metric']}) that "
            f"recovered; the largest rose {ev['max_rise_ratio']:.0%} above the level "
            "before it."
        )
        return Finding(
            self.label,
            float(min(confidence, 0.95)),
            Span(ev["first_step"], ev["last_step"]),
            ev,
            summary,
        )

    def detect(self, run: RunSeries) -> Finding | None:
        ev = self.measure(run)
        return None if ev is None else self.judge(ev)
