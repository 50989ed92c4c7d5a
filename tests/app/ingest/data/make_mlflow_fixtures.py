"""Writes the MLflow fixtures with the real MLflow writer (run once by hand, output committed).

    python -m venv /tmp/mlf && /tmp/mlf/bin/pip install mlflow-skinny sqlalchemy alembic
    /tmp/mlf/bin/python tests/app/ingest/data/make_mlflow_fixtures.py

Two runs in each store: 'baseline' (train/loss, val/loss, lr; a NaN and a +inf logged) and
'lr-high', plus a deleted run that readers must skip.
"""

from __future__ import annotations

import math
import os
import shutil
import sqlite3
import sys
from pathlib import Path

import mlflow

HERE = Path(__file__).resolve().parent


def log_runs(uri: str) -> None:
    mlflow.set_tracking_uri(uri)
    mlflow.set_experiment("forensics-fixture")
    with mlflow.start_run(run_name="baseline"):
        mlflow.log_param("lr", 0.001)
        for step in range(8):
            loss = 2.0 / (step + 1)
            if step == 5:
                loss = math.nan
            if step == 6:
                loss = math.inf
            mlflow.log_metric("train/loss", loss, step=step)
            mlflow.log_metric("lr", 0.001, step=step)
            if step % 2 == 1:
                mlflow.log_metric("val/loss", 2.5 / (step + 1), step=step)
    with mlflow.start_run(run_name="lr-high"):
        for step in range(5):
            mlflow.log_metric("train/loss", 3.0 + step, step=step)
    with mlflow.start_run(run_name="thrown-away") as run:
        mlflow.log_metric("train/loss", 1.0, step=0)
    mlflow.delete_run(run.info.run_id)


def trim_db(db: Path) -> None:
    """Keep the tracking tables the reader uses (the full schema is ~70 tables, 900 KB)."""
    keep = {
        "alembic_version",
        "runs",
        "metrics",
        "latest_metrics",
        "params",
        "tags",
        "experiments",
        "experiment_tags",
    }
    con = sqlite3.connect(db)
    con.execute("PRAGMA foreign_keys=OFF")
    tables = [r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type='table'")]
    for name in tables:
        if name not in keep:
            con.execute(f'DROP TABLE "{name}"')
    con.commit()
    con.execute("VACUUM")
    con.close()


def main() -> None:
    os.environ.setdefault("MLFLOW_ALLOW_FILE_STORE", "true")  # maintenance mode in MLflow 3
    store = HERE / "mlruns"
    db = HERE / "mlflow.db"
    shutil.rmtree(store, ignore_errors=True)
    db.unlink(missing_ok=True)
    log_runs(store.as_uri())
    log_runs(f"sqlite:///{db}")
    trim_db(db)


if __name__ == "__main__":
    sys.exit(main())
