"""train_eval_parity: the same batch through the model in train mode and in eval mode.

Question: does the model compute something different in train and eval mode (dropout,
BatchNorm running statistics)?
It measures the output gap between modes relative to the eval output, the loss gap relative to
the eval loss, and the train-mode noise (two train-mode passes) for scale.
Verdict on "train/eval mode differences (dropout, BatchNorm) change what the model computes":
  confirmed     the loss gap or the output gap is at least `tol` (10%)
  refuted       both are under it
A cause about a bug in the metric code is inconclusive: the probe does not compute metrics.
"""

from __future__ import annotations

from typing import Any

from lossforensics.probes._torch import require_torch
from lossforensics.probes.base import Outcome, mentions, probe
from lossforensics.probes.result import CONFIRMED, INCONCLUSIVE, REFUTED, ProbeResult
from lossforensics.probes.setup import ProbeSetup, forward, tensors_in

NAME = "train_eval_parity"


def judge(result: ProbeResult, cause: str) -> str:
    # mode parity says nothing about the metric code itself
    return INCONCLUSIVE if mentions(cause, "metric code", "argmax") else result.verdict


MODE_DEPENDENT = ("Dropout", "BatchNorm", "InstanceNorm", "AlphaDropout", "SyncBatchNorm")


def _flat(out: Any) -> Any:
    torch = require_torch()
    parts = [t.detach().float().reshape(-1) for t in tensors_in(out) if t.is_floating_point()]
    return torch.cat(parts) if parts else torch.zeros(0)


def _gap(a: Any, b: Any) -> float:
    torch = require_torch()
    if a.numel() == 0:
        return 0.0
    return float(torch.linalg.vector_norm(a - b) / (torch.linalg.vector_norm(b) + 1e-12))


@probe(
    NAME,
    question="Does the same batch give a different output/loss in train vs eval mode?",
    hypothesis="train/eval mode differences (dropout, BatchNorm) change what the model computes",
    judge=judge,
)
def run(setup: ProbeSetup, *, tol: float = 0.1) -> Outcome:
    torch = require_torch()
    model = setup.live_model()
    x, y = setup.first_batch()
    passes: dict[str, tuple[Any, float]] = {}
    with torch.no_grad():
        for label, train_mode in (("train", True), ("train_again", True), ("eval", False)):
            model.train(train_mode)
            torch.manual_seed(setup.seed + len(passes))
            out = forward(model, x)
            passes[label] = (_flat(out), float(setup.loss_fn(out, y)))
    out_gap = _gap(passes["train"][0], passes["eval"][0])
    noise = _gap(passes["train"][0], passes["train_again"][0])
    lt, le = passes["train"][1], passes["eval"][1]
    loss_gap = abs(lt - le) / (abs(le) + 1e-12)
    modes = sorted(
        {type(m).__name__ for m in model.modules() if type(m).__name__.startswith(MODE_DEPENDENT)}
    )
    numbers = {
        "output_gap": out_gap,
        "train_noise": noise,
        "loss_train": lt,
        "loss_eval": le,
        "loss_gap": loss_gap,
        "mode_dependent_modules": modes,
        "tol": tol,
    }
    which = ", ".join(modes) or "no dropout/BatchNorm module found"
    if max(out_gap, loss_gap) >= tol:
        return Outcome(
            CONFIRMED,
            f"train and eval mode differ: loss {lt:.4g} vs {le:.4g} "
            f"({loss_gap:.0%}), output gap {out_gap:.0%} (train-mode noise "
            f"{noise:.0%}); mode-dependent: {which}",
            numbers,
        )
    return Outcome(
        REFUTED,
        f"train and eval mode agree: loss gap {loss_gap:.1%}, output gap {out_gap:.1%} ({which})",
        numbers,
    )
