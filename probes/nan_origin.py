"""nan_origin: train for up to N steps with a forward hook on every module and autograd's
anomaly detection on, and stop at the first non-finite value.

Question: where does the first non-finite value come from?
Each step checks, in order: the weights (non-finite after the previous update: an optimisation
blow-up), the batch (data), every module's output as it is produced (the first module whose
output is non-finite: numerics there if its input was finite; if its input already was, a
functional op before it in the parent's forward), the loss, then the backward (anomaly mode names
the autograd function) and the gradients (overflow).
origin kind: data | numerics | optimisation (weights or gradients non-finite, or the gradient
norm jumped >= 10x its median, or the loss rose >= 10x above its best, just before).
Verdict on "non-finite values arise during training" (refuted when none within N steps). A cause
about data confirms on kind data and refutes on the others; one about a layer's numerics on
numerics; one about the LR / warmup / clipping / fp16 on optimisation.
"""

from __future__ import annotations

import math
import re
import warnings
from typing import Any

import numpy as np
from lossforensics.probes._torch import require_torch
from lossforensics.probes.base import Outcome, mentions, probe
from lossforensics.probes.result import CONFIRMED, REFUTED, ProbeResult
from lossforensics.probes.setup import ProbeSetup, forward, tensors_in
from lossforensics.probes.train import total_grad_norm

NAME = "nan_origin"
_KIND_WORDS = {
    "data": ("data", "input", "sample", "batch", "label", "preprocess"),
    "numerics": ("numeric", "log(", "divide", "division", "sqrt", "softmax", "layer", "init"),
    "optimisation": ("learning rate", "lr", "warmup", "clip", "blow", "fp16", "overflow", "optimi"),
}


def judge(result: ProbeResult, cause: str) -> str:
    kind = result.numbers.get("kind")
    if kind is None:
        return result.verdict
    for name, words in _KIND_WORDS.items():
        if mentions(cause, *words):
            return CONFIRMED if kind == name else REFUTED
    return result.verdict


def nonfinite(value: Any) -> bool:
    torch = require_torch()
    return any(
        t.is_floating_point() and not bool(torch.isfinite(t).all()) for t in tensors_in(value)
    )


@probe(
    NAME,
    question="Which module produces the first non-finite value: data or numerics?",
    hypothesis="non-finite values arise during training",
    judge=judge,
)
def run(setup: ProbeSetup, *, steps: int | None = None) -> Outcome:
    steps = setup.steps if steps is None else steps
    model = setup.live_model()
    optimizer = setup.optimizer if setup.model is not None else None
    if optimizer is None and setup.optimizer_fn is not None:
        optimizer = setup.make_optimizer(model)
    if optimizer is None:
        steps = 1  # nothing to train with: check one forward/backward
    names = {m: (n or "(root)") for n, m in model.named_modules()}
    first: dict[str, Any] = {}

    def hook(module: Any, args: Any, kwargs: Any, out: Any) -> None:
        if not first and nonfinite(out):
            first.update(
                module=names[module],
                type=type(module).__name__,
                input_nonfinite=nonfinite((args, kwargs)),
            )

    handles = [m.register_forward_hook(hook, with_kwargs=True) for m in model.modules()]
    history: dict[str, list[float]] = {"grad_norm": [], "loss": []}
    found: dict[str, Any] = {}
    model.train()
    try:
        for step, (x, y) in enumerate(setup.batches(steps)):
            found = _check_step(setup, model, optimizer, x, y, first, history)
            if found:
                found["step"] = step
                break
    finally:
        for h in handles:
            h.remove()
    checked = len(history["grad_norm"]) + bool(found)
    if not found:
        return Outcome(
            REFUTED,
            f"no non-finite value in {checked} steps (forward, loss, "
            "backward and gradients all finite)",
            {"steps_checked": checked, "grad_norms": history["grad_norm"][-20:]},
        )
    if found["kind"] == "numerics":
        found.update(_blow_up(history))
    numbers = {"steps_checked": checked, "grad_norms": history["grad_norm"][-20:], **found}
    hint = f", {found['cause_hint']}" if "cause_hint" in found else ""
    return Outcome(
        CONFIRMED, f"{found['kind']}: {found['where']}{hint} at step {found['step']}", numbers
    )


def _blow_up(history: dict[str, list[float]]) -> dict[str, Any]:
    """Numerics that follow a 10x grad-norm jump, or a loss risen 10x above its best, are an
    optimisation blow-up: the values overflowed because the weights ran away."""
    norms, losses = np.asarray(history["grad_norm"]), np.asarray(history["loss"])
    if len(norms) < 3:
        return {}
    jump = float(norms[-1] / max(float(np.median(norms[:-1])), 1e-12))
    best = float(losses.min())
    rise = float(losses[-1] / best) if best > 0 else 1.0
    out: dict[str, Any] = {"grad_norm_jump": jump, "loss_rise": rise}
    if jump >= 10 or rise >= 10:
        why = f"a {jump:.3g}x grad-norm jump" if jump >= 10 else f"the loss rising {rise:.3g}x"
        out.update(kind="optimisation", cause_hint=f"right after {why}")
    return out


def _check_step(
    setup: ProbeSetup,
    model: Any,
    optimizer: Any,
    x: Any,
    y: Any,
    first: dict[str, Any],
    history: dict[str, list[float]],
) -> dict[str, Any]:
    """The first non-finite thing this step produces, or {} when everything stayed finite."""
    torch = require_torch()
    bad_params = [n for n, p in model.named_parameters() if nonfinite(p.detach())]
    if bad_params:
        return {
            "kind": "optimisation",
            "module": bad_params[0],
            "where": f"weights of {bad_params[0]} non-finite after the previous update",
        }
    if nonfinite(x) or nonfinite(y):
        part = "input" if nonfinite(x) else "target"
        count = sum(
            int((~torch.isfinite(t)).sum()) for t in tensors_in(x if part == "input" else y)
        )
        return {
            "kind": "data",
            "module": None,
            "nonfinite_values": count,
            "where": f"the batch's {part} holds {count} non-finite value(s)",
        }
    if optimizer is not None:
        optimizer.zero_grad(set_to_none=True)
    with warnings.catch_warnings(record=True) as caught, torch.autograd.detect_anomaly():
        warnings.simplefilter("always")
        out = forward(model, x)
        if first:
            return _from_forward(first)
        loss = setup.loss_fn(out, y)
        if nonfinite(loss):
            return {
                "kind": "numerics",
                "module": "loss_fn",
                "where": "loss_fn turns a finite output into a non-finite loss",
            }
        try:
            loss.backward()
        except RuntimeError as exc:
            match = re.search(r"Function '(\w+)' returned nan", str(exc))
            if not match:
                raise
            trace = [str(w.message) for w in caught if "Traceback" in str(w.message)]
            return {
                "kind": "numerics",
                "module": None,
                "backward_function": match.group(1),
                "forward_trace": trace[-1][-1500:] if trace else None,
                "where": f"the backward of {match.group(1)} returned NaN",
            }
    params = [p for p in model.parameters() if p.grad is not None]
    norm = total_grad_norm(params)
    if not math.isfinite(norm):
        bad = [n for n, p in model.named_parameters() if p.grad is not None and nonfinite(p.grad)]
        return {
            "kind": "optimisation",
            "module": bad[0] if bad else None,
            "where": f"the gradient of {bad[0] if bad else 'a parameter'} overflowed",
        }
    history["grad_norm"].append(norm)
    history["loss"].append(float(loss.detach()))
    if optimizer is not None:
        optimizer.step()
    return {}


def _from_forward(first: dict[str, Any]) -> dict[str, Any]:
    name = first["module"]
    if first["input_nonfinite"]:
        parent = name.rsplit(".", 1)[0] if "." in name else "(root)"
        where = (
            f"the input of {name} ({first['type']}) was already non-finite: a functional "
            f"op before it in {parent}.forward produced it"
        )
    else:
        where = f"{name} ({first['type']}) turned finite input into non-finite output"
    return {
        "kind": "numerics",
        "module": name,
        "module_type": first["type"],
        "input_nonfinite": first["input_nonfinite"],
        "where": where,
    }
