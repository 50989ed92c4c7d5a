"""The short training loop every re-running probe shares, and how to tell a run went wrong.

One loop, so LR/10, clipped, fp32 and bf16 re-runs differ only in the one thing each probe
changes. It logs, per step, the loss, the total gradient norm before any clipping, and the LR;
it stops at the first non-finite loss (that step is logged: it is the evidence).
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from lossforensics.classifiers.errors import ProbeError
from lossforensics.probes._torch import require_torch
from lossforensics.probes.setup import ProbeSetup, forward

AUTOCAST_DTYPES = {"bf16": "bfloat16", "fp16": "float16"}


@dataclass
class TrainLog:
    """One short run: per-step arrays (as long as the steps taken)."""

    name: str
    loss: np.ndarray
    grad_norm: np.ndarray
    lr: np.ndarray
    settings: dict[str, Any] = field(default_factory=dict)
    # steps a GradScaler skipped (inf/NaN gradients at the current scale: routine in fp16)
    skipped: np.ndarray | None = None

    def __post_init__(self) -> None:
        if self.skipped is None:
            self.skipped = np.zeros(len(self.loss), dtype=bool)

    @property
    def skip_mask(self) -> np.ndarray:
        """Which steps a GradScaler skipped (all False where none were recorded)."""
        if self.skipped is None:
            return np.zeros(len(self.loss), dtype=bool)
        return self.skipped

    @property
    def steps(self) -> np.ndarray:
        return np.arange(len(self.loss), dtype=np.int64)

    def records(self) -> list[dict[str, Any]]:
        """One JSON object per step: step, loss, grad_norm, lr (and scaler_skipped: true on the
        steps a GradScaler skipped)."""
        rows = [
            {"step": int(s), "loss": float(a), "grad_norm": float(g), "lr": float(r)}
            for s, a, g, r in zip(self.steps, self.loss, self.grad_norm, self.lr, strict=True)
        ]
        for i in np.flatnonzero(self.skip_mask):
            rows[i]["scaler_skipped"] = True
        return rows


def total_grad_norm(params: list[Any]) -> float:
    """L2 norm of all gradients together (inf/NaN when any gradient is)."""
    torch = require_torch()
    grads = [p.grad.detach() for p in params if p.grad is not None]
    if not grads:
        return 0.0
    norms = torch.stack([torch.linalg.vector_norm(g.float()) for g in grads])
    return float(torch.linalg.vector_norm(norms))


def train(
    setup: ProbeSetup,
    model: Any,
    optimizer: Any,
    *,
    name: str,
    steps: int | None = None,
    batches: Iterable[tuple[Any, Any]] | None = None,
    clip: float | None = None,
    precision: str = "fp32",
    lr_at: Callable[[int], float] | None = None,
    lr_scale: float = 1.0,
) -> TrainLog:
    """Train `model` for `steps` steps (default setup.steps) on `batches` (default the setup's
    seeded stream) and log every step. `lr_scale` multiplies every param group's LR; `lr_at(step)`
    sets it outright (the LR range test); `clip` is a max total grad norm; `precision` is fp32,
    bf16 (autocast) or fp16 (autocast with a GradScaler, CUDA only)."""
    torch = require_torch()
    steps = setup.steps if steps is None else steps
    batches = setup.batches(steps) if batches is None else batches
    device_type = setup.torch_device.type
    if precision not in ("fp32", *AUTOCAST_DTYPES):
        raise ProbeError(f"unknown precision {precision!r}")
    if precision == "fp16" and device_type != "cuda":
        raise ProbeError("fp16 autocast with a GradScaler needs a CUDA device")
    scaler = torch.amp.GradScaler(device_type) if precision == "fp16" else None
    base = [float(g["lr"]) for g in optimizer.param_groups]
    for group, lr in zip(optimizer.param_groups, base, strict=True):
        group["lr"] = lr * lr_scale
    params = [p for p in model.parameters() if p.requires_grad]
    losses: list[float] = []
    norms: list[float] = []
    lrs: list[float] = []
    skipped: list[bool] = []
    model.train()
    for step, (x, y) in enumerate(batches):
        if step >= steps:
            break
        if lr_at is not None:
            for group in optimizer.param_groups:
                group["lr"] = lr_at(step)
        try:
            loss, norm, skip = _step(
                model, optimizer, x, y, setup.loss_fn, params, clip, precision, device_type, scaler
            )
        except ProbeError:
            raise
        except Exception as exc:  # the user's model or loss failed: say where, keep the type
            raise ProbeError(
                f"run {name!r} failed at step {step}: {type(exc).__name__}: {exc}"
            ) from exc
        losses.append(loss)
        norms.append(norm)
        skipped.append(skip)
        lrs.append(float(optimizer.param_groups[0]["lr"]))
        if not math.isfinite(loss):
            break
    return TrainLog(
        name,
        np.asarray(losses, float),
        np.asarray(norms, float),
        np.asarray(lrs, float),
        {"clip": clip, "precision": precision, "lr_scale": lr_scale},
        np.asarray(skipped, bool),
    )


def _step(
    model: Any,
    optimizer: Any,
    x: Any,
    y: Any,
    loss_fn: Callable,
    params: list[Any],
    clip: float | None,
    precision: str,
    device_type: str,
    scaler: Any,
) -> tuple[float, float, bool]:
    """One optimisation step: (loss, total grad norm before clipping, skipped by the scaler)."""
    torch = require_torch()
    optimizer.zero_grad(set_to_none=True)
    if precision == "fp32":
        cast = contextlib.nullcontext()
    else:
        cast = torch.autocast(device_type, dtype=getattr(torch, AUTOCAST_DTYPES[precision]))
    with cast:
        out = forward(model, x)
        loss = loss_fn(out, y)
    if not isinstance(loss, torch.Tensor) or loss.numel() != 1:
        raise ProbeError("loss_fn must return a scalar tensor")
    value = float(loss.detach().float())
    if not math.isfinite(value):
        return value, math.nan, False
    if scaler is not None:
        scaler.scale(loss).backward()
        scaler.unscale_(optimizer)
    else:
        loss.backward()
    if clip is not None:
        norm = float(torch.nn.utils.clip_grad_norm_(params, clip))
    else:
        norm = total_grad_norm(params)
    skipped = False
    if scaler is not None:
        scale = scaler.get_scale()
        scaler.step(optimizer)
        scaler.update()
        skipped = scaler.get_scale() < scale  # the scale backs off exactly when it skipped
    else:
        optimizer.step()
    return value, norm, skipped


@dataclass(frozen=True)
class Stability:
    """How one run's loss behaved: non-finite, diverged, or trained."""

    steps: int
    first_nonfinite_step: int | None
    start_loss: float
    end_loss: float
    best_loss: float
    max_loss: float

    @property
    def nonfinite(self) -> bool:
        return self.first_nonfinite_step is not None

    @property
    def rise(self) -> float:
        """End level over start level (>1: the loss went up)."""
        return level_ratio(self.end_loss, self.start_loss)

    def diverged(self, *, rise_tol: float = 1.5, blowup_tol: float = 10.0) -> bool:
        """Non-finite, or ended `rise_tol`x above where it started, or peaked `blowup_tol`x
        above it."""
        return (
            self.nonfinite
            or self.rise > rise_tol
            or level_ratio(self.max_loss, self.start_loss) > blowup_tol
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "steps": self.steps,
            "first_nonfinite_step": self.first_nonfinite_step,
            "start_loss": self.start_loss,
            "end_loss": self.end_loss,
            "best_loss": self.best_loss,
            "max_loss": self.max_loss,
            "rise": self.rise,
            "diverged": self.diverged(),
        }


def stability(loss: np.ndarray) -> Stability:
    """Summarise a loss curve: the start is the median of the first tenth, the end the median
    of the last quarter of the finite prefix."""
    loss = np.asarray(loss, float)
    bad = np.flatnonzero(~np.isfinite(loss))
    first_bad = int(bad[0]) if bad.size else None
    good = loss[: first_bad if first_bad is not None else len(loss)]
    if good.size == 0:
        nan = math.nan
        return Stability(len(loss), first_bad, nan, nan, nan, nan)
    head = good[: max(1, good.size // 10)]
    tail = good[-max(1, good.size // 4) :]
    return Stability(
        len(loss),
        first_bad,
        float(np.median(head)),
        float(np.median(tail)),
        float(good.min()),
        float(good.max()),
    )


def level_ratio(a: float, b: float) -> float:
    """a relative to b for loss levels: a/b for a positive b; for a negative b (log-likelihood
    losses) 2 - a/b, so that above 1 still means "a is higher"."""
    if not (math.isfinite(a) and math.isfinite(b)):
        return math.nan
    if b == 0:
        return math.inf if a > 0 else 1.0
    return a / b if b > 0 else (2.0 - a / b)
