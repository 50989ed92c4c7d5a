"""JSON-lines metric logs, one object per logging call, in the shapes people write them:

slash      {"step": 120, "train/loss": 0.53, "lr": 0.001}       nanoGPT-style scripts
plain      {"iter": 120, "loss": 0.53, "val_loss": 0.61}          hand-rolled loggers
nested     {"step": 120, "train": {"loss": 0.53, "lr": 0.001}}    nested dicts
detectron  {"iteration": 119, "total_loss": 0.53, "lr": ...}      detectron2 metrics.json
"""

from __future__ import annotations

import json
from pathlib import Path

from benchmarks.corpus.views import LoggedRun

JSONL_VARIANTS = ("slash", "plain", "nested", "detectron")

_FLAT = {
    "slash": (
        "step",
        {
            "loss": "train/loss",
            "acc": "train/acc",
            "lr": "lr",
            "grad_norm": "train/grad_norm",
            "max_grad_norm": "max_grad_norm",
            "val_loss": "val/loss",
            "val_acc": "val/acc",
        },
    ),
    "plain": (
        "iter",
        {
            "loss": "loss",
            "acc": "acc",
            "lr": "lr",
            "grad_norm": "grad_norm",
            "max_grad_norm": "max_grad_norm",
            "val_loss": "val_loss",
            "val_acc": "val_acc",
        },
    ),
    "detectron": (
        "iteration",
        {
            "loss": "total_loss",
            "acc": "cls_accuracy",
            "lr": "lr",
            "grad_norm": "grad_norm",
            "max_grad_norm": "max_grad_norm",
            "val_loss": "validation_loss",
            "val_acc": "validation_accuracy",
        },
    ),
}
_NESTED = {
    "loss": ("train", "loss"),
    "acc": ("train", "acc"),
    "lr": ("train", "lr"),
    "grad_norm": ("train", "grad_norm"),
    "max_grad_norm": ("train", "max_grad_norm"),
    "val_loss": ("val", "loss"),
    "val_acc": ("val", "acc"),
}


def _obj(row, variant: str, step_offset: int) -> dict | None:
    if variant == "nested":
        obj: dict = {"step": row.step + step_offset}
        for k, v in row.values.items():
            if k in _NESTED:
                grp, name = _NESTED[k]
                obj.setdefault(grp, {})[name] = v
        return obj if len(obj) > 1 else None
    step_key, names = _FLAT[variant]
    obj = {step_key: row.step + step_offset}
    obj.update({names[k]: v for k, v in row.values.items() if k in names})
    if variant == "detectron" and row.kind == "train":
        obj = dict(sorted({**obj, "time": 0.05, "data_time": 0.002}.items()))
    return obj if len(obj) > 1 else None


def write_jsonl(run: LoggedRun, dest: Path, *, variant: str = "slash") -> list[str]:
    """One .jsonl file; a resumed run simply keeps appending to it."""
    dest.mkdir(parents=True, exist_ok=True)
    name = {"detectron": "metrics.json", "plain": "log.jsonl"}.get(variant, "metrics.jsonl")
    offset = 0 if variant == "detectron" else 1 if variant == "nested" else 0
    lines = [json.dumps(o) for r in run.rows if (o := _obj(r, variant, offset)) is not None]
    (dest / name).write_text("\n".join(lines) + "\n")
    return [name]
