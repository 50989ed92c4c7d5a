"""A small sweep written directly to disk: runs at high LR explode, the others are healthy."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

EXPLODE_LR = 1e-2
SWEEP_LRS = (1e-4, 3e-4, 1e-3, 3e-3, 1e-2, 3e-2)


def loss_curve(lr: float, seed: int, n: int = 400) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    steps = np.arange(n)
    loss = (0.3 + 2.0 * np.exp(-steps / (n / 3))) * (1 + 0.01 * rng.standard_normal(n))
    if lr >= EXPLODE_LR:
        start = int(n * 0.6)
        loss = np.where(steps >= start, loss * np.exp(np.clip((steps - start) / 8, 0, 40)), loss)
        loss[int(n * 0.85) :] = np.nan
    return steps, loss


def write_jsonl_run(d: Path, lr: float, seed: int) -> Path:
    d.mkdir(parents=True, exist_ok=True)
    steps, loss = loss_curve(lr, seed)
    lines = [
        json.dumps({"step": int(s), "train/loss": float(v), "lr": lr})
        for s, v in zip(steps, loss, strict=True)
    ]
    (d / "log.jsonl").write_text("\n".join(lines) + "\n")
    return d / "log.jsonl"


def write_keras_run(d: Path, lr: float, seed: int) -> Path:
    d.mkdir(parents=True, exist_ok=True)
    steps, loss = loss_curve(lr, seed)
    rows = [f"{s},{float(v)!r}" for s, v in zip(steps, loss, strict=True)]
    (d / "training.log").write_text("epoch,loss\n" + "\n".join(rows) + "\n")
    return d / "training.log"


@pytest.fixture(scope="session")
def sweep(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """18 runs (6 LRs x 3 seeds, JSONL and Keras CSV mixed), one unreadable log, one empty dir.
    Shared by the audit tests: treat as read-only."""
    root = tmp_path_factory.mktemp("audit") / "experiments"
    for i, lr in enumerate(SWEEP_LRS):
        for seed in range(3):
            d = root / "sweep" / f"lr-{lr:g}" / f"seed{seed}"
            (write_jsonl_run if (i + seed) % 2 else write_keras_run)(d, lr, 10 * i + seed)
    bad = root / "broken" / "log.jsonl"  # looks like JSONL, holds no numbers: fails to read
    bad.parent.mkdir(parents=True)
    bad.write_text('{"msg": "starting"}\n{"msg": "done"}\n')
    (root / "empty").mkdir()
    return root
