"""Keras CSVLogger files (training.log) from real repositories and the logger's options."""

from __future__ import annotations

import math

import pytest
from lossforensics.ingest import keras_csv, load_run

VOICE = "keras_csvlogger_voiceid_old_acc_cols/training.log"


def test_crlf_file_with_old_acc_names(real_runs):
    path = real_runs / VOICE
    assert b"\r\n" in path.read_bytes()
    frame = keras_csv.read(path).frame
    roles = frame.groupby("metric", observed=True)["role"].first().astype(str).to_dict()
    assert roles == {
        "acc": "train_score",
        "loss": "train_loss",
        "val_acc": "val_score",
        "val_loss": "val_loss",
    }
    val = frame[frame["metric"] == "val_loss"].sort_values("step")
    assert val["step"].tolist() == list(range(10))  # 0-based epochs as logged
    assert val["value"].iloc[0] == pytest.approx(0.42321571707725525, rel=0, abs=0)


def test_lr_column_from_reduce_on_plateau(real_runs):
    frame = load_run(real_runs / "keras_csvlogger_brats_lr_decay").frame
    lr = frame[frame["metric"] == "lr"].sort_values("step")
    assert lr["role"].astype(str).unique().tolist() == ["lr"]
    assert lr["value"].iloc[0] == pytest.approx(1e-3)
    assert lr["value"].iloc[-1] == pytest.approx(1e-6)


@pytest.mark.parametrize("sep", [";", "\t"])
def test_separator_option_na_cells_and_nan(tmp_path, sep):
    path = tmp_path / "training.log"
    rows = [["epoch", "loss", "val_loss"], ["0", "1.5", "NA"], ["1", "nan", "1.2"]]
    path.write_text("\n".join(sep.join(r) for r in rows) + "\n")
    result = load_run(path)
    frame = result.frame
    assert result.format == "keras_csv"
    assert frame.loc[frame["metric"] == "val_loss", "step"].tolist() == [1]  # NA: not logged
    loss = frame[frame["metric"] == "loss"].sort_values("step")
    assert math.isnan(loss["value"].iloc[1])  # a logged NaN is evidence


def test_array_cells_are_skipped_and_counted(tmp_path):
    path = tmp_path / "training.log"
    path.write_text('epoch,loss,per_class\n0,1.0,"[0.1 0.2]"\n1,0.9,"[0.2 0.3]"\n')
    result = keras_csv.read(path)
    assert set(result.frame["metric"]) == {"loss"}
    [warning] = [w for w in result.warnings if "non-numeric" in w.message]
    assert warning.message.startswith("2 ") and warning.line == 2
