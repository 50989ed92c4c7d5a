"""Where a log starts in its run. A log that starts where its run started has the untrained
model's loss as its first value: the reference for "nothing learned" (plateau's flat from the
start, underfit's share of the start kept, a chance-level start). A log that starts mid-run (a
window pasted into an issue from iteration 15925, the tail of a fine-tune at epoch 0.66, a run
resumed from a checkpoint) begins at a trained model's loss: how much the loss kept of its
first value says nothing about what came before (plateau reads such a window by its trend,
underfit only by a training accuracy, nan's "at the very start" does not apply).
"""

from __future__ import annotations

import numpy as np
from lossforensics.classifiers._epochs import epoch_curve
from lossforensics.classifiers.run import RunSeries

# a log whose first step is within this many of its logging intervals of 0 starts where the run
# started (step 0 or 1, epoch 1, a trainer's first `logging_steps`)
START_INTERVALS = 2


def beyond_start(x: np.ndarray) -> bool:
    """The counter `x` (steps or epochs, sorted) begins more than `START_INTERVALS` of its own
    median interval after 0: the log starts after its run did."""
    if len(x) < 2:
        return False
    interval = float(np.median(np.diff(x)))
    return interval > 0 and float(x[0]) > START_INTERVALS * interval


def mid_run_start(run: RunSeries, x: np.ndarray) -> dict | None:
    """Where the log judged through steps `x` starts, when that is after its run started:
    its first step beyond `START_INTERVALS` logging intervals of 0, or a logged `epoch` series
    (an HF Trainer's fractional epoch, beside steps that are the order of its lines) whose first
    value is beyond that many of its own intervals. None when the log starts with its run."""
    if beyond_start(x):
        return {"first_step": int(x[0])}
    curve = epoch_curve(run)
    if curve is None:
        return None
    epochs = curve.values[np.isfinite(curve.values)]
    if len(epochs) >= 2 and np.all(np.diff(epochs) >= 0) and beyond_start(epochs):
        return {"first_step": int(x[0]), "first_epoch": float(epochs[0])}
    return None
