"""MLflow's file store (`mlruns/`), as mlflow.log_metric / log_param / set_tag write it.

    mlruns/<exp>/meta.yaml
    mlruns/<exp>/<run_id>/meta.yaml
    mlruns/<exp>/<run_id>/metrics/<key>     lines "<timestamp_ms> <value> <step>"
    mlruns/<exp>/<run_id>/params/<key>      the value as text
    mlruns/<exp>/<run_id>/tags/mlflow.runName, mlflow.source.type, mlflow.user

A metric named `train/loss` lives at metrics/train/loss. Variants: `script` (train_loss, val_loss,
lr, grad_norm at logged steps), `autolog` (Keras autolog names per epoch: loss, val_loss,
accuracy), `slash` (train/loss, val/loss). A resumed run appends to the same metric files.
"""

from __future__ import annotations

import uuid
from pathlib import Path

import yaml

from benchmarks.corpus.views import LoggedRun
from benchmarks.corpus.writers.common import hparams, pyfloat

MLFLOW_VARIANTS = ("script", "autolog", "slash")

_NAMES = {
    "script": {
        "loss": "train_loss",
        "acc": "train_acc",
        "lr": "lr",
        "grad_norm": "grad_norm",
        "max_grad_norm": "max_grad_norm",
        "val_loss": "val_loss",
        "val_acc": "val_acc",
    },
    "autolog": {
        "loss": "loss",
        "acc": "accuracy",
        "lr": "lr",
        "val_loss": "val_loss",
        "val_acc": "val_accuracy",
    },
    "slash": {
        "loss": "train/loss",
        "acc": "train/acc",
        "lr": "train/lr",
        "grad_norm": "train/grad_norm",
        "max_grad_norm": "train/max_grad_norm",
        "val_loss": "val/loss",
        "val_acc": "val/acc",
    },
}


def write_mlflow(
    run: LoggedRun, dest: Path, *, variant: str = "script", experiment_id: str = "1"
) -> list[str]:
    names = _NAMES[variant]
    run_id = uuid.uuid5(uuid.NAMESPACE_URL, "lossforensics-corpus/" + run.name).hex
    t_start = int(run.rows[0].wall_time * 1000)
    t_end = int(run.rows[-1].wall_time * 1000) + 1500
    files: dict[str, str] = {}
    files[f"mlruns/{experiment_id}/meta.yaml"] = yaml.dump(
        {
            "artifact_location": f"file:///home/user/project/mlruns/{experiment_id}",
            "creation_time": t_start - 5000,
            "experiment_id": experiment_id,
            "last_update_time": t_start - 5000,
            "lifecycle_stage": "active",
            "name": str(run.meta.get("experiment", "corpus")),
        }
    )
    base = f"mlruns/{experiment_id}/{run_id}"
    files[f"{base}/meta.yaml"] = yaml.dump(
        {
            "artifact_uri": f"file:///home/user/project/mlruns/{experiment_id}/{run_id}/artifacts",
            "end_time": t_end,
            "entry_point_name": "",
            "experiment_id": experiment_id,
            "lifecycle_stage": "active",
            "run_id": run_id,
            "run_name": run.name,
            "run_uuid": run_id,
            "source_name": "",
            "source_type": 4,
            "source_version": "",
            "start_time": t_start,
            "status": 3,
            "tags": [],
            "user_id": "corpus",
        }
    )
    metric_lines: dict[str, list[str]] = {}
    for r in run.rows:
        step = r.epoch if variant == "autolog" else r.step
        ts = int(r.wall_time * 1000)
        for k, v in r.values.items():
            if k in names:
                metric_lines.setdefault(names[k], []).append(f"{ts} {pyfloat(v)} {step}")
    for key, lines in metric_lines.items():
        files[f"{base}/metrics/{key}"] = "\n".join(lines) + "\n"
    for key, value in hparams(run).items():
        files[f"{base}/params/{key}"] = str(value)
    files[f"{base}/tags/mlflow.runName"] = run.name
    files[f"{base}/tags/mlflow.source.type"] = "LOCAL"
    files[f"{base}/tags/mlflow.user"] = "corpus"
    for rel, text in files.items():
        p = dest / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    return sorted(files)
