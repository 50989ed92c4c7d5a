"""lr_range_test: one run whose LR grows exponentially from min_lr to max_lr over N steps.

Question: where does the loss turn up, and how does the user's LR compare?
The loss is smoothed (a centred running median) and the sweep stops once it is non-finite or 4x its
best. The turn-up LR is where the smoothed loss is lowest; the suggested LR is a tenth of it.
Verdict on "the learning rate is too high":
  confirmed     the user's LR is at or past the turn-up LR
  refuted       the user's LR is at most 3x the suggested LR
  inconclusive  in between, or the loss never turned up within the sweep
For a cause saying the LR is too low the reading is: confirmed below a tenth of the suggested
LR, refuted at a third of it or above, inconclusive in between. A cause about the schedule
(milestones, decay) is inconclusive: a sweep from a fresh model cannot see it.
"""

from __future__ import annotations

import math

import numpy as np
from lossforensics.probes.base import Outcome, mentions, probe
from lossforensics.probes.result import CONFIRMED, INCONCLUSIVE, REFUTED, ProbeResult
from lossforensics.probes.runlog import record
from lossforensics.probes.setup import ProbeSetup, base_lrs
from lossforensics.probes.train import train
from scipy.ndimage import median_filter

NAME = "lr_range_test"


def judge(result: ProbeResult, cause: str) -> str:
    low = mentions(
        cause, "too low", "too small", "lr ~0", "lr≈0", "lr near 0", "low lr", "low learning rate"
    )
    if not low:
        # a schedule's milestones or decay cannot be seen in a sweep from a fresh model
        return (
            INCONCLUSIVE if mentions(cause, "schedule", "decay", "milestone") else (result.verdict)
        )
    user, suggested = result.numbers.get("user_lr"), result.numbers.get("suggested_lr")
    if user is None or suggested is None or not math.isfinite(suggested):
        return INCONCLUSIVE
    if user < suggested / 10:
        return CONFIRMED
    return REFUTED if user >= suggested / 3 else INCONCLUSIVE


def smooth(loss: np.ndarray, share: float = 0.05) -> np.ndarray:
    """A centred running median over `share` of the sweep (at least 3 points): robust to single
    noisy steps, and without the lag of an EMA, which on a short sweep shifts the turn-up point
    to a several times larger LR."""
    loss = np.asarray(loss, float)
    width = max(3, int(round(len(loss) * share)) | 1)
    return median_filter(loss, size=width, mode="nearest") if len(loss) else loss


@probe(
    NAME,
    question="Where does the loss turn up in an exponential LR sweep?",
    hypothesis="the learning rate is too high",
    judge=judge,
)
def run(
    setup: ProbeSetup,
    *,
    min_lr: float = 1e-6,
    max_lr: float = 10.0,
    steps: int | None = None,
    stop_factor: float = 4.0,
) -> Outcome:
    steps = setup.steps if steps is None else steps
    model = setup.fresh_model()
    optimizer = setup.make_optimizer(model)
    user_lr = base_lrs(optimizer)[0]
    growth = (max_lr / min_lr) ** (1.0 / max(steps - 1, 1))
    log = train(
        setup, model, optimizer, name="sweep", steps=steps, lr_at=lambda step: min_lr * growth**step
    )
    rec = record(setup, NAME, log)
    finite = np.isfinite(log.loss)
    n = int(np.argmin(finite)) if not finite.all() else len(log.loss)
    lrs, smoothed = log.lr[:n], smooth(log.loss[:n])
    if n:
        over = np.flatnonzero(smoothed > stop_factor * np.minimum.accumulate(smoothed))
        if over.size:
            n = int(over[0])
            lrs, smoothed = lrs[:n], smoothed[:n]
    turned = n < len(log.loss) or bool(
        n and smoothed[-1] > 1.5 * smoothed.min() and np.argmin(smoothed) < n - 1
    )
    numbers = {
        "user_lr": user_lr,
        "min_lr": min_lr,
        "max_lr": max_lr,
        "curve": {"lr": log.lr.tolist(), "loss": log.loss.tolist()},
    }
    runs = {"sweep": rec}
    if not n or not turned:
        numbers.update(turn_lr=None, suggested_lr=None)
        why = (
            "the loss was non-finite from the start"
            if not n
            else (f"the loss never turned up below LR {max_lr:g}")
        )
        return Outcome(INCONCLUSIVE, f"no turn-up point: {why}", numbers, runs)
    turn_lr = float(lrs[int(np.argmin(smoothed))])
    suggested = turn_lr / 10
    numbers.update(turn_lr=turn_lr, suggested_lr=suggested, user_over_suggested=user_lr / suggested)
    text = (
        f"loss turns up near LR {turn_lr:.3g}; suggested LR {suggested:.3g}; "
        f"the user's LR {user_lr:.3g} is {user_lr / suggested:.3g}x the suggestion"
    )
    if user_lr >= turn_lr:
        return Outcome(CONFIRMED, text, numbers, runs)
    if user_lr <= 3 * suggested:
        return Outcome(REFUTED, text, numbers, runs)
    return Outcome(INCONCLUSIVE, text, numbers, runs)
