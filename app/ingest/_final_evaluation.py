"""Evaluations logged after the Hugging Face Trainer's end-of-training summary.

`trainer.train()` ends its `log_history` with a summary entry (`train_runtime`, the run's mean
`train_loss`, ...). A `trainer.evaluate()` called after it appends one more evaluation at the
last step: the final model's, or, with `load_best_model_at_end`, the best checkpoint's, and often
on another split (a test set passed as `eval_dataset`). It is no point of the validation curve: a
curve that ends with it looks as if it came back to its best at the last step. Exports of
`log_history` (a pandas CSV, a JSON list) and printed logs keep it, so `load_run` leaves it out
of the frame whatever the reader, with a warning; the trainer_state.json reader never sees one,
as the Trainer saves its state before any such call.
"""

from __future__ import annotations

import numpy as np
from lossforensics.ingest.base import IngestResult, ReadWarning

# the metric only the Trainer's end-of-training summary entry carries
SUMMARY_METRIC = "train_runtime"
# the held-out curves an evaluation after the summary would end with
HELD_OUT_ROLES = ("val_loss", "val_score")


def drop_final_evaluations(result: IngestResult) -> None:
    """Drop each run's validation rows logged after its Trainer summary, and say so."""
    frame = result.frame
    if frame.empty:
        return
    summary = (frame["metric"] == SUMMARY_METRIC).to_numpy(dtype=bool, na_value=False)
    if not summary.any():
        return
    runs = frame["run"].to_numpy()
    seq = frame["seq"].to_numpy()
    after = np.zeros(len(frame), dtype=bool)
    held_out = frame["role"].isin(HELD_OUT_ROLES).to_numpy()
    for run in np.unique(runs[summary]):
        mine = runs == run
        end = seq[summary & mine].min()
        after |= mine & held_out & (seq > end)
    if not after.any():
        return
    names = sorted(set(frame.loc[after, "metric"].astype(str)))
    result.frame = frame.loc[~after].reset_index(drop=True)
    shown = ", ".join(names[:3]) + (", ..." if len(names) > 3 else "")
    result.warnings.append(
        ReadWarning(
            f"{int(after.sum())} evaluation value(s) ({shown}) logged after the Trainer's "
            "end-of-training summary were left out: a trainer.evaluate() after training scores "
            "the final (or best-loaded) model, often on another split, and is no point of the "
            "validation curve",
            result.files[0] if result.files else None,
        )
    )
