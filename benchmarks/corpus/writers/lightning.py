"""PyTorch Lightning CSVLogger: `lightning_logs/version_N/metrics.csv` plus `hparams.yaml`.

One CSV row per `log_metrics` call, columns sorted, empty cells where a row lacks a key:
training-step rows (`train_loss_step`, `epoch`, `step`), LearningRateMonitor rows (`lr-AdamW`,
`step`, no epoch), and at each epoch end a validation row (`val_loss`, `val_acc`) then an
epoch-aggregate row (`train_loss_epoch`). csv's default dialect, so CRLF line ends, as the real
files have.
"""

from __future__ import annotations

import csv
from pathlib import Path

import yaml

from benchmarks.corpus.views import LoggedRun
from benchmarks.corpus.writers.common import hparams, pyfloat


def _rows(run: LoggedRun) -> list[dict]:
    opt = str(run.meta.get("optimizer", "adamw"))
    lr_key = "lr-" + {"adamw": "AdamW", "adam": "Adam", "sgd": "SGD", "rmsprop": "RMSprop"}.get(
        opt, opt
    )
    out: list[dict] = []
    for r in run.rows:
        v = r.values
        if r.kind == "train":
            if "lr" in v:
                out.append({lr_key: v["lr"], "step": r.step})
            row = {"epoch": r.epoch, "step": r.step, "train_loss_step": v["loss"]}
            if "acc" in v:
                row["train_acc_step"] = v["acc"]
            if "grad_norm" in v:
                row["grad_norm"] = v["grad_norm"]
            if "max_grad_norm" in v:
                row["max_grad_norm"] = v["max_grad_norm"]
            out.append(row)
        else:
            row = {"epoch": r.epoch, "step": r.step, "val_loss": v["val_loss"]}
            if "val_acc" in v:
                row["val_acc"] = v["val_acc"]
            out.append(row)
            if "loss_epoch" in v:
                out.append({"epoch": r.epoch, "step": r.step, "train_loss_epoch": v["loss_epoch"]})
    return out


def write_lightning_csv(
    run: LoggedRun, dest: Path, *, variant: str = "lightning", version: int = 0
) -> list[str]:
    folder = dest / f"version_{version}"
    folder.mkdir(parents=True, exist_ok=True)
    rows = _rows(run)
    keys = sorted({k for r in rows for k in r})
    with (folder / "metrics.csv").open("w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=keys)
        w.writeheader()
        for r in rows:
            w.writerow({k: (pyfloat(v) if isinstance(v, float) else v) for k, v in r.items()})
    (folder / "hparams.yaml").write_text(yaml.dump(hparams(run)))
    return [f"version_{version}/hparams.yaml", f"version_{version}/metrics.csv"]
