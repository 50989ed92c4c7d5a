"""oscillating: large swings around a trend that barely moves.

Symptom: the training loss keeps going up and down by a large fraction of its level while its
trend makes little progress.
Signal: the training loss's rolling-median trend (window an eighth of the run, at least
_TREND_WINDOW_MIN, 9 points) and the residual around it; the swing is the median |residual|; the
trend's movement is the change between its first and last fifth (_ENDS_SHARE). Long series are
reduced to bucket medians first.
Rule: for positive losses the swing is at least `min_swing` (10%) of the trend's level and the
trend fell by less than `max_move` (30%) of its starting level (a trend that rose made no
progress: a loss bouncing ever higher oscillates; a blow-up bouncing at its new level is
exploding's, which explains it); for losses that can be zero or
negative, the swing is at least _MIN_AMPLITUDE (40%) of the trend's movement and
_MIN_SWING_OF_RANGE (10%) of its robust range. A loss that blows up at the end (ends
non-finite, or its last tenth is above _BLOWUP_FACTOR, 3x, its level) is exploding, not
swinging. The training loss's own swings need _TRAIN_POINTS (30) points on the per-step series
(epoch averages hide the swings). When the validation loss is logged at the training loss's
cadence (an epoch log: both once an epoch) it is a witness both ways: unstable weights evaluate
unstably, so a training loss swinging beside a validation loss whose own swing is under
_CALM_VAL_SHARE (a third) of `min_swing` is the noise of each epoch's estimate, not
oscillation; and a validation loss swinging by _VAL_SWING_SHARE (3x) `min_swing` around its
trend while the training loss's trend moved less than `max_move` oscillates, from 8 epochs on
(the short epoch logs of Keras and Lightning, too few points to judge the training loss), unless
a held-out score sat within `CONVERGED_ROOM` (5%) of its best end over its second half: a model
that gets 99.5% right swings its val loss by the confidence of a handful of examples.
A training loss whose swings did not shrink as the learning rate decayed is batch noise, not
oscillation: with the LR logged, the swing (median relative residual around the trend) over the
points trained at `_DECAYED` (a fifth) of the LR's peak or less (relative to the level for a
positive loss, absolute for one that reaches 0) is at least `_KEPT_SWING` (60%)
of the swing over the points trained at `_NEAR_PEAK` (half) of the peak or more, each stretch
`_MIN_STRETCH` (10) points or longer. A step too large for the loss surface swings less as the
step shrinks; a batch of one sample's loss swings as much at any LR (a chat fine-tune at batch
size 1 whose LR decayed to 0).
Confidence: _BASE_CONFIDENCE (0.55) + _OVER_BONUS (0.3) x min(1, (swing ratio - threshold) /
threshold) + _CALM_BONUS (0.1) when the trend moved less than _CALM_MOVE (10%).
Known false positives: a healthy run with very small batches whose per-step loss is noisy and
that has already converged (noise, not oscillation: the swings are uncorrelated); a run
alternating between data sources on purpose.
Evidence: swing_ratio, trend_move, trend_progress (signed fall of the trend), amplitude_ratio,
level, swing (median absolute residual around the trend), lag1 (residual autocorrelation),
positive (every value above zero: ratios are read on the level), points, first_step, last_step,
blew_up (the loss ends non-finite or far above its level), val_swing_ratio (None unless the
validation loss is logged at the training loss's cadence), series ('train' | 'val': whose swings
made the finding).
"""

from __future__ import annotations

import numpy as np
from lossforensics.classifiers import signals
from lossforensics.classifiers._align import finite_curve
from lossforensics.classifiers._score_converged import score_converged
from lossforensics.classifiers.base import Classifier
from lossforensics.classifiers.diagnosis import Finding, Span
from lossforensics.classifiers.run import RunSeries
from lossforensics.classifiers.signals.reduce import median

# long series are reduced to at most this many bucket medians: the trend and the swings survive,
# the cost stays flat
_MAX_POINTS = 4000
# the trend is a rolling median over an eighth of the run: wide enough to span many swings,
# narrow enough to follow the run's descent...
_TREND_WINDOW_PER_RUN = 8
# ...and over at least this many points (a window that spans a few swings on a short run)
_TREND_WINDOW_MIN = 9
# the trend's movement is read between its first and its last fifth (levels, not single points)
_ENDS_SHARE = 0.2
# a loss whose last tenth is above _BLOWUP_FACTOR times its level blew up at the end...
_BLOWUP_TAIL = 0.1
# ...three times its level: a swing goes up and comes back, a blow-up stays up
_BLOWUP_FACTOR = 3
# a loss that can be zero or negative: the swing must be at least this share of the trend's total
# movement (swings that dwarf the progress, not noise on a moving trend)...
_MIN_AMPLITUDE = 0.4
# ...and at least this share of the trend's robust range (a visible swing on the curve's scale)
_MIN_SWING_OF_RANGE = 0.1
# judge: confidence of a swing just over the bar: more likely than not, as noisy small batches
# look alike
_BASE_CONFIDENCE = 0.55
# ...plus up to this much as the swing grows to twice the bar
_OVER_BONUS = 0.3
# ...plus this when the trend moved less than _CALM_MOVE: the run is going nowhere
_CALM_BONUS = 0.1
# a trend that moved less than a tenth of its starting level is making no progress at all
_CALM_MOVE = 0.1
# the training loss's own swings need 30 points: several swings around a 9-point trend window
_TRAIN_POINTS = 30
# a val loss at the training loss's cadence swinging by 3x the training bar (30% of its level)
# from one evaluation to the next is unstable, not noisy
_VAL_SWING_SHARE = 3
# a val loss logged at least 80% as often as the training loss is at its cadence (an epoch log)
_SAME_CADENCE = 0.8
# a val loss at that cadence swinging under a third of the training loss's bar is calm
_CALM_VAL_SHARE = 1 / 3
# no finding read from a curve alone is certain
_MAX_CONFIDENCE = 0.95
# the swings at a decayed LR (a fifth of its peak or less) against those near its peak (half of
# it or more): an LR-driven oscillation shrinks with the step, batch noise keeps its size...
_DECAYED = 0.2
_NEAR_PEAK = 0.5
# ...measured over at least 10 points at each...
_MIN_STRETCH = 10
# ...and kept when 60% of it or more remains: a step-driven swing at a fifth of the step is well
# under half its size, while pure noise's median over the decayed stretch almost never falls
# under 60% of the peak's by chance
_KEPT_SWING = 0.6


def _trend_window(points: int) -> int:
    """The trend's window: an eighth of the curve, at least _TREND_WINDOW_MIN points (odd)."""
    return max(_TREND_WINDOW_MIN, points // _TREND_WINDOW_PER_RUN) | 1


def _trend(y: np.ndarray) -> np.ndarray:
    """The curve's rolling-median trend (window `_trend_window`)."""
    return signals.rolling_median(y, _trend_window(len(y)))


def _ends_count(points: int) -> int:
    """The points of the trend's first (or last) _ENDS_SHARE, as head_level and tail_level
    count them."""
    return max(1, int(np.ceil(points * _ENDS_SHARE)))


def _progress(ev: dict) -> float:
    """How far the trend fell, as a share of its start: a trend that climbed made none (a run
    bouncing ever higher is not learning despite its swings)."""
    progress = ev.get("trend_progress")
    return float(ev["trend_move"] if progress is None else max(progress, 0.0))


class Oscillating(Classifier):
    label = "oscillating"
    needs = frozenset({"train_loss"})
    # an epoch log of 8 evaluations can show a validation loss swinging (the short path); the
    # training loss's own swings need _TRAIN_POINTS
    min_points = 8
    per_step = True

    def __init__(
        self,
        *,
        # a positive loss's median swing must be at least a tenth of its level: smaller wiggles
        # are ordinary batch noise
        min_swing: float = 0.10,
        # ...while the trend moved less than this share of its starting level (a run that made
        # good progress is learning despite its swings)
        max_move: float = 0.3,
    ) -> None:
        self.min_swing = min_swing
        self.max_move = max_move

    def measure(self, run: RunSeries, *, lag1: bool = True, screen: bool = False) -> dict | None:
        """The swings around the trend; with `lag1`, also the residuals' autocorrelation, which
        only the evidence reads (None when not read). With `screen`, None for a positive loss
        whose trend fell by `max_move` or more (most trained runs): neither its own swings nor
        the validation loss's make it oscillate, and the trend's two ends tell, its middle
        unread."""
        curve = run.detailed("train_loss")
        if curve is None:
            return None
        x, y = signals.finite_points(curve.steps, curve.values)
        if len(y) < self.min_points:
            return None
        val_swing = self._val_swing(run, len(y))
        if len(y) < _TRAIN_POINTS and val_swing is None:
            return None  # too short to judge the training loss's own swings
        # bucket medians of the curve (_align.finite_curve's, kept with the run: the same
        # reduced train loss other labels read)
        _, yb = finite_curve(run, "train_loss", curve.metric, max_points=_MAX_POINTS)
        if screen and signals.all_positive(yb):
            trend = self._screened_trend(yb)
            if trend is None:
                return None
        else:
            trend = _trend(yb)
        res = yb - trend
        swing = float(np.median(np.abs(res)))
        first, last = signals.head_level(trend, _ENDS_SHARE), signals.tail_level(trend, _ENDS_SHARE)
        move = abs(first - last)
        positive = signals.all_positive(yb)
        level = float(np.median(np.abs(trend)))
        lag = (float(signals.autocorrelation(res, 1)[1]) if np.any(res) else 0.0) if lag1 else None
        # a loss that blows up at the end (or turns NaN) is exploding, not swinging
        blew_up = not np.isfinite(curve.values[-1]) or (
            positive and signals.tail_level(trend, _BLOWUP_TAIL) > _BLOWUP_FACTOR * level
        )
        return {
            "val_swing_ratio": val_swing,
            "points": len(y),
            "swing": swing,
            "level": level,
            "positive": positive,
            "swing_ratio": swing / max(level, signals.TINY)
            if positive
            else swing / max(signals.robust_range(trend), signals.TINY),
            "trend_move": move / max(abs(first), signals.TINY) if positive else None,
            # the trend's progress: its fall over its starting level (a rise is no progress)
            "trend_progress": (first - last) / max(abs(first), signals.TINY) if positive else None,
            "amplitude_ratio": swing / max(move, signals.TINY),
            "lag1": lag,
            "blew_up": blew_up,
            "first_step": int(x[0]),
            "last_step": int(x[-1]),
        }

    def _screened_trend(self, y: np.ndarray) -> np.ndarray | None:
        """`_trend(y)` of a positive curve, its two ends first: None when they show the trend
        fell by `max_move` or more (the progress measure reads those ends alone)."""
        n, window = len(y), _trend_window(len(y))
        k = _ends_count(n)
        head = signals.rolling_median_span(y, window, 0, k)
        tail = signals.rolling_median_span(y, window, n - k, n)
        first, last = median(head), median(tail)
        if _progress({"trend_progress": (first - last) / max(abs(first), signals.TINY)}) >= (
            self.max_move
        ):
            return None
        middle = signals.rolling_median_span(y, window, k, n - k)
        return np.concatenate((head, middle, tail))

    def skip_reason(self, run: RunSeries) -> str | None:
        """A training loss of `_TRAIN_POINTS` points at its finest logging, or a shorter epoch
        log with a validation loss at its cadence (the short path)."""
        reason = super().skip_reason(run)
        curve = run.detailed("train_loss")
        if reason is not None or curve is None or len(curve) >= _TRAIN_POINTS:
            return reason
        if self._val_swing(run, len(curve)) is not None:
            return None
        return (
            f"training loss has {len(curve)} point(s) at its finest logging; {self.label} needs "
            f"at least {_TRAIN_POINTS}, or a validation loss logged as often"
        )

    @staticmethod
    def _val_swing(run: RunSeries, train_points: int) -> float | None:
        """The validation loss's median swing around its own rolling-median trend, over its
        level, when it is logged at about the training loss's cadence (an epoch log: both once
        an epoch); None otherwise (a per-step train loss beside a sparse val says nothing)."""
        val = run.curve("val_loss")
        if val is None:
            return None
        _, vy = signals.finite_points(val.steps, val.values)
        if len(vy) < _SAME_CADENCE * train_points or not signals.all_positive(vy):
            return None
        trend = _trend(vy)
        level = float(np.median(trend))
        return float(np.median(np.abs(vy - trend))) / max(level, signals.TINY)

    def val_swings(self, ev: dict) -> bool:
        """The validation loss, at the training loss's cadence, swings by `_VAL_SWING_SHARE`
        times the training bar around its trend while training makes little progress: weights
        jumping between solutions from one epoch to the next (the short epoch logs of Keras and
        Lightning, where the training loss alone is too few points to judge)."""
        val = ev.get("val_swing_ratio")
        return bool(
            ev["positive"]
            and val is not None
            and val >= _VAL_SWING_SHARE * self.min_swing
            and _progress(ev) < self.max_move
        )

    def train_swings(self, ev: dict) -> bool:
        if ev["points"] < _TRAIN_POINTS:
            return False
        calm_val = ev.get("val_swing_ratio")
        if calm_val is not None and calm_val < _CALM_VAL_SHARE * self.min_swing:
            # unstable weights evaluate unstably: a training loss swinging beside a calm
            # validation loss at the same epochs is the noise of the epoch's estimate
            return False
        if ev["positive"]:
            return ev["swing_ratio"] >= self.min_swing and _progress(ev) < self.max_move
        return ev["amplitude_ratio"] >= _MIN_AMPLITUDE and ev["swing_ratio"] >= _MIN_SWING_OF_RANGE

    def oscillates(self, ev: dict) -> bool:
        return not ev["blew_up"] and (self.train_swings(ev) or self.val_swings(ev))

    def judge(self, ev: dict) -> Finding:
        if ev["positive"]:
            over = (ev["swing_ratio"] - self.min_swing) / self.min_swing
            calm = ev["trend_move"] < _CALM_MOVE
        else:
            over, calm = ev["amplitude_ratio"] - _MIN_AMPLITUDE, False
        confidence = min(
            _MAX_CONFIDENCE, _BASE_CONFIDENCE + _OVER_BONUS * min(1.0, over) + _CALM_BONUS * calm
        )
        summary = f"Training loss swings by about {ev['swing']:.3g} around its trend " + (
            f"({ev['swing_ratio']:.0%} of its level) while the trend moved {ev['trend_move']:.0%}."
            if ev["positive"]
            else f"({ev['amplitude_ratio']:.1f}x the trend's total movement)."
        )
        if not self.train_swings(ev):
            over = (ev["val_swing_ratio"] - _VAL_SWING_SHARE * self.min_swing) / (
                _VAL_SWING_SHARE * self.min_swing
            )
            confidence = min(_MAX_CONFIDENCE, _BASE_CONFIDENCE + _OVER_BONUS * min(1.0, over))
            summary = (
                f"Validation loss swings by about {ev['val_swing_ratio']:.0%} of its level from "
                f"one evaluation to the next while the training loss's trend moved "
                f"{ev['trend_move']:.0%}."
            )
        evidence = {**ev, "series": "train" if self.train_swings(ev) else "val"}
        return Finding(
            self.label,
            float(confidence),
            Span(ev["first_step"], ev["last_step"]),
            evidence,
            summary,
        )

    def detect(self, run: RunSeries) -> Finding | None:
        # the verdict does not read lag1: a run that swings is measured again with it
        ev = self.measure(run, lag1=False, screen=True)
        if ev is None or not self.oscillates(ev):
            return None
        if not self.train_swings(ev) and score_converged(run):
            return None  # a converged model's val loss swings by a handful of examples
        if self.train_swings(ev) and not self.val_swings(ev) and _swing_kept_at_low_lr(run):
            return None  # batch noise: the swings did not shrink with the step
        ev = self.measure(run)
        return None if ev is None else self.judge(ev)


def _swing_kept_at_low_lr(run: RunSeries) -> bool:
    """Whether the training loss swings about as much (`_KEPT_SWING` or more of it) where the
    logged LR had decayed to `_DECAYED` of its peak as where it was near the peak: the swings
    are the batches' noise, not a step too large. False without such stretches."""
    curve, lr = run.detailed("train_loss"), finite_curve(run, "lr")
    if curve is None or len(lr[1]) < 2 or np.max(lr[1]) <= 0:
        return False
    # the bucket medians measure() reads: a long per-step log costs what a short one does
    x, y = finite_curve(run, "train_loss", curve.metric, max_points=_MAX_POINTS)
    if len(y) < 2 * _MIN_STRETCH:
        return False
    at = np.interp(x, lr[0], lr[1]) / np.max(lr[1])
    low, high = at <= _DECAYED, at >= _NEAR_PEAK
    if low.sum() < _MIN_STRETCH or high.sum() < _MIN_STRETCH:
        return False
    trend = _trend(y)
    swing = np.abs(y - trend)
    if signals.all_positive(y):  # relative to the level, as the swing ratio reads it
        swing = swing / np.maximum(np.abs(trend), signals.TINY)
    return bool(np.median(swing[low]) >= _KEPT_SWING * np.median(swing[high]))
