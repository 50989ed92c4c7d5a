"""loss_spikes: short upward spikes in the loss that recover.

Symptom: the training (or validation) loss jumps well above its recent level for a few points
and comes back down.
Signal: signals.find_spikes on each loss curve (in log scale when positive): a point (or a
block maximum on long series) above the median of the preceding window by many noise sigmas;
an excursion counts when it came back to within half its height.
A curve of 5 to 7 points (`_FULL_POINTS`, 8) is read for a jump to 10x the level before it
only: so few points cannot show the noise an ordinary jump is judged against, but no noise of
theirs makes an order of magnitude (a Keras log of 7 epochs whose val loss went 0.33 -> 789).
Rule: at least one recovered excursion that is large in absolute terms: for positive losses at
least 50% above the level before it (ln ratio >= `min_rise_log`, 0.4) and _MIN_LINEAR_SHARE
(5%) of the curve's range, otherwise at least `min_range_share` (30%) of the curve's robust
range and _MIN_LINEAR_SHARE of its whole span (a loss pinned at zero, a head with no targets,
has a robust range of about zero too, against which any blip is huge); and at least `z_min`
(6) noise sigmas, both of the whole curve and of the points around
it (classifiers/_spikes.py: a loss near its floor jitters more late in training; a positive
loss's jump to 10x the level before it, `_HUGE_RISE_LOG`, needs only the first: jitter is tens
of percent, and blow-ups that come in a cluster inflate each other's local noise). The whole
curve's noise of a log under `_FULL_POINTS` is read without the inner points 10x above both
neighbours (`_spikes.noise_beside_jumps`): recurring on so short a log, such jumps make most of
its first differences and would hide in each other's noise (on a longer log, a per-step loss
near its floor jitters by such factors, and that is its noise). Jumps after the run blew up (its
trailing level back to where it started, 90% of its progress given back) for good, never to come
back to a trained level, are the divergence's, which exploding reports; a blow-up the run comes back
from is an excursion, a spike. Jumps that belong to a cycle are not bad batches (unshuffled data, a
logger's reset): _MIN_EVEN_JUMPS (4) or more evenly spaced (within _EVEN_GAP_TOLERANCE, 5%), a curve
whose autocorrelation shows a clear period, or, with a known epoch length, a curve that traces the
same shape every epoch (both as unshuffled reads them), when the loss stays raised for at least
`spike_width` (8%) of that period (classifiers._spikes.excursion_width: a sawtooth's share). A
narrower excursion that recurs, even at a fixed interval, is a bad batch that recurs: still spikes.
The jumps' own full width at half height, as plotted (linear, from the median of the `_OWN_BEFORE`
points before each), is read first: under `spike_width` of the period they are spikes, however a
slow recovery through orders of magnitude (a loss at 0.006 jumping to 6) widens the folded profile
when the period drifts. Heights are judged against the local noise at the curve's own logging
interval (per-step logs jitter more than per-epoch ones). A
running-mean metric (Keras `batch_*`) is not read: it smooths real spikes away. The per-step
series is read when a metric is also logged per epoch (Lightning `_step`/`_epoch`).
Confidence: _BASE_CONFIDENCE (0.55) + _PER_EXTRA_SPIKE (0.1) per spike beyond the first (up to
_EXTRA_SPIKES_CAP, +0.3) + _DOUBLED_BONUS (0.1) when the largest is more than twice its level;
validation-only spikes score _VAL_PENALTY (0.1) lower (one bad eval is weaker evidence).
Set aside: a recovered jump to 3x the level before it or more (`_ASIDE_RISE_LOG`) that only the
noise tests turned down is named under the diagnosis's `set_aside` with the jitter it sits in
(per-step batch noise near a floor), unless a finding accounts for the jumps (explains.
ACCOUNTED_SIGNS: an oscillating run's swings, a sawtooth's edges).
Known false positives: a logger's running mean resetting each epoch; a deliberate
learning-rate restart (SGDR), whose loss bumps recover; evaluation on a changing subset.
Evidence: series, metric, count, spike_steps (first _LISTED_SPIKES, 20), first_step and
last_step (of the first and last spike), max_rise_ratio, max_z.
"""

from __future__ import annotations

import re

import numpy as np
from lossforensics.classifiers import _spikes, signals
from lossforensics.classifiers._curve_noise import curve_noise
from lossforensics.classifiers._epochs import epoch_fold, epoch_length
from lossforensics.classifiers.base import Classifier
from lossforensics.classifiers.diagnosis import Finding, Span
from lossforensics.classifiers.numbers import rise, times
from lossforensics.classifiers.run import Curve, RunSeries
from lossforensics.classifiers.signals.smoothing import SMOOTH_FRAC

_RUNNING_MEAN = re.compile(r"(^|/)batch_")


def _reads_peaks(curve: Curve) -> bool:
    """Whether a curve is read on its block maxima (judged on blocks) rather than its values."""
    return curve.block > 1 and curve.peaks is not None


# a positive loss's jump must also be this share of the smoothed curve's robust range on its own
# scale: a large factor on a loss near zero (one quantum of a rounded log) is not a bad batch
_MIN_LINEAR_SHARE = 0.05
# ln ratios are capped here before exp: float64 overflows past about 709
_MAX_LOG_RATIO = 700.0
# the local noise is read in a twentieth of the run on each side of a candidate...
_NOISE_WINDOW_PER_RUN = 20
# ...but at least this many points (a short run still needs a noise estimate)...
_NOISE_HALF_MIN = 5
# ...and at most this many (the noise where it happened, not over a long stretch of training)
_NOISE_HALF_MAX = 50
# the evidence lists at most this many spike steps (enough to find them on the chart)
_LISTED_SPIKES = 20
# a recovered jump to 10x the level before it (ln 10) needs no local noise test: a loss near its
# floor jitters by tens of percent, not by an order of magnitude
_HUGE_RISE_LOG = float(np.log(10.0))

# _cyclic: this many jumps or more, evenly spaced, make a period (three can be even by chance)
_MIN_EVEN_JUMPS = 4
# ...evenly spaced: every gap within this share of the median gap (logging jitter, not a cycle's)
_EVEN_GAP_TOLERANCE = 0.05
# _cyclic: a curve repeats itself when its autocorrelation at the period is at least this strong
# (as unshuffled reads a cycle: weaker peaks come from noise and slow trends)...
_CYCLE_STRENGTH = 0.3
# ...and that peak this far above the lowest autocorrelation at a shorter lag (a clear period,
# not the shoulder of a slow trend)
_CYCLE_PROMINENCE = 0.3
# cycles (or epochs) a repetition must span: fewer is not evidence of a period
_MIN_CYCLES = 3
# _cyclic, known epoch length: the share of the loss's wiggle the position in the epoch must
# explain for the curve to trace the same shape every epoch (as unshuffled reads an epoch fold)
_EPOCH_SHARE = 0.3
# ...with an F-test p-value below this: a shape that chance folds into the epoch less than once
# in a thousand runs
_EPOCH_P = 1e-3

# set_aside: a recovered jump to 3x the level before it or more is one a user sees on the chart;
# when the noise tests turn it down, the diagnosis says so
_ASIDE_RISE_LOG = float(np.log(3.0))
# ... found as candidates from 1 noise sigma up (the 3x floor does the screening)
_ASIDE_Z_FLOOR = 1.0

# a curve of 8 points or more has noise enough to judge an ordinary jump by; a shorter one only
# an order-of-magnitude jump
_FULL_POINTS = 8

# judge: confidence of one clear recovered spike: more likely than not, weaker than a blow-up
_BASE_CONFIDENCE = 0.55
# ...plus this for every spike beyond the first (a recurring bad batch is surer than one)...
_PER_EXTRA_SPIKE = 0.1
# ...up to this much in all
_EXTRA_SPIKES_CAP = 0.3
# ...plus this when the largest more than doubled its level (no jitter does that)
_DOUBLED_BONUS = 0.1
# ...minus this for validation-only spikes (one bad eval is weaker evidence than a bad batch)
_VAL_PENALTY = 0.1
# no finding read from a curve alone is certain
_MAX_CONFIDENCE = 0.95


def _read_points(curve: Curve) -> tuple[np.ndarray, np.ndarray]:
    """The finite (steps, values) a curve's spikes are read on: its block maxima when it is
    judged on blocks (a spike is a point or two high, which a block's mean divides by the block
    size while its maximum keeps), else its values."""
    peaks = curve.peaks if _reads_peaks(curve) else None
    return signals.finite_points(curve.steps, curve.values if peaks is None else peaks)


def _local_z(ly: np.ndarray, sp: signals.Spikes, positive: bool) -> np.ndarray:
    """Each candidate's height in sigmas of the noise around it (_spikes.local_noise, over a
    twentieth of the run on each side, 5 to 50 points); infinite for a positive loss's jump to
    10x the level before it (`_HUGE_RISE_LOG`), which no jitter makes and which a cluster of
    blow-ups would otherwise hide in each other's noise."""
    half = max(_NOISE_HALF_MIN, min(_NOISE_HALF_MAX, len(ly) // _NOISE_WINDOW_PER_RUN))
    z = sp.heights / np.maximum(_spikes.local_noise(ly, sp.indices, half), signals.TINY)
    return np.where(positive & (sp.heights >= _HUGE_RISE_LOG), np.inf, z)


def _own_width(x: np.ndarray, y: np.ndarray, idx: np.ndarray) -> float:
    """The median width, in steps, of the excursions starting at `idx`: how long the loss
    stays above half of each jump over the level just before it (the median of the
    `_OWN_BEFORE` points before the jump), at full width, half height, as the curve is plotted:
    in log terms a recovery through orders of magnitude would look far wider than it is."""
    ly = y
    widths = []
    for k in idx:
        base = float(np.median(ly[max(0, k - _OWN_BEFORE) : k])) if k else float(ly[0])
        half = base + 0.5 * (float(ly[k]) - base)
        below = np.flatnonzero(ly[k:] <= half)
        end = k + (int(below[0]) if len(below) else len(ly) - k)
        widths.append(float(x[min(end, len(x) - 1)] - x[k]))
    return float(np.median(widths)) if widths else float("inf")


# a jump's own width is read against the level of the 5 points before it (one is too noisy)
_OWN_BEFORE = 5


class LossSpikes(Classifier):
    label = "loss_spikes"
    needs = frozenset({"train_loss"})
    # fewest points that have a before, a spike and an after: under `_FULL_POINTS` only a jump
    # to 10x the level before (`_HUGE_RISE_LOG`) is read, which no noise of so few points makes
    min_points = 5

    def __init__(
        self,
        *,
        # noise sigmas a spike must clear, of the whole curve and locally: batch noise reaches
        # 3-4 sigmas over a long run, a bad batch far more
        z_min: float = 6.0,
        # a positive loss's jump must be at least this ln ratio (50% above the level before it):
        # smaller rises are ordinary batch noise on a visible scale
        min_rise_log: float = 0.4,
        # a loss that can be zero or negative: the jump must be this share of the robust range
        min_range_share: float = 0.3,
        spike_width: float = _spikes.SPIKE_WIDTH,
    ) -> None:
        self.z_min = z_min
        self.min_rise_log = min_rise_log
        self.min_range_share = min_range_share
        self.spike_width = spike_width

    def measure_curve(
        self,
        curve: Curve,
        epoch: float | None = None,
        *,
        level: np.ndarray | None = None,
        noise: float | None = None,
    ) -> dict | None:
        """The recovered, large excursions of one curve; None when there are none. `level` is
        the curve's smoothed level and `noise` its noise (_curve_noise.curve_noise) when the
        caller has them (the run's, kept with it).
        A curve judged on blocks (over JUDGED_POINTS points) is read on its block maxima: a
        spike is a point or two high, which a block's mean divides by the block size while its
        maximum keeps; the other blocks' maxima set the local noise the spike must beat."""
        x, y = _read_points(curve)
        if len(y) < self.min_points:
            return None
        positive = signals.all_positive(y)
        # positive losses are read in log scale: a jump is a factor, and the noise it must beat
        # is the curve's own relative noise (a loss near zero jitters by large factors)
        ly = np.log(y) if positive else y
        if positive and len(y) < _FULL_POINTS:
            # a short log's tenfold jumps are judged against the noise of the points beside
            # them, not of themselves: recurring, they make most of its point-to-point steps
            # (on a longer log a loss near its floor jitters by such factors: its noise)
            beside = _spikes.noise_beside_jumps(ly, _HUGE_RISE_LOG)
            noise = beside if beside is not None else noise
        sp = signals.find_spikes(ly, z_min=self.z_min, noise=noise)
        if not len(sp):
            return None
        level = signals.smooth(x, y)[1] if level is None else level
        if positive:
            rise = sp.heights
            # ...and it must matter on the curve's own scale (not one quantum of a rounded log)
            linear = np.expm1(np.minimum(rise, _MAX_LOG_RATIO)) * np.exp(sp.before)
            big = (rise >= self.min_rise_log) & (
                linear >= _MIN_LINEAR_SHARE * signals.robust_range(level)
            )
        else:
            rise = sp.heights / signals.scale(level)
            # ...and a share of the whole curve's span: a loss pinned at zero (a head with no
            # targets) jitters by blips that its robust range, about zero too, makes huge
            big = (rise >= self.min_range_share) & (sp.heights >= _MIN_LINEAR_SHARE * np.ptp(y))
        keep = big & sp.recovered
        if not keep.any():  # the costlier tests below only ever turn a candidate down
            return None
        # the noise where it happened (a loss near its floor jitters more, late), and not a jump
        # of a run that had already blown up (exploding's, not a bad batch's)
        local_z = _local_z(ly, sp, positive)
        keep &= local_z >= self.z_min
        if len(y) < _FULL_POINTS:
            keep &= np.isinf(local_z)  # only a tenfold jump: too few points to judge the rest
        if not keep.any():
            return None
        # (judged as factors: a signed log when the loss can be zero or negative)
        keep &= ~_spikes.diverged(
            x, ly if positive else signals.safe_log(y), x[sp.indices], self.min_rise_log
        )
        idx = sp.indices[keep]
        if not len(idx) or self._cyclic(x, y, idx, epoch):
            return None
        return {
            "metric": curve.metric,
            "count": int(keep.sum()),
            "spike_steps": [int(s) for s in x[idx][:_LISTED_SPIKES]],
            "max_rise_ratio": float(
                np.expm1(min(rise[keep].max(), _MAX_LOG_RATIO)) if positive else rise[keep].max()
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
        if len(idx) >= _MIN_EVEN_JUMPS and np.all(
            np.abs(gaps - np.median(gaps)) <= _EVEN_GAP_TOLERANCE * np.median(gaps)
        ):
            periods.append(float(np.median(gaps)))
        per = signals.loss_cycle(x, y)  # spikes shaved off: they are what is being judged
        if (
            per.strength >= _CYCLE_STRENGTH
            and per.prominence >= _CYCLE_PROMINENCE
            and per.cycles >= _MIN_CYCLES
        ):
            periods.append(float(per.period))
        if epoch:
            out = np.ones(len(y), dtype=bool)
            out[np.clip((idx[:, None] + np.arange(-1, 2)).ravel(), 0, len(y) - 1)] = False
            share, p, epochs = epoch_fold(x[out], y[out], epoch)
            if share >= _EPOCH_SHARE and p < _EPOCH_P and epochs >= _MIN_CYCLES:
                periods.append(float(epoch))
        if not periods:
            return False
        # the jumps' own widths first: a bad batch's excursion is narrow however its recovery
        # tail smears the folded profile when the period drifts by a few steps
        if _own_width(x, y, idx) < self.spike_width * min(periods):
            return False
        residual = _spikes.trend_residual(x, y)  # one trend-free curve for every period folded
        return any(
            not _spikes.excursion_width(x, y, period, residual=residual) < self.spike_width
            for period in periods
        )

    def measure(self, run: RunSeries) -> dict | None:
        found = []
        epoch = epoch_length(run)[0]
        for series, role in (("train", "train_loss"), ("val", "val_loss")):
            curve = run.detailed(role)
            if curve is None or _RUNNING_MEAN.search(curve.metric.lower()):
                continue  # a running mean turns a spike into a slow decay: nothing to read
            # the full window at any length: a spike is judged against the level around it
            level = run.smoothed(role, SMOOTH_FRAC, per_step=True)[1]
            noise = curve_noise(run, curve, peaks=_reads_peaks(curve))  # plateau's, on train
            ev = self.measure_curve(curve, epoch, level=level, noise=noise)
            if ev is None:
                continue
            found.append({"series": series, **ev})
        if not found:
            return None
        return max(found, key=lambda e: (e["count"] * e["max_rise_ratio"], e["series"] == "train"))

    def judge(self, ev: dict) -> Finding:
        confidence = (
            _BASE_CONFIDENCE
            + min(_EXTRA_SPIKES_CAP, _PER_EXTRA_SPIKE * (ev["count"] - 1))
            + _DOUBLED_BONUS * (ev["max_rise_ratio"] > 1)
            - _VAL_PENALTY * (ev["series"] == "val")
        )
        summary = (
            f"{ev['count']} spike(s) in the {ev['series']} loss ({ev['metric']}) that "
            f"recovered; the largest rose {rise(ev['max_rise_ratio'])} the level before it."
        )
        return Finding(
            self.label,
            float(min(confidence, _MAX_CONFIDENCE)),
            Span(ev["first_step"], ev["last_step"]),
            ev,
            summary,
        )

    def set_aside(self, run: RunSeries) -> str | None:
        """Recovered jumps to `_ASIDE_RISE_LOG` (3x) the level before or more that the noise
        tests turned down (under `z_min` sigmas of the curve's noise, or of the noise around
        them): the largest, and how many. Jumps turned down for other reasons are other
        findings' evidence (a blow-up's, a sawtooth's)."""
        notes = []
        for series, role in (("train", "train_loss"), ("val", "val_loss")):
            curve = run.detailed(role)
            if curve is not None and not _RUNNING_MEAN.search(curve.metric.lower()):
                notes.append(self._jumps_in_noise(run, curve, series))
        kept = [n for n in notes if n]
        return "; ".join(kept) if kept else None

    def _jumps_in_noise(self, run: RunSeries, curve: Curve, series: str) -> str:
        """One curve's part of set_aside ('' when it has no such jump)."""
        x, y = _read_points(curve)
        if len(y) < self.min_points or not signals.all_positive(y):
            return ""
        ly = np.log(y)
        noise = curve_noise(run, curve, peaks=_reads_peaks(curve))
        sp = signals.find_spikes(ly, z_min=_ASIDE_Z_FLOOR, min_height=_ASIDE_RISE_LOG, noise=noise)
        big = sp.recovered & (sp.heights >= _ASIDE_RISE_LOG) if len(sp) else np.array([], bool)
        if not big.any():
            return ""
        local_z = _local_z(ly, sp, positive=True)
        quiet = big & (np.minimum(sp.z, local_z) < self.z_min)
        quiet &= ~_spikes.diverged(x, ly, x[sp.indices], self.min_rise_log)
        if not quiet.any():
            return ""
        i = int(np.argmax(np.where(quiet, sp.heights, -np.inf)))
        more = int(quiet.sum()) - 1
        z = float(min(sp.z[i], local_z[i]))
        sigma = float(sp.heights[i]) / max(z, signals.TINY)  # the noise it was judged by (log)
        return (
            f"the {series} loss ({curve.metric}) jumped to {times(float(np.exp(sp.heights[i])))} "
            f"the level before it at step {int(x[sp.indices[i]])}"
            + (f" (and {more} more time(s) by 3x or more)" if more else "")
            + f" and came back, but its points there jitter by a factor of "
            f"{float(np.exp(sigma)):.2g} from one to the next (a noise sigma), so the jump is "
            f"{z:.1f} sigmas, short of the {self.z_min:g} a bad batch clears: batch noise at "
            "this logging interval, not a bad batch"
        )

    def detect(self, run: RunSeries) -> Finding | None:
        ev = self.measure(run)
        return None if ev is None else self.judge(ev)
