"""activation_health: forward hooks on the activation modules over a few batches.

Question: how many ReLU units are dead, and how many sigmoid/tanh outputs saturated?
A ReLU-family unit (a channel: dim 1 of a 2-D, 4-D or 5-D output, the last dim of a 3-D one) is
dead when it outputs <= 0 for every sample and position seen. A sigmoid output is saturated
below 0.01 or above 0.99, a tanh one beyond +-0.99 (the gradient there is a few % of its peak).
Every leaf module's output RMS is recorded too: the signal's scale layer by layer (bad
initialisation shows as activations growing or shrinking by orders of magnitude).
Verdict on "unhealthy activations (dead, saturated, or exploding/shrinking in scale)":
  confirmed     some layer has >= `dead_tol` (50%) dead units or >= `saturated_tol` (50%)
                saturated outputs, or some leaf's output RMS is over `scale_tol` (1e3) times the
                input's, or the last leaf's under 1/`scale_tol` of the first leaf's
  refuted       none of that
  inconclusive  no activation module to hook and the scale is fine (F.relu inside forward
                cannot be seen)
"""

from __future__ import annotations

from typing import Any

from lossforensics.probes._torch import require_torch
from lossforensics.probes.base import Outcome, probe
from lossforensics.probes.result import CONFIRMED, INCONCLUSIVE, REFUTED
from lossforensics.probes.setup import ProbeSetup, forward, tensors_in

NAME = "activation_health"
RELU_LIKE = ("ReLU", "ReLU6", "Threshold")
SATURATING = {
    "Sigmoid": (0.01, 0.99),
    "Hardsigmoid": (0.01, 0.99),
    "Tanh": (-0.99, 0.99),
    "Hardtanh": (-0.99, 0.99),
    "Softsign": (-0.99, 0.99),
}


def _unit_dim(out: Any) -> int:
    return out.dim() - 1 if out.dim() == 3 else min(1, out.dim() - 1)


@probe(
    NAME,
    question="What fraction of ReLU units is dead, of sigmoid/tanh outputs saturated?",
    hypothesis="unhealthy activations (dead, saturated, or exploding/shrinking in scale)",
)
def run(
    setup: ProbeSetup,
    *,
    batches: int = 2,
    dead_tol: float = 0.5,
    saturated_tol: float = 0.5,
    scale_tol: float = 1e3,
) -> Outcome:
    torch = require_torch()
    model = setup.live_model()
    model.train()
    stats: dict[str, dict[str, Any]] = {}
    rms: dict[str, float] = {}
    input_rms: list[float] = []

    def rms_hook_for(name: str) -> Any:
        def hook(module: Any, args: Any, out: Any) -> None:
            if isinstance(out, torch.Tensor) and out.is_floating_point() and out.numel():
                rms[name] = float(out.detach().float().pow(2).mean().sqrt())

        return hook

    def hook_for(name: str, kind: str) -> Any:
        def hook(module: Any, args: Any, out: Any) -> None:
            if not isinstance(out, torch.Tensor) or out.dim() == 0:
                return
            s = stats.setdefault(
                name,
                {
                    "kind": kind,
                    "type": type(module).__name__,
                    "alive": None,
                    "saturated": 0,
                    "seen": 0,
                },
            )
            out = out.detach().float()
            if kind == "relu":
                dim = _unit_dim(out)
                others = [d for d in range(out.dim()) if d != dim]
                alive = (out > 0).any(dim=others) if others else out > 0
                s["alive"] = alive if s["alive"] is None else s["alive"] | alive
            else:
                lo, hi = SATURATING[type(module).__name__]
                s["saturated"] += int(((out <= lo) | (out >= hi)).sum())
                s["seen"] += out.numel()

        return hook

    handles = []
    for name, module in model.named_modules():
        kind = (
            "relu"
            if type(module).__name__ in RELU_LIKE
            else "saturating"
            if type(module).__name__ in SATURATING
            else None
        )
        if kind:
            handles.append(module.register_forward_hook(hook_for(name or "(root)", kind)))
        if name and not any(True for _ in module.children()):
            handles.append(module.register_forward_hook(rms_hook_for(name)))
    try:
        with torch.no_grad():
            for x, _ in setup.batches(batches):
                floats = [t.float() for t in tensors_in(x) if t.is_floating_point()]
                if floats:
                    input_rms.append(
                        float(torch.cat([t.reshape(-1) for t in floats]).pow(2).mean().sqrt())
                    )
                forward(model, x)
    finally:
        for h in handles:
            h.remove()
    table = {}
    for name, s in stats.items():
        if s["kind"] == "relu":
            units = int(s["alive"].numel())
            table[name] = {
                "type": s["type"],
                "units": units,
                "dead_fraction": float(1 - s["alive"].float().mean()),
            }
        else:
            table[name] = {
                "type": s["type"],
                "outputs": s["seen"],
                "saturated_fraction": s["saturated"] / max(s["seen"], 1),
            }
    dead = {
        n: r["dead_fraction"] for n, r in table.items() if r.get("dead_fraction", 0.0) >= dead_tol
    }
    sat = {
        n: r["saturated_fraction"]
        for n, r in table.items()
        if r.get("saturated_fraction", 0.0) >= saturated_tol
    }
    scale = _scale_flags(rms, input_rms[-1] if input_rms else None, scale_tol)
    numbers = {
        "layers": table,
        "dead": dead,
        "saturated": sat,
        "dead_tol": dead_tol,
        "saturated_tol": saturated_tol,
        "output_rms": rms,
        "scale_tol": scale_tol,
        "input_rms": input_rms[-1] if input_rms else None,
        "scale_flags": scale,
    }
    if dead or sat or scale:
        parts = [f"{n} {v:.0%} dead" for n, v in dead.items()]
        parts += [f"{n} {v:.0%} saturated" for n, v in sat.items()]
        parts += list(scale.values())
        return Outcome(CONFIRMED, f"unhealthy activations: {', '.join(parts[:6])}", numbers)
    if not table:
        return Outcome(
            INCONCLUSIVE,
            "no activation module to hook (functional activations "
            "such as F.relu inside forward cannot be seen); output scales are fine",
            numbers,
        )
    worst_dead = max((r.get("dead_fraction", 0.0) for r in table.values()), default=0.0)
    worst_sat = max((r.get("saturated_fraction", 0.0) for r in table.values()), default=0.0)
    return Outcome(
        REFUTED,
        f"activations healthy in {len(table)} layer(s): at most "
        f"{worst_dead:.0%} dead, {worst_sat:.0%} saturated, no runaway scale",
        numbers,
    )


def _scale_flags(rms: dict[str, float], input_rms: float | None, tol: float) -> dict[str, str]:
    """Leaves whose output RMS grew `tol`x over the input's; the signal shrinking `tol`x from the
    first leaf to the last."""
    flags = {}
    if input_rms and rms:
        name, top = max(rms.items(), key=lambda kv: kv[1])
        if top > tol * input_rms:
            flags["exploding"] = (
                f"{name} output RMS {top:.3g} is {top / input_rms:.3g}x the input's"
            )
    values = list(rms.values())
    if len(values) >= 2 and values[0] > 0 and values[-1] < values[0] / tol:
        flags["shrinking"] = (
            f"output RMS falls from {values[0]:.3g} to {values[-1]:.3g} "
            "from the first layer to the last"
        )
    return flags
