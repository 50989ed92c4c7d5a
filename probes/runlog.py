"""The probes' own runs as evidence: JSONL logs on disk, diagnosed by the same classifiers.

Each short run is written as one JSON object per step (step, loss, grad_norm, lr) and turned
into a normalised frame with `make_frame`, so "exploding at LR, gone at LR/10" is decided by the
very classifiers that raised the finding in the first place.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from lossforensics.classifiers.diagnose import diagnose
from lossforensics.classifiers.frame import make_frame
from lossforensics.probes.setup import ProbeSetup
from lossforensics.probes.train import TrainLog, stability

# Labels that mean "this run is unstable" when the classifiers put them on a probe's re-run.
UNSTABLE_LABELS = frozenset({"nan", "exploding"})


def write_jsonl(log: TrainLog, path: Path) -> Path:
    """One object per step; non-finite values are written as NaN/Infinity (Python's json)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = [json.dumps(rec) for rec in log.records()]
    path.write_text("\n".join(lines) + ("\n" if lines else ""), encoding="utf-8")
    return path


def frame_of(log: TrainLog, run: str) -> pd.DataFrame:
    """The run as a normalised frame: metrics loss (train_loss), grad_norm and lr."""
    n = len(log.loss)
    names = np.repeat(np.array(["loss", "grad_norm", "lr"], dtype=object), n)
    steps = np.tile(log.steps, 3)
    values = np.concatenate([log.loss, log.grad_norm, log.lr])
    # a step the GradScaler skipped never touched the weights: its inf gradient norm is the
    # scaler probing its range, not the run's gradient, so the classifiers do not see it
    keep = np.concatenate([np.ones(n, bool), ~log.skip_mask, np.ones(n, bool)])
    order = np.lexsort((np.repeat(np.arange(3), n)[keep], steps[keep]))  # step-major, like JSONL
    return make_frame(run, names[keep][order], steps[keep][order], values[keep][order])


def diagnosed_labels(frame: pd.DataFrame) -> list[str]:
    """The labels lossforensics.classifiers.diagnose gives the frame (healthy: none)."""
    return list(diagnose(frame).labels)


def record(setup: ProbeSetup, probe: str, log: TrainLog) -> dict[str, Any]:
    """Write the run's JSONL, diagnose it, and summarise it for the probe's result."""
    path = write_jsonl(log, setup.run_dir(probe) / f"{log.name}.jsonl")
    labels = diagnosed_labels(frame_of(log, f"{probe}/{log.name}")) if len(log.loss) else []
    stab = stability(log.loss)
    unstable = stab.diverged() or bool(set(labels or ()) & UNSTABLE_LABELS)
    first_lr = float(log.lr[0]) if len(log.lr) else float("nan")
    return {
        "log": str(path),
        "labels": labels,
        "unstable": unstable,
        "first_lr": first_lr,
        **stab.to_dict(),
        **log.settings,
    }
