"""Keras CSVLogger (`training.log`): one row per epoch, `epoch` (0-based) then the logs' keys
sorted, `NA` where a key is missing that epoch (validation_freq > 1), csv's default dialect
(CRLF). Variants: tf.keras 2 names (`accuracy`, `lr`), Keras 3 (`learning_rate`) and the old
Keras 1/2.0 names (`acc`, `val_acc`). A resumed run with `append=True` and no `initial_epoch`
appends rows whose epochs restart at 0, without a second header.
"""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np

from benchmarks.corpus.views import LoggedRun
from benchmarks.corpus.writers.common import pyfloat

KERAS_VARIANTS = ("tf2", "keras3", "old")

_NAMES = {
    "tf2": {
        "loss": "loss",
        "acc": "accuracy",
        "lr": "lr",
        "val_loss": "val_loss",
        "val_acc": "val_accuracy",
    },
    "keras3": {
        "loss": "loss",
        "acc": "accuracy",
        "lr": "learning_rate",
        "val_loss": "val_loss",
        "val_acc": "val_accuracy",
    },
    "old": {"loss": "loss", "acc": "acc", "lr": "lr", "val_loss": "val_loss", "val_acc": "val_acc"},
}


def write_keras_csv(run: LoggedRun, dest: Path, *, variant: str = "tf2") -> list[str]:
    dest.mkdir(parents=True, exist_ok=True)
    names = _NAMES[variant]
    keys = sorted({names[k] for r in run.rows for k in r.values if k in names})
    with (dest / "training.log").open("w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=["epoch", *keys])
        w.writeheader()
        for r in run.rows:
            row: dict = {"epoch": r.epoch}
            for k, v in r.values.items():
                if k not in names:
                    continue
                # the LR comes from the optimizer as a float32 numpy scalar: str() prints it short
                row[names[k]] = str(np.float32(v)) if k == "lr" else pyfloat(v)
            w.writerow({k: row.get(k, "NA") for k in ["epoch", *keys]})
    return ["training.log"]
