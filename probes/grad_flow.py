"""grad_flow: one backward pass on a few batches, gradient norms per layer.

Question: which layers get no gradient, or a vanishing one?
Each layer (a module owning parameters) gets a status: `frozen` (requires_grad is off),
`no_grad` (trainable but .grad stays None: detached from the loss or unused), `zero`,
`nonfinite`, `vanishing` (its norm is under `vanishing_ratio` of the largest layer's),
`not_in_optimizer` (a given optimizer does not hold it), or `ok`.
Verdict on "gradients do not reach some layers (frozen, detached or vanishing)":
  confirmed     at least one layer is not ok (the summary names them)
  refuted       every layer gets a healthy gradient
"""

from __future__ import annotations

import math
from typing import Any

from lossforensics.probes._torch import require_torch
from lossforensics.probes.base import Outcome, probe
from lossforensics.probes.result import CONFIRMED, REFUTED
from lossforensics.probes.setup import ProbeSetup, forward

NAME = "grad_flow"


def layer_of(param_name: str) -> str:
    """'encoder.0.weight' -> 'encoder.0'; a parameter on the root module -> '(root)'."""
    return param_name.rsplit(".", 1)[0] if "." in param_name else "(root)"


@probe(
    NAME,
    question="Which layers get no gradient, or a vanishing one?",
    hypothesis="gradients do not reach some layers (frozen, detached or vanishing)",
)
def run(setup: ProbeSetup, *, batches: int = 1, vanishing_ratio: float = 1e-3) -> Outcome:
    torch = require_torch()
    model = setup.live_model()
    model.train()
    model.zero_grad(set_to_none=True)
    detached = False
    for x, y in setup.batches(batches):
        loss = setup.loss_fn(forward(model, x), y)
        if not loss.requires_grad:
            detached = True
            break
        loss.backward()
    held = None
    if setup.optimizer is not None:
        held = {id(p) for g in setup.optimizer.param_groups for p in g["params"]}
    layers: dict[str, dict[str, Any]] = {}
    for name, p in model.named_parameters():
        entry = layers.setdefault(
            layer_of(name),
            {"params": 0, "sq": 0.0, "param_sq": 0.0, "trainable": 0, "with_grad": 0, "held": 0},
        )
        entry["params"] += p.numel()
        entry["param_sq"] += float(torch.linalg.vector_norm(p.detach().float())) ** 2
        entry["trainable"] += int(p.requires_grad)
        entry["held"] += int(held is None or id(p) in held)
        if p.grad is not None:
            entry["with_grad"] += 1
            entry["sq"] += float(torch.linalg.vector_norm(p.grad.detach().float())) ** 2
    table = {name: _row(e) for name, e in layers.items()}
    top = max(
        (r["grad_norm"] for r in table.values() if math.isfinite(r["grad_norm"])), default=0.0
    )
    for row in table.values():
        row["status"] = _status(row, top, vanishing_ratio, detached)
    bad = {n: r["status"] for n, r in table.items() if r["status"] != "ok"}
    numbers = {
        "layers": table,
        "flagged": bad,
        "max_grad_norm": top,
        "vanishing_ratio": vanishing_ratio,
        "loss_detached": detached,
    }
    if not table:
        return Outcome(CONFIRMED, "the model has no parameters at all", numbers)
    if detached:
        return Outcome(
            CONFIRMED,
            "the loss does not depend on any trainable parameter "
            "(a detached graph, or every parameter frozen)",
            numbers,
        )
    if bad:
        listed = ", ".join(f"{n} ({s})" for n, s in list(bad.items())[:6])
        more = f" and {len(bad) - 6} more" if len(bad) > 6 else ""
        return Outcome(
            CONFIRMED,
            f"{len(bad)} of {len(table)} layers get no healthy gradient: {listed}{more}",
            numbers,
        )
    low = min(table.values(), key=lambda r: r["grad_norm"])["grad_norm"]
    return Outcome(
        REFUTED, f"all {len(table)} layers get gradients (norms {low:.3g} to {top:.3g})", numbers
    )


def _row(e: dict[str, Any]) -> dict[str, Any]:
    return {
        "params": e["params"],
        "grad_norm": math.sqrt(e["sq"]) if e["with_grad"] else 0.0,
        "param_norm": math.sqrt(e["param_sq"]),
        "trainable": e["trainable"] > 0,
        "has_grad": e["with_grad"] > 0,
        "in_optimizer": e["held"] > 0,
    }


def _status(row: dict[str, Any], top: float, ratio: float, detached: bool) -> str:
    if not row["trainable"]:
        return "frozen"
    if detached or not row["has_grad"]:
        return "no_grad"
    if not math.isfinite(row["grad_norm"]):
        return "nonfinite"
    if not row["in_optimizer"]:
        return "not_in_optimizer"
    if row["grad_norm"] == 0.0:
        return "zero"
    if top > 0 and row["grad_norm"] < ratio * top:
        return "vanishing"
    return "ok"
