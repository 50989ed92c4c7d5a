"""MLflow stores written by the real MLflow writer (data/make_mlflow_fixtures.py, mlflow 3.x
skinny) and a published keras-autolog run."""

from __future__ import annotations

import math
import shutil
import sqlite3
from pathlib import Path

import pytest
from lossforensics.classifiers.errors import CorruptInputError, UnknownFormatError
from lossforensics.ingest import load_run, mlflow

DATA = Path(__file__).parent / "data"


def _series(frame, run, metric):
    rows = frame[(frame["run"] == run) & (frame["metric"] == metric)].sort_values("step")
    return rows["step"].tolist(), rows["value"].tolist()


@pytest.mark.parametrize("store", ["mlruns", "mlflow.db"])
def test_both_stores_give_the_same_runs(store):
    result = load_run(DATA / store)
    frame = result.frame
    assert result.format == "mlflow"
    assert sorted(result.runs) == ["baseline", "lr-high"]  # the deleted run is skipped
    assert any("deleted" in w.message for w in result.warnings)
    steps, values = _series(frame, "baseline", "train/loss")
    assert steps == list(range(8))
    assert values[:5] == pytest.approx([2.0, 1.0, 2 / 3, 0.5, 0.4])
    assert math.isnan(values[5]) and values[6] == math.inf  # restored from MLflow's encoding
    assert _series(frame, "baseline", "val/loss")[0] == [1, 3, 5, 7]
    roles = frame.groupby("metric", observed=True)["role"].first().astype(str).to_dict()
    assert roles == {"train/loss": "train_loss", "val/loss": "val_loss", "lr": "lr"}
    wall = frame["wall_time"]
    assert wall.notna().all() and (wall > 1.7e9).all()  # ms timestamps -> seconds
    base = frame[frame["run"] == "baseline"]
    assert base["wall_time"].is_monotonic_increasing == base["seq"].is_monotonic_increasing


def test_one_run_folder_and_one_metric_file():
    run_dir = next(
        p.parent.parent
        for p in (DATA / "mlruns").rglob("mlflow.runName")
        if p.read_text() == "lr-high"
    )
    assert load_run(run_dir.parent).runs  # an experiment folder
    result = load_run(run_dir)
    assert result.runs == ["lr-high"] and len(result.frame) == 5
    single = load_run(run_dir / "metrics" / "train" / "loss")
    assert single.format == "mlflow" and set(single.frame["metric"]) == {"train/loss"}


def test_published_keras_autolog_run_ignores_its_tensorboard_artifacts(real_runs):
    result = load_run(real_runs / "mlflow_keras_ctc_plateau")
    assert result.format == "mlflow"
    assert result.runs == ["ed05f9cd599442fe9a0c9222184710b8"]  # no runName tag: the run id
    steps, values = _series(result.frame, result.runs[0], "loss")
    assert steps == list(range(10)) and values[0] == pytest.approx(332.684, abs=1e-3)
    assert not any("tfevents" in f for f in result.files)


def test_repeated_run_names_get_their_id(tmp_path):
    store = tmp_path / "mlruns"
    shutil.copytree(DATA / "mlruns", store)
    for tag in store.rglob("mlflow.runName"):
        tag.write_text("same")
    names = load_run(store).runs
    assert len(names) == 2 and all(n.startswith("same [") for n in names)


def test_bad_metric_lines_are_skipped_with_their_line(tmp_path):
    store = tmp_path / "mlruns"
    shutil.copytree(DATA / "mlruns", store)
    metric = next(p for p in store.rglob("lr") if p.parent.name == "metrics")
    lines = metric.read_text().splitlines()
    lines[2] = "garbage here"
    metric.write_text("\n".join(lines) + "\n")
    result = mlflow.read(store)
    bad = [w for w in result.warnings if w.file == str(metric)]
    assert bad and bad[0].line == 3


def test_sqlite_that_is_not_mlflow_and_a_corrupt_one(tmp_path):
    other = tmp_path / "other.db"
    with sqlite3.connect(other) as con:
        con.execute("CREATE TABLE t (x)")
    with pytest.raises(UnknownFormatError):
        load_run(other)
    broken = tmp_path / "mlflow.db"
    data = bytearray((DATA / "mlflow.db").read_bytes())
    data[100:4096] = b"\xff" * (4096 - 100)
    broken.write_bytes(bytes(data))
    with pytest.raises((CorruptInputError, UnknownFormatError)):
        mlflow.read(broken)


def test_a_blank_metric_line_is_no_bad_line(tmp_path):
    """Blank lines are skipped quietly; a line that is not 'timestamp value step' is counted
    and named, blank lines or not around it."""
    store = tmp_path / "mlruns"
    shutil.copytree(DATA / "mlruns", store)
    loss = sorted(store.rglob("metrics/train/loss"))[0]
    text = loss.read_text()
    loss.write_text(text + "\n\n")
    assert not [w for w in mlflow.read(store).warnings if "metric line" in w.message]
    loss.write_text(text + "\n1700000000000 oops 7\n\n")
    bad = [w for w in mlflow.read(store).warnings if "metric line" in w.message]
    assert len(bad) == 1 and bad[0].line == len(text.splitlines()) + 2
