"""TensorBoard's scalar downloads (`Wall time,Step,Value`), one tag a file, named by the file."""

from __future__ import annotations

import json

import numpy as np
from lossforensics import diagnose
from lossforensics.discover import discover_runs
from lossforensics.ingest import load_run
from lossforensics.ingest.detect import detect_format

WALL = 1678974225.3623703
TRAIN = [2.31, 1.52, 1.04, 0.71, 0.52, 0.39, 0.30, 0.24, 0.20, 0.17, 0.15, 0.13]
# a validation loss that bottoms out at step 4 and climbs: an overfit run
VAL = [2.20, 1.61, 1.30, 1.22, 1.20, 1.25, 1.33, 1.44, 1.58, 1.73, 1.90, 2.08]


def _csv(path, values, *, header="Wall time,Step,Value") -> None:
    rows = [header] + [f"{WALL + 10.5 * i},{i},{v}" for i, v in enumerate(values)]
    path.write_text("\n".join(rows) + "\n")


def _roles(result) -> dict[str, str]:
    return dict(zip(result.frame["metric"], result.frame["role"].astype(str), strict=False))


def test_a_folder_of_keras_downloads_is_one_run_named_by_the_file_names(tmp_path):
    _csv(tmp_path / "run-train-tag-epoch_loss.csv", TRAIN)
    _csv(tmp_path / "run-validation-tag-epoch_loss.csv", VAL)
    result = load_run(tmp_path)
    assert result.format == "tensorboard_export" and result.runs == [tmp_path.name]
    assert _roles(result) == {"train/epoch_loss": "train_loss", "validation/epoch_loss": "val_loss"}
    val = result.frame[result.frame["metric"] == "validation/epoch_loss"]
    assert list(val["step"]) == list(range(12)) and list(val["value"]) == VAL
    assert np.allclose(val["wall_time"], WALL + 10.5 * np.arange(12))
    assert diagnose(result.frame).verdict == "overfit"


def test_a_json_download_is_read_like_the_csv(tmp_path):
    path = tmp_path / "run-.-tag-loss.json"
    path.write_text(json.dumps([[WALL + i, 10 * i, v] for i, v in enumerate(TRAIN)]))
    assert detect_format(path) == "tensorboard_export"
    result = load_run(path)
    assert _roles(result) == {"loss": "train_loss"}  # the run `.` adds nothing to the name
    assert list(result.frame["step"]) == list(range(0, 120, 10))


def test_a_renamed_download_is_named_by_its_stem(tmp_path):
    _csv(tmp_path / "val_loss.csv", VAL)
    _csv(tmp_path / "train_log.csv", TRAIN)  # a record word beside a split: that split's loss
    assert _roles(load_run(tmp_path)) == {"train_log": "train_loss", "val_loss": "val_loss"}


def test_a_step_and_value_triple_without_wall_times_stays_a_series_file(tmp_path):
    """nanoGPT's `[step, train, val]` rows are no download: their first column is no time."""
    path = tmp_path / "loss_history.json"
    rows = [[i, t, v] for i, (t, v) in enumerate(zip(TRAIN, VAL, strict=True))]
    path.write_text(json.dumps(rows))
    assert detect_format(path) == "series_file"


def test_a_row_that_is_no_number_is_skipped_with_its_line_named(tmp_path):
    path = tmp_path / "run-train-tag-loss.csv"
    _csv(path, TRAIN)
    lines = path.read_text().splitlines()
    lines.insert(3, f"{WALL},oops,0.5")
    path.write_text("\n".join(lines) + "\n")
    result = load_run(path)
    assert len(result.frame) == len(TRAIN)
    assert any(w.line == 4 and "skipped" in w.message for w in result.warnings)


def test_a_nan_the_download_holds_is_kept(tmp_path):
    path = tmp_path / "run-train-tag-loss.csv"
    _csv(path, [*TRAIN[:6], "NaN", "NaN"])
    result = load_run(path)
    assert result.frame["value"].isna().sum() == 2
    assert diagnose(result.frame).verdict == "nan"


def test_the_audit_finds_a_folder_of_downloads_as_one_run(tmp_path):
    run = tmp_path / "exp1"
    run.mkdir()
    _csv(run / "run-train-tag-epoch_loss.csv", TRAIN)
    _csv(run / "run-validation-tag-epoch_loss.csv", VAL)
    found = discover_runs(tmp_path).sources
    assert [(s.name, s.format) for s in found] == [("exp1", "tensorboard_export")]


def test_other_trackers_one_metric_exports_are_read_alike(tmp_path):
    """Neptune, ClearML, Comet and Aim export one metric a file as a step, `value` and perhaps
    a time (seconds or milliseconds since 1970): a folder of them named for their metrics is
    one run, diagnosed from both curves; a table with more columns stays a table."""
    (tmp_path / "train_loss.csv").write_text(
        "step,value,timestamp\n"
        + "".join(f"{10 * i},{v},{int((WALL + i) * 1000)}\n" for i, v in enumerate(TRAIN))
    )
    (tmp_path / "val_loss.csv").write_text(
        "iteration,value\n" + "".join(f"{10 * i},{v}\n" for i, v in enumerate(VAL))
    )
    result = load_run(tmp_path)
    assert result.format == "tensorboard_export" and result.runs == [tmp_path.name]
    assert _roles(result) == {"train_loss": "train_loss", "val_loss": "val_loss"}
    train = result.frame[result.frame["metric"] == "train_loss"]
    assert list(train["step"]) == list(range(0, 120, 10)) and list(train["value"]) == TRAIN
    assert np.allclose(train["wall_time"], WALL + np.arange(12), atol=1e-3)
    assert diagnose(result.frame).verdict == "overfit"
    table = tmp_path / "other" / "metrics.csv"
    table.parent.mkdir()
    table.write_text("step,value,loss\n1,2,0.5\n2,3,0.4\n")
    assert detect_format(table) != "tensorboard_export"
