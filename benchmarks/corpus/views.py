"""What a logger would have written from a training record: rows in order of appearance.

A `LoggedRun` is format-neutral: rows of canonical keys (`loss`, `acc`, `lr`, `grad_norm`,
`max_grad_norm` on train rows; `val_loss`, `val_acc`, `loss_epoch` on eval rows; all of them on
per-epoch rows). The label checks read it, and every writer turns it into its own files and
metric names, so a run's checks see exactly what its files hold.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from benchmarks.corpus.trainer import Record


@dataclass
class Row:
    kind: str  # train | eval | epoch
    step: int
    epoch: int
    values: dict[str, float]
    wall_time: float


@dataclass
class LoggedRun:
    name: str
    rows: list[Row]
    cadence: str  # step | epoch
    log_every: int
    steps_per_epoch: int
    classification: bool
    floor: float
    meta: dict = field(default_factory=dict)

    def series(self, key: str) -> tuple[np.ndarray, np.ndarray]:
        """(steps, values) of one key, in order of appearance."""
        pts = [(r.step, r.values[key]) for r in self.rows if key in r.values]
        if not pts:
            return np.zeros(0, dtype=np.int64), np.zeros(0)
        steps, values = zip(*pts, strict=True)
        return np.asarray(steps, dtype=np.int64), np.asarray(values, dtype=float)

    def keys(self) -> list[str]:
        seen: dict[str, None] = {}
        for r in self.rows:
            seen.update(dict.fromkeys(r.values))
        return list(seen)


@dataclass
class StepView:
    """Per-step logging: train rows every `every` steps, eval rows after validated epochs."""

    every: int = 1
    aggregate: str = "last"  # last | mean (mean over the interval, as HF Trainer logs loss)
    acc: bool = False
    lr: bool = True
    grad_norm: str | None = None  # pre | post | None
    max_grad_norm: bool = False
    val: bool = True
    val_acc: bool = False


@dataclass
class EpochView:
    """Per-epoch logging (Keras, epoch-level loggers)."""

    acc: bool = True
    lr: bool = False
    val: bool = True
    val_acc: bool = True


def _clock(rec: Record, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    dt = rng.uniform(0.05, 0.4)
    return 1_700_000_000.0 + (seed % 100_000) * 600.0 + np.arange(len(rec.loss)) * dt


def step_view(rec: Record, view: StepView, name: str, seed: int, meta: dict) -> LoggedRun:
    """Rows a per-step logger writes: every `view.every`-th step, plus validation rows."""
    clock = _clock(rec, seed)
    n = len(rec.loss)
    logged = (rec.step + 1) % view.every == 0
    if n and not np.isfinite(rec.loss[-1]):
        logged[-1] = True  # a dying run's last step is logged
    ep_end = {int(i): j for j, i in enumerate(_epoch_end_index(rec))}
    rows: list[Row] = []
    start = 0  # first step of the current logging interval
    for i in range(n):
        if i and rec.step[i] <= rec.step[i - 1]:
            start = i  # a resumed run starts a new interval
        if logged[i]:
            loss = rec.loss[start : i + 1].mean() if view.aggregate == "mean" else rec.loss[i]
            vals: dict[str, float] = {"loss": float(loss)}
            if view.acc and rec.classification:
                vals["acc"] = float(rec.acc[i])
            if view.lr:
                vals["lr"] = float(rec.lr[i])
            if view.grad_norm == "pre":
                vals["grad_norm"] = float(rec.grad_norm[i])
            elif view.grad_norm == "post":
                vals["grad_norm"] = float(rec.grad_norm_post[i])
            if view.max_grad_norm and rec.clip:
                vals["max_grad_norm"] = float(rec.clip)
            rows.append(Row("train", int(rec.step[i]), int(rec.epoch[i]), vals, float(clock[i])))
            start = i + 1
        j = ep_end.get(i)
        if j is not None and view.val and rec.ep_validated[j]:
            vals = {"val_loss": float(rec.ep_val_loss[j]), "loss_epoch": float(rec.ep_loss[j])}
            if view.val_acc and rec.classification:
                vals["val_acc"] = float(rec.ep_val_acc[j])
            rows.append(
                Row("eval", int(rec.ep_step[j]), int(rec.ep_epoch[j]), vals, float(clock[i]) + 0.5)
            )
    return LoggedRun(
        name, rows, "step", view.every, rec.steps_per_epoch, rec.classification, rec.floor, meta
    )


def _epoch_end_index(rec: Record) -> np.ndarray:
    """Index (into the step arrays) of each recorded epoch's last step, in order."""
    change = np.nonzero((np.diff(rec.epoch) != 0) | (np.diff(rec.step) <= 0))[0]
    ends = np.append(change, len(rec.epoch) - 1)
    return ends[: len(rec.ep_epoch)]


def epoch_view(rec: Record, view: EpochView, name: str, seed: int, meta: dict) -> LoggedRun:
    """Rows a per-epoch logger writes: one row per epoch."""
    clock = _clock(rec, seed)
    ends = _epoch_end_index(rec)
    rows: list[Row] = []
    for j, i in enumerate(ends):
        vals = {"loss": float(rec.ep_loss[j])}
        if view.acc and rec.classification:
            vals["acc"] = float(rec.ep_acc[j])
        if view.lr:
            vals["lr"] = float(rec.ep_lr[j])
        if view.val and rec.ep_validated[j]:
            vals["val_loss"] = float(rec.ep_val_loss[j])
            if view.val_acc and rec.classification:
                vals["val_acc"] = float(rec.ep_val_acc[j])
        rows.append(
            Row("epoch", int(rec.ep_step[j]), int(rec.ep_epoch[j]), vals, float(clock[i]) + 0.5)
        )
    return LoggedRun(
        name, rows, "epoch", 1, rec.steps_per_epoch, rec.classification, rec.floor, meta
    )
