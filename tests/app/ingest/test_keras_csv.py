"""Keras CSVLogger files (training.log) from real repositories and the logger's options."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from lossforensics.classifiers.errors import UnknownFormatError
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


@pytest.mark.parametrize("title", ["model_history_log", "sep=;"])
def test_a_title_line_above_the_table_is_skipped_and_lines_still_counted(tmp_path, title):
    # a history saved with a name on its first line, or Excel's separator hint
    path = tmp_path / "model_history_log.csv"
    rows = [
        "epoch;accuracy;loss;val_loss",
        "0;0.41;1.576;0.646",
        "1;0.87;0.400;x",
        "2;0.93;0.219;0.230",
    ]
    path.write_text(title + "\n" + "\n".join(rows) + "\n")
    result = load_run(path)
    assert result.format == "keras_csv"
    frame = result.frame
    assert frame.loc[frame["metric"] == "loss", "value"].tolist() == pytest.approx(
        [1.576, 0.4, 0.219]
    )
    assert frame.loc[frame["metric"] == "val_loss", "step"].tolist() == [0, 2]
    [warning] = [w for w in result.warnings if "non-numeric" in w.message]
    assert warning.line == 4  # the file's line: title, header, epoch 0, epoch 1


def test_two_words_above_a_table_are_not_a_title(tmp_path):
    path = tmp_path / "training.log"
    path.write_text("training log\nepoch;loss\n0;1.0\n1;0.9\n")
    with pytest.raises(UnknownFormatError):
        load_run(path)


def test_array_cells_are_skipped_and_counted(tmp_path):
    path = tmp_path / "training.log"
    path.write_text('epoch,loss,per_class\n0,1.0,"[0.1 0.2]"\n1,0.9,"[0.2 0.3]"\n')
    result = keras_csv.read(path)
    assert set(result.frame["metric"]) == {"loss"}
    [warning] = [w for w in result.warnings if "non-numeric" in w.message]
    assert warning.message.startswith("2 ") and warning.line == 2


def _keras_parts(folder, train="training.csv", val="validation.csv", n=12):
    """A run logged as two CSVLogger-layout parts: the training and the validation curve."""
    folder.mkdir(parents=True, exist_ok=True)
    rows = [f"{e},{0.5 + e / 40:.4f},{1.0 / (e + 1):.4f}" for e in range(n)]
    (folder / train).write_text("epoch,accuracy,loss\n" + "\n".join(rows) + "\n")
    rows = [f"{e},{0.45 + e / 50:.4f},{1.1 / (e + 1) + 0.05:.4f}" for e in range(n)]
    (folder / val).write_text("epoch,accuracy,loss\n" + "\n".join(rows) + "\n")
    return folder


def _roles(frame):
    return frame.groupby("metric", observed=True)["role"].first().astype(str).to_dict()


@pytest.mark.parametrize(
    ("train", "val"),
    [("training.csv", "validation.csv"), ("train.log", "val.log"), ("train_log.csv", "eval.csv")],
)
def test_training_and_validation_parts_are_one_run(tmp_path, train, val):
    folder = _keras_parts(tmp_path / "resnet-a", train, val)
    result = load_run(folder)
    frame = result.frame
    assert result.format == "keras_csv" and len(result.files) == 2
    assert frame["run"].astype(str).unique().tolist() == ["resnet-a"]
    assert _roles(frame) == {
        "accuracy": "train_score",
        "loss": "train_loss",
        "val_accuracy": "val_score",
        "val_loss": "val_loss",
    }
    val_loss = frame[frame["metric"] == "val_loss"].sort_values("step")
    assert val_loss["step"].tolist() == list(range(12))  # once per epoch, not a second run
    assert val_loss["value"].iloc[0] == pytest.approx(1.15)


def test_parts_are_not_a_restart(tmp_path):
    from lossforensics.classifiers.diagnose import diagnose

    frame = load_run(_keras_parts(tmp_path / "run")).frame
    labels = {f.label for f in diagnose(frame).findings}
    assert "resume_discontinuity" not in labels


def test_a_full_log_named_val_is_read_as_it_is(tmp_path):
    path = tmp_path / "val.csv"
    path.write_text("epoch,loss,val_loss\n0,1.0,1.2\n1,0.8,1.1\n")
    assert set(load_run(path).frame["metric"]) == {"loss", "val_loss"}


def test_discovery_lists_the_pair_once_beside_other_runs(tmp_path):
    from lossforensics.discover import discover_runs

    _keras_parts(tmp_path / "sweep" / "a")
    _keras_parts(tmp_path / "sweep" / "b")
    (tmp_path / "sweep" / "c").mkdir()
    (tmp_path / "sweep" / "c" / "training.log").write_text("epoch,loss\n0,1.0\n1,0.9\n")
    found = discover_runs(tmp_path / "sweep").sources
    assert [(s.name, s.format) for s in found] == [
        ("a", "keras_csv"),
        ("b", "keras_csv"),
        ("c", "keras_csv"),
    ]
    assert Path(found[0].path).is_dir() and Path(found[2].path).name == "training.log"
    pair = load_run(found[0].path, format=found[0].format).frame
    assert set(pair["metric"]) == {"accuracy", "loss", "val_accuracy", "val_loss"}


def test_fastai_s_csvlogger_keeps_its_bare_metrics_on_the_validation_side(tmp_path):
    # fastai computes the metrics passed to fit on the validation set and names them bare
    path = tmp_path / "history.csv"
    path.write_text(
        "epoch,train_loss,valid_loss,accuracy,error_rate,time\n"
        "0,0.81,0.46,0.89,0.11,04:39\n1,0.62,0.41,0.88,0.12,04:36\n2,0.45,0.39,0.91,0.09,04:35\n"
    )
    result = load_run(path)
    roles = dict(zip(result.frame["metric"], result.frame["role"].astype(str), strict=False))
    assert roles["accuracy"] == "val_score" and roles["valid_loss"] == "val_loss"
    # near miss: Keras' own `accuracy` beside `loss` and `val_loss` is the training one
    path.write_text("epoch,accuracy,loss,val_loss\n0,0.7,0.5,0.6\n1,0.8,0.4,0.5\n")
    roles = dict(zip(*(load_run(path).frame[c] for c in ("metric", "role")), strict=False))
    assert roles["accuracy"] == "train_score"


def test_an_epoch_column_that_never_advances_is_read_in_row_order(tmp_path):
    # a loop of fit(epochs=1) appending to one CSVLogger writes epoch 0 on every row: eight
    # epochs, not eight values at one step (every check skipped the one-point curves)
    rows = [
        f"0,{0.76 + 0.02 * i},{0.71 / (i + 1)},{0.87 + 0.01 * i},{0.41 / (i + 1)}" for i in range(8)
    ]
    p = tmp_path / "history.csv"
    p.write_text(
        "epoch,categorical_accuracy,loss,val_categorical_accuracy,val_loss\n" + "\n".join(rows)
    )
    r = load_run(p)
    loss = r.frame[r.frame["metric"] == "loss"]
    assert list(loss["step"]) == list(range(8)) and "epoch" not in set(r.frame["metric"])
    assert any("holds one value on every row" in str(w) for w in r.warnings)
    # near miss: a train row and a val row at one epoch is a split, not a counter standing still
    two = tmp_path / "two.csv"
    two.write_text("epoch,loss,val_loss\n0,0.7,\n0,,0.4\n")
    assert set(load_run(two).frame["step"]) == {0}


def test_a_fractional_epoch_column_is_read_in_row_order(tmp_path):
    # a Trainer callback writing the loss every 5 steps against its fractional epoch: only two
    # rows hold a whole-number epoch, the other 58 were skipped
    rows = [f"{(i + 1) / 29.7:.6f},{0.74 * 0.97**i:.4f}" for i in range(60)]
    p = tmp_path / "training_history_loss.csv"
    p.write_text("epoch,loss\n" + "\n".join(rows) + "\n")
    r = load_run(p)
    assert r.frame["step"].tolist() == list(range(60))
    assert any("fractions of an epoch" in str(w) for w in r.warnings)
    assert not any("skipped" in str(w) for w in r.warnings)
