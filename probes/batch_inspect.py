"""batch_inspect: statistics of the first few batches, inputs and targets.

Question: do the batches hold NaN/inf, unnormalised values, or labels the model cannot take?
Flags: `nonfinite` (NaN or inf in x or y); `scale` (a float input with |x| above `scale_tol`,
default 1e3, a std above `scale_tol`/10, or all of it under 1e-3 in size: not normalised);
`label_range` (integer targets below 0, or at/above the number of classes the model outputs);
`sorted_labels` (integer labels: batches hold on average less than halfway between 1 and the
number of distinct labels shuffled batches of that size would hold: sorted, not shuffled).
Verdict on "the data is at fault (non-finite, unnormalised or mislabelled batches)":
  confirmed     any flag
  refuted       none
A cause reads the flag it is about: unshuffled / sorted data `sorted_labels`, NaN or inf
`nonfinite`, normalisation `scale`; one about validation data or data set size is inconclusive
(only training batches are inspected).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from lossforensics.probes._torch import require_torch
from lossforensics.probes.base import Outcome, mentions, probe
from lossforensics.probes.result import CONFIRMED, INCONCLUSIVE, REFUTED, ProbeResult
from lossforensics.probes.setup import ProbeSetup, forward, tensors_in

NAME = "batch_inspect"


def judge(result: ProbeResult, cause: str) -> str:
    flags = result.numbers.get("flags", {})
    if mentions(cause, "shuffl", "sorted", "ordering"):
        if result.numbers.get("integer_targets") is not True:
            return INCONCLUSIVE
        return CONFIRMED if "sorted_labels" in flags else REFUTED
    if mentions(cause, "validation", "too little training data"):
        return INCONCLUSIVE  # only training batches are inspected; their count says little
    if mentions(cause, "nan or inf", "non-finite"):
        return CONFIRMED if "nonfinite" in flags else REFUTED
    if mentions(cause, "normalis", "normaliz", "input scale"):
        return CONFIRMED if "scale" in flags else REFUTED
    return result.verdict


def tensor_stats(t: Any) -> dict[str, Any]:
    """NaN/inf counts and the finite values' range, mean and std of one tensor."""
    torch = require_torch()
    t = t.detach()
    floating = t.is_floating_point()
    stats: dict[str, Any] = {
        "shape": list(t.shape),
        "dtype": str(t.dtype).replace("torch.", ""),
        "nan": int(torch.isnan(t).sum()) if floating else 0,
        "inf": int(torch.isinf(t).sum()) if floating else 0,
    }
    vals = t[torch.isfinite(t)].double() if floating else t.reshape(-1).double()
    if vals.numel():
        stats.update(
            min=float(vals.min()),
            max=float(vals.max()),
            mean=float(vals.mean()),
            std=float(vals.std()) if vals.numel() > 1 else 0.0,
        )
    return stats


@probe(
    NAME,
    question="Do the batches hold NaN/inf, unnormalised scales or bad labels?",
    hypothesis="the data is at fault (non-finite, unnormalised or mislabelled batches)",
    judge=judge,
)
def run(setup: ProbeSetup, *, batches: int = 4, scale_tol: float = 1e3) -> Outcome:
    torch = require_torch()
    seen = list(setup.batches(batches))
    classes = _classes(setup, seen[0][0])
    rows: list[dict[str, Any]] = []
    flags: dict[str, list[str]] = {}
    labels_per_batch: list[int] = []
    integer_targets = all(
        isinstance(y, torch.Tensor) and not y.is_floating_point() and not y.is_complex()
        for _, y in seen
    )
    for i, (x, y) in enumerate(seen):
        xs, ys = [tensor_stats(t) for t in tensors_in(x)], [tensor_stats(t) for t in tensors_in(y)]
        rows.append({"batch": i, "x": xs, "y": ys})
        bad = sum(s["nan"] + s["inf"] for s in xs + ys)
        if bad:
            flags.setdefault("nonfinite", []).append(f"batch {i}: {bad} NaN/inf value(s)")
        for s in xs:
            big = max(abs(s.get("min", 0.0)), abs(s.get("max", 0.0)))
            if (
                s["dtype"].startswith(("float", "bfloat"))
                and "max" in s
                and (big > scale_tol or s.get("std", 0.0) > scale_tol / 10 or big < 1e-3)
            ):
                flags.setdefault("scale", []).append(
                    f"batch {i}: input up to {big:.3g} (std {s.get('std', 0.0):.3g})"
                )
        if integer_targets:
            distinct = torch.unique(y.detach())
            labels_per_batch.append(int(distinct.numel()))
            lo, hi = int(distinct.min()), int(distinct.max())
            if lo < 0 or (classes is not None and hi >= classes):
                flags.setdefault("label_range", []).append(
                    f"batch {i}: labels {lo}..{hi}, model outputs {classes} classes"
                )
    diversity = _label_diversity(seen) if integer_targets and len(seen) > 1 else None
    if (
        diversity is not None
        and diversity["observed"] <= (1 + diversity["expected"]) / 2
        and diversity["expected"] >= 1.5
    ):
        flags["sorted_labels"] = [
            f"batches hold {diversity['observed']:.2g} distinct labels on average; shuffled "
            f"ones would hold {diversity['expected']:.2g}"
        ]
    numbers = {
        "batches": rows,
        "flags": flags,
        "model_classes": classes,
        "integer_targets": integer_targets,
        "labels_per_batch": labels_per_batch,
        "label_diversity": diversity,
        "scale_tol": scale_tol,
    }
    if flags:
        first = "; ".join(f"{k}: {v[0]}" for k, v in flags.items())
        return Outcome(
            CONFIRMED, f"{len(flags)} problem(s) in {len(seen)} batches - {first}", numbers
        )
    return Outcome(
        REFUTED,
        f"{len(seen)} batches clean: no NaN/inf, input scale within "
        f"1e-3..{scale_tol:g}" + (", labels in range and mixed" if integer_targets else ""),
        numbers,
    )


def _classes(setup: ProbeSetup, x: Any) -> int | None:
    """How many classes the model outputs (dim 1 of a float output), if it is a classifier."""
    torch = require_torch()
    model = setup.live_model()
    model.eval()
    try:
        with torch.no_grad():
            out = forward(model, x)
    except Exception:  # a model that cannot run the batch: the other probes will say why
        return None
    return int(out.shape[1]) if isinstance(out, torch.Tensor) and out.dim() >= 2 else None


def _label_diversity(seen: list[tuple[Any, Any]]) -> dict[str, float]:
    """Mean distinct labels per batch, observed and expected if the pooled labels were shuffled
    into batches of the same size (sum over labels of 1 - (1 - p)^n)."""
    torch = require_torch()
    pooled = torch.cat([y.detach().reshape(-1).cpu() for _, y in seen])
    _, counts = torch.unique(pooled, return_counts=True)
    p = counts.double() / counts.sum()
    n = float(np.mean([y.numel() for _, y in seen]))
    expected = float((1 - (1 - p) ** n).sum())
    observed = float(np.mean([torch.unique(y.detach()).numel() for _, y in seen]))
    return {"observed": observed, "expected": expected}
