"""A validation loss read at only 2 to 4 evaluations (a short fine-tune evaluated once an epoch),
or at up to 20 from its raw values (a short epoch log).

Three epochs of fine-tuning with an evaluation at the end of each is the most common shape of a
Hugging Face run, and the classic overfit there is a val loss that rises at every evaluation
after its best while the training loss keeps falling. A log this short cannot measure its own
evaluation noise (the detrended noise needs more points), so the rise is judged against the
noise that validation losses show where it can be measured: on the labelled real runs the
evaluation-to-evaluation noise is a median 2% of the level and 6-7% at the 90th percentile. A
rise of `MIN_RISE` (20%) of the minimum, at every evaluation after it, is about three times
the noise of a noisy val, and more than ten times a typical one. Three rises in a row (a
minimum at the first of 4 evaluations) happen by chance to a flat noisy val 1 time in 24 (four
values in increasing order) against 1 in 6 for two; the bar is then `MIN_RISE_IN_A_ROW` (15%, about
2x the noise of a noisy val), which leaves the chance of a false call about where it was (a 15%
difference of two noisy evaluations, 6-7% noise each, is about 3.5 times as likely as a 20%
one, and the order 4 times less likely). Two evaluations (a fine-tune of two epochs) hold one
rise: the same 20% bar is 2.2 sigmas of the difference of two noisy evaluations (6-7% each).

Rule: 2 to 4 finite evaluations; the minimum is not the last; each evaluation after it is
higher than the one before, and the last stands `MIN_RISE` above the minimum
(`MIN_RISE_IN_A_ROW` after three rises); the val had
learned: it fell by `MIN_RISE` before its minimum (it followed training), or its minimum is
`first_eval_gain` below the training loss's start, or `late_first_eval` of the training loss's
fall came before the first evaluation (the minimum predates it; overfit's own bars). A val that
never got below the untrained loss and did not follow it never generalised
(distribution_mismatch's). The training loss at the
last evaluation, and at its own last points, is `TRAIN_FALL` below its level at the minimum
(the gap still widens; a loss that blew up meanwhile did not fall). The
finding is inferred, so it stands at the bar whatever the size of the rise.
A short epoch log of 5 to `SHORT_MAX_EVALS` (20) evaluations is read the same way from its raw
values (`short_log_rise`, reading='short_log'), where the main reading's running median of 3
would erase a minimum one epoch wide and its noise estimate spans the first epochs' fall: the
minimum is a level, not one lucky evaluation (each neighbour within `DIP_RATIO`, 1.5x, of it);
at least 2 evaluations follow it, every one `AFTER_FLOOR` (5%) above it and their median
`SHORT_MIN_RISE` (15%) above it; then the last evaluation's rise, the val having learned and the
training loss still falling are judged as above. Only positive losses (the rises are ratios).
Evidence: reading ('few_evaluations' | 'short_log'), evaluations, rises (evaluations after the
minimum), val_min_step, val_min, val_last, val_rise_pct, val_learned, train_at_min,
train_at_last, train_fall_after_rel.
"""

from __future__ import annotations

import numpy as np
from lossforensics.classifiers._align import (
    MAX_EVALS,
    TRAIN_AT_EVAL_POINTS,
    TRAIN_START_SHARE,
    finite_curve,
    trailing_median,
    train_at_evals,
)
from lossforensics.classifiers.run import RunSeries
from lossforensics.classifiers.signals import TINY, head_level, tail_level

# the fewest evaluations read here: a minimum and one after it (two epochs of a fine-tune); a
# 20% rise between two evaluations is 2.2 sigmas of the difference of two noisy real vals
MIN_EVALS = 2
# the last evaluation 20% above the minimum: about 3x the noise of a noisy real val (6-7% of its
# level at the 90th percentile), which a log of 2-4 evaluations cannot measure for itself
MIN_RISE = 0.2
# ...15% after three rises in a row: about 3.5 times as likely a difference of noise, 4 times
# less likely an order (1 in 24 against 1 in 6)
MIN_RISE_IN_A_ROW = 0.15
# rises after the minimum that earn the lower bar
RISES_IN_A_ROW = 3
# the training loss at the last evaluation 10% below its level at the val minimum: still falling
TRAIN_FALL = 0.1
# a short epoch log read on its raw evaluations: from one more than the few-evaluations reading
# takes...
SHORT_MIN_EVALS = 5
# ... up to 20 (a Keras run of 10-20 epochs), where the main reading's running median of 3 erases
# a minimum one epoch wide and the first epochs' fall dominates its noise estimate; further on, a
# noisy val's lucky dip followed by higher values grows likelier (at 30 an external healthy-ish
# run is called overfit)
SHORT_MAX_EVALS = 20
# at least two evaluations after the minimum: one is a noisy evaluation
SHORT_MIN_AFTER = 2
# a minimum whose neighbour is 1.5x or more above it is one lucky evaluation, not a level
DIP_RATIO = 1.5
# every evaluation after the minimum 5% above it: it never came back to its best
AFTER_FLOOR = 0.05
# ... and their median 15% above it: about twice the noise of a noisy real val (6-7%)
SHORT_MIN_RISE = 0.15
# val_rise_pct is in percent of the minimum, as overfit's own evidence
_PERCENT = 100.0


def few_evals_rise(
    run: RunSeries, *, below_evals: int, first_eval_gain: float, late_first_eval: float
) -> dict | None:
    """The measurement of a val loss with MIN_EVALS to `below_evals` - 1 finite evaluations
    that rose at every evaluation after its minimum; None when the log is not that short or the
    shape is not there."""
    vx, vy = finite_curve(run, "val_loss", max_points=MAX_EVALS)
    tx, ty = finite_curve(run, "train_loss")
    if not MIN_EVALS <= len(vy) < below_evals or len(ty) < 2:
        return None
    i_min = int(np.argmin(vy))
    if i_min == len(vy) - 1 or not np.all(np.diff(vy[i_min:]) > 0):
        return None
    return _rise_after(run, vx, vy, tx, ty, i_min, first_eval_gain, late_first_eval)


def short_log_rise(
    run: RunSeries, *, first_eval_gain: float, late_first_eval: float
) -> dict | None:
    """The same measurement for an epoch log of `SHORT_MIN_EVALS` to `SHORT_MAX_EVALS` positive
    evaluations whose minimum is a level (each neighbour within `DIP_RATIO` of it, not one lucky
    evaluation) and stayed behind: every evaluation after it at least `AFTER_FLOOR` above it, and
    their median `SHORT_MIN_RISE` above it; None otherwise. The main reading smooths such a log
    with a running median of 3, which erases a minimum one evaluation wide, and measures its
    noise across the first epochs' fall."""
    vx, vy = finite_curve(run, "val_loss", max_points=MAX_EVALS)
    tx, ty = finite_curve(run, "train_loss")
    if not SHORT_MIN_EVALS <= len(vy) <= SHORT_MAX_EVALS or len(ty) < 2 or np.any(vy <= 0):
        return None
    i_min = int(np.argmin(vy))
    after, low = vy[i_min + 1 :], float(vy[i_min])
    if len(after) < SHORT_MIN_AFTER:
        return None
    neighbours = vy[max(i_min - 1, 0) : i_min + 2]
    if np.any(neighbours > DIP_RATIO * low):
        return None  # one lucky evaluation between two ordinary ones: no level to rise from
    if np.any(after < (1.0 + AFTER_FLOOR) * low) or np.median(after) < (1.0 + SHORT_MIN_RISE) * low:
        return None
    found = _rise_after(run, vx, vy, tx, ty, i_min, first_eval_gain, late_first_eval)
    return None if found is None else {**found, "reading": "short_log"}


def _rise_after(
    run: RunSeries,
    vx: np.ndarray,
    vy: np.ndarray,
    tx: np.ndarray,
    ty: np.ndarray,
    i_min: int,
    first_eval_gain: float,
    late_first_eval: float,
) -> dict | None:
    """The val's rise after its minimum at `i_min`, beside the training loss there and at the
    end; None when the training loss is not read at both."""
    train = train_at_evals(run, MAX_EVALS)
    # where training ended: the worse of its level leading to the last evaluation and its last
    # points (a loss that blew up after the last evaluation did not keep falling)
    t_min, t_last = float(train[i_min]), max(float(train[-1]), tail_level(ty))
    if not (np.isfinite(t_min) and np.isfinite(t_last)):
        return None
    val_min, val_last = float(vy[i_min]), float(vy[-1])
    t_start = head_level(ty, TRAIN_START_SHARE)
    t_first = trailing_median(tx, ty, vx[0], TRAIN_AT_EVAL_POINTS)
    if not np.isfinite(t_first):  # an evaluation before any training step
        t_first = t_start
    # the val had learned: it fell clearly before its minimum (it followed training), its best
    # beat the untrained loss, or training had converged before the first evaluation
    fell_before = i_min > 0 and float(np.max(vy[:i_min])) >= (1.0 + MIN_RISE) * val_min
    below_start = val_min < (1.0 - first_eval_gain) * t_start
    trained_before = (t_start - t_first) >= late_first_eval * max(t_start - t_last, TINY)
    return {
        "reading": "few_evaluations",
        "evaluations": int(len(vy)),
        "rises": int(len(vy) - 1 - i_min),
        "val_min_step": int(vx[i_min]),
        "val_end_step": int(vx[-1]),
        "val_min": val_min,
        "val_last": val_last,
        "val_rise_pct": _PERCENT * (val_last - val_min) / max(abs(val_min), TINY),
        "val_learned": bool(fell_before or below_start or trained_before),
        "train_at_min": t_min,
        "train_at_last": t_last,
        "train_fall_after_rel": (t_min - t_last) / max(abs(t_min), TINY),
    }


def rose_while_training_fell(m: dict) -> bool:
    """The few-evaluation overfit: a clear rise after a minimum the val had learned to, beside a
    training loss still falling."""
    bar = MIN_RISE_IN_A_ROW if m["rises"] >= RISES_IN_A_ROW else MIN_RISE
    return (
        m["val_learned"]
        and m["val_rise_pct"] >= _PERCENT * bar
        and m["train_fall_after_rel"] >= TRAIN_FALL
    )
