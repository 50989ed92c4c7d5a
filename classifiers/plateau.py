"""plateau: training stopped making real progress, from step 1 or after an early drop.

Symptom: a training loss that is flat from the start, or that fell early and then stayed flat
for a large part of the run.
The loss judged is the training loss; a run whose training loss has under 5 finite points (its
trainer's logging interval outlasted the run) is judged by its validation loss the same way, with
a stall of at least `_VAL_MIN_STUCK` (60%) of the run (a held-out loss levels off at the end of
any run trained long enough) and no validation witness beside it (evidence `series`).
Signal: the smoothed training loss (bucket medians + rolling median), in log scale when every
value is positive (losses heading to zero keep improving by factors, not by amounts). For the
last 40%, 50%, ... 80% of the run, the improvement over that tail is compared with the whole
run's improvement and with the rate just before it (Theil-Sen slopes on both windows).
A run that improved by no more than twice its noise is not judged by the tail test (the noise
of the head and end levels: the per-point noise over the square root of the points each median
summarises, on long logs).
Rule: `flat_from_start` when the whole run gained under 3% (log scale; a mild net rise counts) or,
for losses with a value <= 0 (judged in their own units), moved less than the point-to-point noise;
and the smoothed level stayed flat all along: within 30% (log scale, `_FLAT_WANDER_LOG`) or twice
the noise from end to end (a level that climbed and came back is exploding's or a spike's, one that
swings is oscillating's; one whose smoothed level ends `_CLIMBED` (2x) above its first logged value
climbed to it, exploding's); a loss that ended under `_EARLY_DROP_KEPT` (80%) of its first 3 points
fell inside the head's 5% and is `stuck_after_drop` instead; a short log too noisy for that
(`_flat_in_thirds`, 10 points or more) is `flat_from_start` when the medians of its thirds stay
within 3% or twice the noise of such a median of each other, its first point sits no higher than
the rest, and no significant downward trend runs through it (a loss at chance level, logged per
batch, that never moves beyond its noise), and so is a loss whose fall over the run stayed
within twice the noise of its head and end levels (the test that rules a run out of the tail
test), from a start that did not drop and along a level within `_FLAT_WANDER_LOG`; and so is
a classifier's loss that started at its chance level ln(k) (classifiers._chance: its first value
within 0.5% of ln k, in a log that starts where its run started) and whose smoothed level
never got `_AT_CHANCE_SHARE` (a tenth) below it, along a level within `_FLAT_WANDER_LOG`
(evidence at_chance, k): it explains under a tenth of the chance-level loss, so nothing was
learned, whatever it drifted within that band;
`stuck_after_drop` when the run did improve (by more than twice the noise) and some tail of at
least 40% of the run delivered under 8% of the total improvement, improved the loss itself by
under 2.5%, AND improved at under 7% of the rate of the window before it; a tail whose trend
rose by more than 2.5% (log scale) got worse, which is not flat (spikes or a slow blow-up: other
labels report those). A tail's gain is the larger of its trend's and its new best values'
(spikes hide trends); new bests count only beyond twice the smoothed level's own noise, which a
noisy level's best-so-far finds by chance. A power law or exponential decay slows down gradually
(rate ratios of 0.2-0.5 between adjacent windows) and is not a plateau; a knee followed by a
flat line is. The window before the tail must itself have fallen by more than that chance
margin (unless the whole run gained under twice `flat_log`): two windows flat within the noise
have a slope ratio that is their noise, which a sparser log of the same slow convergence turns
either way. A slow creep after the drop is `stuck_after_drop` too when a validation loss
witnesses it: train and validation each improved by under 2.5% (relative) from the middle of the
run to its end, training did not get worse by more than that, and training slowed down: it
gained under `_SLOWDOWN` (half) of what it gained from its head (first 15%) to the middle (a
steady descent at one rate, as in a window from late in a run, 20.53 -> 19.65 over 8 epochs at
0.6% an epoch, has not stalled however little each half gains).
A stuck training loss beside a validation loss that gained `late_gain` of its level over the
stuck stretch (by `_VAL_GAIN_Z`, 2, sigmas) and reached its best in that stretch's last fifth, or
beside a val score still gaining over the second half (as below), is no plateau: the training
loss sits on a floor (dropout, augmentation, a fine-tune's noise) while the run still pays off
on held-out data.
A val score (metric_mismatch's) that still gained over that second half, by `_SCORE_GAIN_Z` (3)
sigmas and `_SCORE_GAIN_ROOM` (5%) of the room it had left, outvotes the losses' witness: their
creep is their scale (a Dice loss near 1), and the run still pays off.
Confidence: 0.55 + 0.35 x how much of the run is stuck beyond the 40% minimum, + 0.1 when the
tail is not trending down at all (Kendall's tau >= -0.2); the `_*_CONFIDENCE` constants.
A loss that fell by a factor of 20 or more (to exactly zero included) has converged: its flat
tail is the floor, not a plateau.
`held_out_stall` when the run logs no validation loss but a held-out score, and that score
stood still (neither gained nor lost 2.5%) after the first third of its evaluations, with room
left to its bound, while the training loss fell by a factor of 4 or more
(classifiers._score_stall): the training loss is no plateau, but what the
run is for stopped improving; the training after the stall only memorised (overfit reports that
beside it, and this finding leads the verdict). Confidence `_HELD_OUT_CONFIDENCE` (0.5): read
from a few evaluations.
`held_at_chance` when the log is too short for the rules above (under 5 points of each loss),
or its training loss stalled after a drop (`stuck_after_drop`: a drop from above chance, an
untrained 10-class model's 2.47, down to it, 2.31), and its validation loss sat at a
classifier's chance level at every one of 4 evaluations or more
(their median within 0.5% of ln k, each within a tenth of it) and no training loss got a tenth
below ln k (classifiers._chance.held_at_chance): after an evaluation's worth of training the
model still predicts uniformly, however few points the trainer logged (an HF Trainer logging
every 500 steps on a small set). Confidence `_FROZEN_CONFIDENCE` (0.6).
`frozen_predictions` when a bounded held-out score (accuracy, F1, a percentage) read exactly the
same value at every one of 4 evaluations or more, above 0 and short of converged, and the
validation loss found no new best after its first third by 5% of its level
(classifiers._frozen_predictions): the model gave the same answers at every evaluation, most
often the majority class. It needs no training loss and only 4 evaluations (`skip_reason`), and
is read where the training-loss rules found no stall. Confidence `_FROZEN_CONFIDENCE` (0.6).
The same holds for a validation loss that read exactly one value (not 0) at every one of 4
evaluations or more while the training loss moved (evidence frozen='val_loss'): the outputs on
held-out data never changed (a triplet loss at its margin: the embeddings collapsed).
A log that starts mid-run (classifiers._log_start: its first step beyond 2 logging intervals
of 0, or a logged epoch beyond 2 of its own intervals, as in a window pasted into an issue or
an HF Trainer's dicts from epoch 0.38) begins at a trained model's loss, so a small gain from
its first point is no stall by itself: late in a run the loss gains little however well it
goes. Such a window is read by its trend instead. A loss still drifting down over it (Kendall's
tau under `_NO_TREND_TAU`, -0.2, the same bar as a tail's "no downward trend") is a run
converging late: no plateau (`set_aside` says so), unless it sits at chance level or repeats one
value (`_REPEATED_VALUE`), which is stuck wherever the log starts. A window with no downward
trend did not improve over the span it shows: a plateau of that span, its evidence `window`
(where the log starts) and its summary asking for the loss where the run began (a converged
run left running reads the same, as the known false positives say).
Known false positives: a run that simply converged early and was left running (the domain
calls that a plateau too, but it may be intended); a loss with a hard floor (e.g. label noise).
Evidence: series (train or val), kind, stall_step, stuck_fraction, tail_improvement (the tail's
share of the total improvement; on the creep path the train's relative gain over the second half,
beside the val's, val_late_gain), rate_ratio, lr_final_ratio, start_kept (end level / first logged
value: ~1 is stuck at the untrained, chance-level loss), best_kept (the best smoothed level / first
logged value), points, total_improvement (start level - end level, in logs for a positive loss),
log_scale (the loss is positive and read in logs), noise, tail_tau (Kendall's tau of the part judged
flat), at_chance (the class count k of a loss stuck at its chance level); a frozen score's:
score_metric, score_value, evaluations, val_late_gain, val_points. A loss flat from the start
beside a score that learned (classifiers._score_learned: an accuracy that covered 30% of the way
to its bound) adds score_metric, score_start, score_end and score_room_gained: updates reached
the weights, and the causes put a loss that does not measure the learning first.
"""

from __future__ import annotations

import numpy as np
from lossforensics.classifiers import signals
from lossforensics.classifiers._align import detrended_noise, finite_curve, floor, score_noise
from lossforensics.classifiers._chance import chance_of, held_at_chance
from lossforensics.classifiers._curve_noise import curve_noise
from lossforensics.classifiers._frozen_predictions import frozen_predictions
from lossforensics.classifiers._log_start import mid_run_start
from lossforensics.classifiers._score_learned import score_learned
from lossforensics.classifiers._score_stall import (
    held_out_stall,
    stall_finding,
    stood_still,
    train_fall_factor,
)
from lossforensics.classifiers.base import Classifier
from lossforensics.classifiers.diagnosis import Finding, Span
from lossforensics.classifiers.metric_mismatch import MetricMismatch
from lossforensics.classifiers.run import RunSeries

# a loss whose logged values all lie within this share of their size of one another repeats one
# value (printed to 3 or 4 digits): stuck outright, in a window of a run as much as from step 0
_REPEATED_VALUE = 1e-3
# the validation loss over the stuck stretch: its start is the median of its first 3 points
# there (one noisy evaluation outvoted)...
_VAL_HEAD_POINTS = 3
# ...its end the median of its last fifth (at least one), where its best must also fall
_VAL_END_SHARE = 0.2
# ...and it gained by 2 sigmas of its detrended noise
_VAL_GAIN_Z = 2.0
# a val score still improving over the second half: by 3 sigmas of its detrended noise (a
# second half's median against the middle's, each of several evaluations) ...
_SCORE_GAIN_Z = 3.0
# ... and by 5% of the room it had left there (metric_mismatch's min_gain)
_SCORE_GAIN_ROOM = 0.05
# metric_mismatch at its defaults: its measurement (shared through the run) names the val score
# and its direction
_SCORES = MetricMismatch()
# the tail lengths tried, as shares of the run, longest first: the first stuck one is reported;
# five windows down to the 40% minimum (min_stuck) instead of a per-point scan
_TAILS = (0.8, 0.7, 0.6, 0.5, 0.4)
_TREND_POINTS = 120  # Theil-Sen on 120 bucket medians a window: ample for a slope
# the head and end levels are medians of the first and last 5% of the run: robust to spikes
# yet close to the true start and end
_END_SHARE = 0.05
# the loss's first points: the median of 3 is the untrained level, one noisy batch outvoted
_FIRST_POINTS = 3
# an end level under 80% of those first points is a drop (twice the noise of a median of 3 on
# a loss that jitters by 15% a point), even when it happened inside the head's 5%
_EARLY_DROP_KEPT = 0.8
# a floor under the noise so a noiseless constant loss (noise 0) still counts as flat
_NOISE_FLOOR = 1e-12
# the widest a flat level may wander end to end in log scale: ln(1.3), i.e. within 30%;
# a level that climbed and came back further is exploding's or a spike's, a swing oscillating's
_FLAT_WANDER_LOG = 0.26
# a smoothed end level twice the first logged value or more climbed to it: no flat line
_CLIMBED = 2.0
# a loss that started at a classifier's chance level ln(k) (classifiers._chance) and whose
# smoothed level never got 10% below it explains under a tenth of the chance-level loss: nothing
# learned, a plateau flat from the start however it drifted within that band
_AT_CHANCE_SHARE = 0.1
# a short noisy log read in thirds...
_PARTS = 3
# ... of at least this many points (three of them a third)
_THIRDS_MIN_POINTS = 10
# two medians of a third of the points differ by chance within twice the noise of such a median
_THIRDS_BAND_SIGMAS = 2.0
# a downward trend this significant (Kendall's p) is progress, however small the thirds' moves
_THIRDS_TREND_P = 0.05
# a median's noise over a mean's of the same points (sqrt(pi/2) ~ 1.25): the head/end levels
# and the smoothed level are medians
_MEDIAN_NOISE = 1.25
# in log scale a tail gain under 1% of the loss is small whatever share of the total it is
_TINY_LOG_GAIN = 0.01
# the slow-creep path reads the middle of the run (40%-60%) against its end: a median of each
# span, so a spike in either does not decide
_MIDDLE = (0.4, 0.6)
# ...against the head of the run (its first 15%), across a span as long as the middle to the end
_HEAD = (0.0, 0.15)
# a creep is a stall only when the second half gained under half what the first half did: a
# steady descent at one rate (a window from late in a run) has not slowed
_SLOWDOWN = 0.5
# the end span of the slow-creep path: the last 15% of the run
_END = (0.85, 1.0)
# the slow-creep path needs 4 validation points: two per compared span at the least
_MIN_VAL_POINTS = 4
# confidence for a stall of exactly the min_stuck share: already a clear stall
_BASE_CONFIDENCE = 0.55
# added as the stuck share grows from min_stuck to the whole run: a longer stall is surer
_STUCK_CONFIDENCE = 0.35
# added when the tail has no downward trend at all: a tail still drifting down may yet pay off
_NO_TREND_CONFIDENCE = 0.1
# Kendall's tau at or above -0.2 is no downward trend (a noisy flat tail scatters around 0)
_NO_TREND_TAU = -0.2
# confidence never reaches 1: a plateau may be an intended early convergence
_MAX_CONFIDENCE = 0.99
# a held-out score's stall, read from a handful of evaluations: a finding at the bar
_HELD_OUT_CONFIDENCE = 0.5
# a validation loss judged alone (no training loss to judge) is stuck over 60% of the run at
# least: a held-out loss levels off at the end of any run trained long enough, and one that
# levelled off before the middle made no progress for most of the run
_VAL_MIN_STUCK = 0.6
# a held-out score identical at every evaluation beside a val loss that agrees: clear, though
# read from a handful of evaluations
_FROZEN_CONFIDENCE = 0.6


def _score_still_improving(run: RunSeries) -> bool:
    """A val score (accuracy, Dice, ...: metric_mismatch's, the closest to the val loss's name,
    higher or lower is better by name or by its correlation with the loss) gained over the second
    half of the run by `_SCORE_GAIN_Z` sigmas of its noise and `_SCORE_GAIN_ROOM` of the room it
    had left (to 1 or 0 when bounded, else its size): the run is still paying off."""
    m = _SCORES.measured(run)
    if m is None:
        return False
    _, sy = finite_curve(run, "val_score", m["score_metric"])
    if len(sy) < _MIN_VAL_POINTS:
        return False
    higher = m["score_direction"] == "higher"
    good = sy if higher else -sy
    mid, end = signals.span_median(good, *_MIDDLE), signals.span_median(good, *_END)
    bounded = bool(np.all((sy >= 0) & (sy <= 1)))
    room = ((1.0 - mid) if higher else -mid) if bounded else max(abs(mid), abs(end))
    noise = score_noise(good)
    gain = end - mid
    return gain >= _SCORE_GAIN_Z * noise and gain >= _SCORE_GAIN_ROOM * max(room, signals.TINY)


class Plateau(Classifier):
    label = "plateau"
    needs = frozenset({"train_loss"})
    # five points: a head, an end and something between them to call flat
    min_points = 5

    def __init__(
        self,
        *,
        # shortest stuck tail, as a share of the run: shorter flat stretches are ordinary
        # between LR steps
        min_stuck: float = 0.4,
        # a stuck tail delivers under 8% of the run's total improvement
        tail_share: float = 0.08,
        # a stuck tail improves at under 7% of the rate before it; a power law or exponential
        # decay slows by 0.2-0.5 between adjacent windows, a knee far more
        rate_ratio: float = 0.07,
        # a whole run that gained under 3% (log scale) learned nothing: flat from the start
        flat_log: float = 0.03,
        # a fall of e^3 (a factor of 20) is convergence: a flat tail there is the floor
        converged_log: float = 3.0,
        # a tail that improved the loss itself by 2.5% (log scale) is still learning; a trend
        # that rose by more than that got worse, which is not flat
        late_gain: float = 0.025,
    ) -> None:
        self.min_stuck = min_stuck
        self.tail_share = tail_share
        self.rate_ratio = rate_ratio
        self.flat_log = flat_log
        self.converged_log = converged_log
        self.late_gain = late_gain

    def measure(self, run: RunSeries) -> dict | None:
        """The stall statistics of a run (computed once per run and settings, kept with the run:
        underfit reads them too)."""
        ev = run.measured(("plateau", repr(self)), lambda: self._measure(run))
        return None if ev is None else dict(ev)

    def judged_role(self, run: RunSeries) -> str | None:
        """The loss judged: the training loss, or the validation loss of a log whose training
        loss has under `min_points` finite points (logged once, or not at all, when the
        trainer's logging interval is longer than the run): then the held-out loss is all that
        shows whether the run made progress."""
        for role in ("train_loss", "val_loss"):
            curve = run.curve(role)
            if curve is not None and np.isfinite(curve.values).sum() >= self.min_points:
                return role
        return None

    def _measure(self, run: RunSeries) -> dict | None:
        role = self.judged_role(run)
        curve = None if role is None else run.curve(role)
        if role is None or curve is None:
            return None
        x, y = signals.finite_points(curve.steps, curve.values)
        if len(y) < self.min_points or np.ptp(x) == 0:
            return None
        xs, level = run.smoothed(role)
        # log scale for positive losses; otherwise the level itself, in the noise's units
        t = signals.safe_log(level) if signals.all_positive(y) else level
        head, end = signals.head_level(t, _END_SHARE), signals.tail_level(t, _END_SHARE)
        total = head - end
        noise = curve_noise(run, curve)  # in log scale when positive (loss_spikes reads it too)
        ev: dict = {
            "series": "val" if role == "val_loss" else "train",
            "points": len(y),
            "total_improvement": total,
            "log_scale": signals.all_positive(y),
            "noise": noise,
            # the end level over the first logged value (the untrained model's loss: chance
            # level for a classifier); about 1 means nothing was learned, whatever came between
            "start_kept": float(np.exp(end) / y[0]) if signals.all_positive(y) else None,
            # the best smoothed level over the first logged value: about 1 means the loss never
            # got below where it started (a dip then a climb back did learn, then lost it)
            "best_kept": float(np.exp(np.min(t)) / y[0]) if signals.all_positive(y) else None,
        }
        lr = run.curve("lr")
        if lr is not None and np.isfinite(lr.values).any() and np.nanmax(lr.values) > 0:
            lr_v = lr.values[np.isfinite(lr.values)]
            ev["lr_final_ratio"] = float(lr_v[-1] / np.max(lr_v))
        # no real improvement over the whole run: within the noise, or (log scale) under
        # flat_log net, a mild net rise included; and flat all along, not only net: a level that
        # wandered beyond the noise band (or _FLAT_WANDER_LOG in log scale) and came back is no
        # flat line (a climb and recovery is exploding's or a spike's, a swing oscillating's)
        wander = float(np.ptp(t))
        flat = (
            not ev["log_scale"]
            and abs(total) <= max(noise, _NOISE_FLOOR)
            and wander <= 2 * max(noise, _NOISE_FLOOR)
        )
        # a loss that fell well below its first points before the head's median was taken
        # (a drop inside the first 5%) did learn: flat after that drop, not from the start
        dropped = bool(
            signals.all_positive(y)
            and np.exp(end) < _EARLY_DROP_KEPT * float(np.median(y[:_FIRST_POINTS]))
        )
        start = max(float(y[0]), head)
        if (
            not ev["log_scale"]
            and np.min(y) >= 0
            and 0 < start
            and end * np.exp(self.converged_log) <= start
        ):
            # a loss that fell to exactly zero (judged linearly: no log of 0) converged, however
            # flat its smoothed level reads once the zeros outnumber the rest
            return None
        # a smoothed level far above the first logged value climbed there (a blow-up in the
        # first points, the bucket medians hiding it): exploding's, not a loss flat from the start
        climbed = (ev["start_kept"] or 0.0) >= _CLIMBED
        if not climbed and (
            flat
            or (ev["log_scale"] and total < self.flat_log and wander < _FLAT_WANDER_LOG)
            or (ev["log_scale"] and not dropped and self._flat_in_thirds(x, np.log(y), noise))
        ):
            return self._flat_from_start(ev, x, xs, t, dropped=dropped)
        chance = chance_of(y, x) if ev["log_scale"] else None
        if (
            chance is not None
            and not climbed
            and wander < _FLAT_WANDER_LOG
            and np.exp(np.min(t)) >= (1 - _AT_CHANCE_SHARE) * np.log(chance)
        ):
            # a classifier's loss that started at its chance level and never got a tenth below
            # it learned nothing, whatever its drift within that band
            ev["at_chance"] = chance
            return self._flat_from_start(ev, x, xs, t)
        # the head and end levels are medians of 5% of the run each: on a long per-step log
        # their difference is known to about noise / sqrt(points), not to one point's noise
        k = max(1, int(_END_SHARE * len(y)))
        if total <= 2 * noise * min(1.0, _MEDIAN_NOISE * np.sqrt(2.0 / k)):
            # a fall within the noise of the head and end levels, from a start that did not
            # drop, along a level that stayed within _FLAT_WANDER_LOG: never moved beyond its
            # logging noise, however noisy each log (a fine-tune at its floor from step 1)
            if total > 0 and ev["log_scale"] and not (dropped or climbed):
                if wander < _FLAT_WANDER_LOG:
                    return self._flat_from_start(ev, x, xs, t)
            return None  # ended higher (exploding's business) or moved within the noise
        if ev["log_scale"] and total >= self.converged_log:
            return None  # fell by a factor of 20 or more: a flat tail there is the floor
        best = signals.best_so_far(t)
        # the best-so-far of a noisy level keeps finding lower values by chance: new bests
        # count as progress only beyond twice the level's own noise (the point noise over the
        # points each level value summarises: bucket size x rolling window)
        per_level = len(y) / len(xs) * signals.odd_window(len(xs), signals.smoothing_frac(len(y)))
        by_chance = 2 * _MEDIAN_NOISE * noise / np.sqrt(per_level)
        for frac in _TAILS:  # longest stuck tail first; five windows, not a per-point loop
            cut = x[0] + (1 - frac) * np.ptp(x)
            i_cut = int(np.searchsorted(xs, cut))
            j = min(int(np.searchsorted(xs, cut - frac * np.ptp(x) / 2)), i_cut - 2)
            if j < 0 or len(xs) - i_cut < 2:
                continue
            # progress in the tail: along its trend, or as new best values (spikes hide trends);
            # "small" only falls as the gain grows, so new bests alone can rule a tail out
            # before its two trend fits are paid for
            new_best = max(best[i_cut] - best[-1] - by_chance, 0.0)
            if not self._small(new_best, total, ev["log_scale"]):
                continue
            tail_trend = signals.trend(xs[i_cut:], t[i_cut:], _TREND_POINTS)
            gained = max(-tail_trend.change(xs[i_cut], xs[-1]), new_best)
            if not self._small(gained, total, ev["log_scale"]):
                continue
            if self._rising(tail_trend.change(xs[i_cut], xs[-1]), total, ev["log_scale"]):
                continue  # the tail got worse: not flat (spikes, a slow blow-up, overfitting)
            rate_before = -signals.trend(xs[j:i_cut], t[j:i_cut], _TREND_POINTS).slope
            # a knee needs a fall before it: a window that fell by no more than the level's
            # chance margin was as flat as the tail, and the slope ratio of two flat windows is
            # their noise (a slow convergence, not a stall after progress). A run that barely
            # moved in all (under 2x flat_log) needs no knee: it is flat from the start.
            fell = rate_before * (xs[i_cut] - xs[j]) > by_chance or (
                ev["log_scale"] and total < 2 * self.flat_log
            )
            ratio = -tail_trend.slope / rate_before if rate_before > 0 and fell else np.inf
            if ratio <= self.rate_ratio:
                barely = ev["log_scale"] and total < 2 * self.flat_log and wander < _FLAT_WANDER_LOG
                ev.update(
                    kind="flat_from_start" if barely and not dropped else "stuck_after_drop",
                    stuck_fraction=frac,
                    stall_step=int(xs[i_cut]),
                    tail_improvement=gained / total,
                    rate_ratio=float(ratio),
                    tail_tau=tail_trend.tau,
                )
                return ev
        return self._both_stalled(run, xs, level, ev)

    def _flat_from_start(
        self, ev: dict, x: np.ndarray, xs: np.ndarray, t: np.ndarray, *, dropped: bool = False
    ) -> dict:
        """The evidence of a loss stuck over the whole run: from its first step, or (`dropped`)
        after a drop inside the head's first points."""
        ev.update(
            kind="stuck_after_drop" if dropped else "flat_from_start",
            stuck_fraction=1.0,
            stall_step=int(x[0]),
            tail_improvement=0.0,
            rate_ratio=0.0,
            tail_tau=signals.trend(xs, t).tau,
        )
        return ev

    def _flat_in_thirds(self, x: np.ndarray, ly: np.ndarray, noise: float) -> bool:
        """A short log too noisy for its smoothed level to stay within `_FLAT_WANDER_LOG` that
        still never moved: the medians of its thirds within `flat_log` or twice the noise of such
        a median of each other, its first point not above the run's median by more than that
        (no early drop), and no significant downward trend (`_THIRDS_TREND_P`)."""
        n = len(ly)
        if n < _THIRDS_MIN_POINTS:
            return False
        k = n // _PARTS
        thirds = [float(np.median(part)) for part in (ly[:k], ly[k : n - k], ly[n - k :])]
        band = max(self.flat_log, _THIRDS_BAND_SIGMAS * noise / np.sqrt(k))
        if max(thirds) - min(thirds) > band or ly[0] > float(np.median(ly)) + max(band, noise):
            return False
        t = signals.trend(x, ly)
        return not (t.tau < 0 and t.p_value < _THIRDS_TREND_P)

    def _small(self, gained: float, total: float, log_scale: bool) -> bool:
        """A tail gain too small to count as progress: under tail_share of the total (or
        _TINY_LOG_GAIN in log scale), and, in log scale, under late_gain of the loss itself."""
        small = gained <= self.tail_share * total or (log_scale and gained < _TINY_LOG_GAIN)
        return small and not (log_scale and gained >= self.late_gain)

    def _rising(self, rise: float, total: float, log_scale: bool) -> bool:
        """A tail whose trend climbed by more than a stuck tail may gain (late_gain of the loss
        in log scale, tail_share of the total otherwise): a curve that got worse is not flat,
        and what made it worse (spikes, a slow blow-up) is another label's to report."""
        return rise > (self.late_gain if log_scale else self.tail_share * total)

    def _both_stalled(
        self, run: RunSeries, xs: np.ndarray, level: np.ndarray, ev: dict
    ) -> dict | None:
        """Second path, for a slow creep after the drop: training AND validation each improved
        by under `late_gain` (relative) over the second half. Validation is the witness that a
        slow train descent is not still paying off."""
        val = run.curve("val_loss")
        if val is None or not ev["log_scale"] or ev["series"] == "val":
            return None
        _, vy = signals.finite_points(val.steps, val.values)
        if len(vy) < _MIN_VAL_POINTS or not signals.all_positive(vy):
            return None
        gains = [
            (mid - signals.span_median(v, *_END)) / mid
            for v in (level, vy)
            for mid in (signals.span_median(v, *_MIDDLE),)
        ]
        if max(gains) >= self.late_gain or self._rising(-gains[0], 0.0, True):
            return None  # still improving, or training got worse: not a flat line
        head, mid = signals.span_median(level, *_HEAD), signals.span_median(level, *_MIDDLE)
        if gains[0] >= _SLOWDOWN * (head - mid) / head:
            return None  # as fast as before the middle: a steady descent, no stall
        if _score_still_improving(run):
            return None  # the losses creep by their scale (a Dice loss near 1), not a stall
        cut = int(xs[int(0.5 * (len(xs) - 1))])
        ev.update(
            kind="stuck_after_drop",
            stuck_fraction=0.5,
            stall_step=cut,
            tail_improvement=gains[0],
            rate_ratio=None,
            val_late_gain=gains[1],
            tail_tau=signals.trend(xs[xs >= cut], level[xs >= cut]).tau,
        )
        return ev

    def judge(self, ev: dict, last_step: int) -> Finding:
        extra = (ev["stuck_fraction"] - self.min_stuck) / (1 - self.min_stuck)
        confidence = (
            _BASE_CONFIDENCE
            + _STUCK_CONFIDENCE * extra
            + _NO_TREND_CONFIDENCE * (ev["tail_tau"] >= _NO_TREND_TAU)
        )
        loss = "Validation loss" if ev["series"] == "val" else "Training loss"
        if ev["kind"] == "flat_from_start":
            summary = f"{loss} never moved beyond its noise: flat from the first step."
            if "window" in ev:
                summary = (
                    f"{loss} never moved beyond its noise over the whole log, with no downward "
                    f"trend; the log starts mid-run (at {_where(ev['window'])}), so compare "
                    "with the loss where the run began."
                )
            if "score_metric" in ev:
                summary += (
                    f" Yet {ev['score_metric']} went from {ev['score_start']:.3g} to "
                    f"{ev['score_end']:.3g}: the model learned, and the loss does not show it."
                )
        elif ev.get("val_late_gain") is not None:  # _both_stalled: gains relative to the loss
            summary = (
                f"Training loss stopped improving at about step {ev['stall_step']}: over the "
                f"second half of the run it improved by {max(ev['tail_improvement'], 0):.1%} and "
                f"the validation loss by {max(ev['val_late_gain'], 0):.1%}."
            )
        else:
            summary = (
                f"{loss} stopped improving at about step {ev['stall_step']}: the "
                f"last {ev['stuck_fraction']:.0%} of the run gained "
                f"{max(ev['tail_improvement'], 0):.1%} of the total improvement."
            )
        return Finding(
            self.label,
            float(min(confidence, _MAX_CONFIDENCE)),
            Span(ev["stall_step"], last_step),
            ev,
            summary,
        )

    def judge_held_out(self, m: dict) -> Finding:
        """The held-out score's stall beside a training loss that kept collapsing."""
        summary = (
            f"The held-out {m['score_metric']} stopped improving at about step "
            f"{m['stall_step']} ({m['score_best_early']:.4g}, then about {m['score_late']:.4g}) "
            f"while the training loss fell {train_fall_factor(m):.0f}x more: "
            "the training after that step did not pay off on held-out data."
        )
        tag = {"kind": "held_out_stall"}
        return stall_finding(self.label, tag, _HELD_OUT_CONFIDENCE, summary, m)

    def skip_reason(self, run: RunSeries) -> str | None:
        """A run whose training loss is too short is judged by its validation loss
        (`judged_role`); a held-out score frozen at every evaluation is judged from 4
        evaluations and needs no training loss: the model's answers never changed, however
        little else was logged."""
        reason = super().skip_reason(run)
        if reason is None or self.judged_role(run) is not None:
            return None
        if frozen_predictions(run) is not None or held_at_chance(run) is not None:
            return None
        return reason

    def judge_frozen(self, m: dict) -> Finding:
        """The held-out score that never changed, beside a validation loss that agrees; or the
        validation loss itself, identical at every evaluation while the training loss moved."""
        if m.get("frozen") == "val_loss":
            summary = (
                f"The validation loss ({m['score_metric']}) read exactly {m['score_value']:.6g} "
                f"at all {m['evaluations']} evaluations while the training loss moved: the "
                "model's outputs on held-out data never changed (a collapsed embedding, a "
                "constant prediction, or weights that are not updated)."
            )
        else:
            summary = (
                f"The held-out {m['score_metric']} read exactly {m['score_value']:.6g} at all "
                f"{m['evaluations']} evaluations and the validation loss found no new best "
                f"after its first third ({max(m['val_late_gain'], 0):.1%}): the model's answers "
                "on held-out data never changed (the majority class, or weights that are not "
                "updated)."
            )
        return Finding(
            self.label,
            _FROZEN_CONFIDENCE,
            Span(m["first_step"], m["last_step"]),
            m,
            summary,
        )

    def judge_held_at_chance(self, m: dict) -> Finding:
        """A short log whose validation loss sat at chance level at every evaluation."""
        summary = (
            f"The validation loss sat at the chance level of {m['at_chance']} classes "
            f"(ln {m['at_chance']} = {m['chance_level']:.4g}) at all {m['evaluations']} "
            f"evaluations (median {m['val_median']:.4g}), and no logged loss got a tenth below "
            "it: the model predicts no better than uniformly, so nothing was learned."
        )
        return Finding(
            self.label, _FROZEN_CONFIDENCE, Span(m["first_step"], m["last_step"]), m, summary
        )

    def detect(self, run: RunSeries) -> Finding | None:
        ev = self.measure(run)
        curve = None if ev is None else run.curve(f"{ev['series']}_loss")
        least = _VAL_MIN_STUCK if ev is not None and ev["series"] == "val" else self.min_stuck
        if ev is None or curve is None or ev["stuck_fraction"] < least:
            stall = held_out_stall(run)
            if stall is not None and stood_still(stall):
                return self.judge_held_out(stall)
            frozen = frozen_predictions(run)
            if frozen is not None:
                return self.judge_frozen(frozen)
            # only where the rules above had too few points to read the course
            short = self.judged_role(run) is None
            at_chance = held_at_chance(run) if short else None
            return None if at_chance is None else self.judge_held_at_chance(at_chance)
        if self._val_still_improving(run, ev) or _score_still_improving(run):
            return None
        if ev["kind"] == "stuck_after_drop":
            # the drop took the loss down to chance level, not below it: nothing was learned
            at_chance = held_at_chance(run)
            if at_chance is not None:
                return self.judge_held_at_chance(at_chance)
        if self._flat_window(run, ev) is not None:
            return None
        if ev["kind"] == "flat_from_start":
            ev = {**ev, **(score_learned(run) or {})}
            if (window := self._window(run, ev)) is not None:
                ev["window"] = window
        return self.judge(ev, int(curve.steps[-1]))

    def _window(self, run: RunSeries, ev: dict) -> dict | None:
        """Where the log starts, when it starts mid-run (classifiers._log_start) and its loss
        reads flat from its first point; None otherwise."""
        if ev["kind"] != "flat_from_start":
            return None
        x, _ = finite_curve(run, f"{ev['series']}_loss")
        return mid_run_start(run, x)

    def _flat_window(self, run: RunSeries, ev: dict) -> dict | None:
        """Where the log starts, when `_window` finds it mid-run and its loss still drifts
        down over it (Kendall's tau under `_NO_TREND_TAU`) without being stuck outright (at
        chance level, one repeated value). Over a window, a slow steady fall is what a run
        converging late looks like: its first point is a trained model's loss, so a small
        gain from it is no stall. None otherwise: a window with no downward trend did not
        improve over the span it shows, which is the plateau the window can show."""
        window = self._window(run, ev)
        if window is None or "at_chance" in ev or ev["tail_tau"] >= _NO_TREND_TAU:
            return None
        _, y = finite_curve(run, f"{ev['series']}_loss")
        if np.ptp(y) <= _REPEATED_VALUE * np.max(np.abs(y)):
            return None  # one value over and over: nothing changes, wherever the log starts
        return window

    def set_aside(self, run: RunSeries) -> str | None:
        """A loss flat over a log that starts mid-run: seen, and why it is not a plateau."""
        ev = self.measure(run)
        window = None if ev is None else self._flat_window(run, ev)
        if ev is None or window is None:
            return None
        where = _where(window)
        return (
            f"the {ev['series']} loss gains little over the whole log, but the log starts "
            f"mid-run (at {where}) and the loss still drifts down over it (Kendall's tau "
            f"{ev['tail_tau']:.2f}), as a run converging late does: whether the run stalled "
            "needs its log from the first step"
        )

    def _val_still_improving(self, run: RunSeries, ev: dict) -> bool:
        """The validation loss gained `late_gain` (2.5%) of its level over the stuck stretch,
        by 2 sigmas of its noise, and reached its best in that stretch's last fifth: the run
        still pays off on held-out data, so the flat training loss is a floor (dropout,
        augmentation), not a stall."""
        if ev["series"] == "val":
            return False  # the validation loss is the curve judged: no witness beside it
        vx, vy = finite_curve(run, "val_loss")
        after = vx >= ev["stall_step"]
        if after.sum() < _MIN_VAL_POINTS or not signals.all_positive(vy):
            return False
        tail = vy[after]
        start = float(np.median(tail[:_VAL_HEAD_POINTS]))
        end = signals.tail_level(tail, _VAL_END_SHARE, min_points=1)
        noise = floor(detrended_noise(tail), signals.scale(tail))
        gain = start - end
        late = len(tail) - max(1, int(_VAL_END_SHARE * len(tail)))
        return (
            gain >= self.late_gain * start
            and gain >= _VAL_GAIN_Z * noise
            and int(np.argmin(tail)) >= late
        )


def _where(window: dict) -> str:
    """Where a log that starts mid-run starts: its logged epoch when it has one, else its step."""
    if "first_epoch" in window:
        return f"epoch {window['first_epoch']:.4g}"
    return f"step {window['first_step']}"
