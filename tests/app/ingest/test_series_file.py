"""Bare numbers in a file whose name says what they are (`np.savetxt("train_loss.txt", ...)`)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from lossforensics import diagnose
from lossforensics.classifiers.errors import InputError
from lossforensics.ingest import load_run, series_file

TRAIN = [0.345724, 0.253627, 0.217457, 0.19007, 0.17253, 0.155955, 0.146898, 0.138625]


def _roles(result) -> dict[str, str]:
    return dict(zip(result.frame["metric"], result.frame["role"].astype(str), strict=False))


def _write(path, rows) -> None:
    path.write_text("".join(f"{r}\n" for r in rows))


def test_a_train_and_val_pair_in_one_folder_is_one_run_with_both_losses(tmp_path):
    _write(tmp_path / "log_train.txt", [f"{i} {v}" for i, v in enumerate(TRAIN)])
    _write(tmp_path / "log_val.txt", [f"{i} {0.3 + 0.01 * i}" for i in range(len(TRAIN))])
    result = load_run(tmp_path)
    assert result.format == "series_file"
    assert result.runs == [tmp_path.name]
    assert _roles(result) == {"log_train": "train_loss", "log_val": "val_loss"}
    train = result.frame[result.frame["metric"] == "log_train"]
    assert list(train["step"]) == list(range(8)) and list(train["value"]) == TRAIN


def test_a_score_file_beside_the_loss_files_is_the_same_runs_score(tmp_path):
    """`loss.txt`, `val_loss.txt`, `val_acc.txt`: a folder of one metric a file holds the run's
    validation accuracy too; a score file alone (no loss beside it) is still not claimed."""
    _write(tmp_path / "loss.txt", TRAIN)
    _write(tmp_path / "val_loss.txt", [0.3 + 0.01 * i for i in range(len(TRAIN))])
    _write(tmp_path / "val_acc.txt", [0.9 + 0.01 * i for i in range(len(TRAIN))])
    _write(tmp_path / "notes.txt", ["trained on 2 GPUs"])
    result = load_run(tmp_path)
    assert _roles(result) == {"loss": "train_loss", "val_loss": "val_loss", "val_acc": "val_score"}
    acc = result.frame[result.frame["metric"] == "val_acc"].sort_values("step")
    assert acc["value"].round(2).tolist() == [round(0.9 + 0.01 * i, 2) for i in range(len(TRAIN))]
    alone = tmp_path / "scores_only"
    alone.mkdir()
    _write(alone / "val_acc.txt", [0.9] * 8)
    with pytest.raises(InputError):
        load_run(alone)


def test_a_comma_separated_counter_is_the_step(tmp_path):
    path = tmp_path / "loss_log.txt"
    _write(path, [f"{i + 1},{v}" for i, v in enumerate(TRAIN)])
    result = load_run(path)
    assert _roles(result) == {"loss_log": "train_loss"}
    assert list(result.frame["step"]) == list(range(1, 9))
    assert any("the counter before each value" in w.message for w in result.warnings)


def test_text_rows_of_a_counter_and_two_values_read_the_first_as_the_loss(tmp_path):
    """A loop's `f.write(f"{epoch},{train_loss},{x}\\n")` into `loss_log.txt`: the first value
    is the training loss the file name names; the second, as often an accuracy as a validation
    loss, is kept as `loss_log/column3` (role other), and the warning says how to name it."""
    path = tmp_path / "loss_log.txt"
    _write(path, [f"{i + 1},{v},{v + 0.05:.6f}" for i, v in enumerate(TRAIN)])
    result = load_run(path)
    assert _roles(result) == {"loss_log": "train_loss", "loss_log/column3": "other"}
    third = result.frame[result.frame["metric"] == "loss_log/column3"]
    assert list(third["step"]) == list(range(1, 9))
    assert list(third["value"]) == pytest.approx([v + 0.05 for v in TRAIN])
    assert any("--role 'loss_log/column3=val_loss'" in w.message for w in result.warnings)
    named = load_run(path, roles={"loss_log/column3": "val_loss"})
    assert _roles(named)["loss_log/column3"] == "val_loss"
    # under a header naming the columns, the file is a table, read by its names
    header = "Epoch,Train Loss,Test Accuracy"
    _write(path, [header, *(f"{i},{v},{40 + i}" for i, v in enumerate(TRAIN))])
    assert not series_file.sniff(path)


def test_rows_of_a_counter_and_four_values_keep_each_column(tmp_path):
    """`f.write(f"{epoch},{loss},{acc},{val_loss},{val_acc}\n")` into `train_log.csv`: the loss
    the name names first; columns 3 to 5 kept by their place, each named in the warning."""
    path = tmp_path / "train_log.csv"
    _write(path, [f"{i + 1},{v},{50 + i},{v + 0.1},{45 + i}" for i, v in enumerate(TRAIN)])
    result = load_run(path)
    kept = ["train_log/column3", "train_log/column4", "train_log/column5"]
    assert _roles(result) == {"train_log": "train_loss", **dict.fromkeys(kept, "other")}
    fourth = result.frame[result.frame["metric"] == "train_log/column4"]
    assert list(fourth["step"]) == list(range(1, 9))
    assert list(fourth["value"]) == pytest.approx([v + 0.1 for v in TRAIN])
    assert any(", ".join(kept) in w.message for w in result.warnings)


def test_rows_of_values_without_a_counter_take_their_line_positions(tmp_path):
    """`f.write(f"{loss} ,{val_loss}\n")`: no counter; the first value is the loss, the second
    kept as column 2, both at their line positions."""
    path = tmp_path / "losses.csv"
    _write(path, [f"{v} ,{v + 0.02}" for v in TRAIN])
    result = load_run(path)
    assert _roles(result) == {"losses": "train_loss", "losses/column2": "other"}
    loss = result.frame[result.frame["metric"] == "losses"]
    assert list(loss["step"]) == list(range(8)) and list(loss["value"]) == TRAIN
    assert any("line positions" in w.message for w in result.warnings)


def test_one_line_of_numbers_is_a_series(tmp_path):
    """pandas' one-row CSV of a list of losses (an empty index cell, then the values, no
    newline): one value a step, at their positions."""
    path = tmp_path / "losses.csv"
    path.write_text("," + ",".join(map(str, TRAIN)))
    assert series_file.sniff(path)
    result = load_run(path)
    assert _roles(result) == {"losses": "train_loss"}
    assert list(result.frame["step"]) == list(range(8))
    assert list(result.frame["value"]) == TRAIN
    assert any("one line of 8 numbers: read as a series" in w.message for w in result.warnings)


def test_values_alone_take_their_line_positions_and_say_so(tmp_path):
    path = tmp_path / "train_losses.txt"
    _write(path, ["loss", *TRAIN])  # a title line first
    result = load_run(path)
    assert list(result.frame["step"]) == list(range(8))
    assert list(result.frame["value"]) == TRAIN
    assert any("line positions" in w.message for w in result.warnings)


def test_a_line_that_is_no_number_is_skipped_with_its_line_number(tmp_path):
    path = tmp_path / "val_loss.txt"
    _write(path, [*TRAIN[:5], "0.1e", *TRAIN[5:], "nan"])
    result = load_run(path)
    values = result.frame["value"].to_numpy()
    assert len(values) == 9 and np.isnan(values[-1])
    skipped = [w for w in result.warnings if "not a number" in w.message]
    assert [w.line for w in skipped] == [6]


@pytest.mark.parametrize(
    ("name", "rows"),
    [
        ("results.txt", TRAIN),  # the name does not say what the numbers are
        ("accuracy.txt", TRAIN),  # a score alone: no loss to read
        ("val_loss.txt", [f"{v} {v / 2}" for v in TRAIN]),  # several values: only a train loss
        ("train_loss.txt", TRAIN[:2]),  # two points are no curve
        ("train_log.txt", [3, 17, 4, 21, 9]),  # whole numbers: ids or labels, not a loss
        ("val.txt", TRAIN),  # a split's name alone: as often a dataset's split as its loss
    ],
)
def test_files_it_does_not_claim(tmp_path, name, rows):
    path = tmp_path / name
    _write(path, rows)
    assert not series_file.sniff(path)
    with pytest.raises(InputError):
        load_run(path)


def test_an_overfitting_pair_is_diagnosed_from_the_file_names_alone(tmp_path):
    steps = np.arange(30)
    train = 1.0 * np.exp(-steps / 6) + 0.02
    val = 0.5 + 0.3 * np.exp(-steps / 4) + 0.012 * np.maximum(steps - 10, 0)
    _write(tmp_path / "log_train.txt", [f"{s} {v:.5f}" for s, v in zip(steps, train, strict=True)])
    _write(tmp_path / "log_val.txt", [f"{s} {v:.5f}" for s, v in zip(steps, val, strict=True)])
    assert diagnose(tmp_path).verdict == "overfit"


def test_a_title_naming_a_score_says_the_numbers_are_no_loss(tmp_path):
    """`train.log` of `% mean class accuracy (train set)` then accuracies that climb: read as a
    loss they would be an explosion."""
    path = tmp_path / "train.log"
    _write(
        path, ["% mean class accuracy (train set)\t", *[f" {a:.4e}\t" for a in (15, 19, 21, 24)]]
    )
    assert not series_file.sniff(path)


def test_a_json_array_of_values_in_a_loss_named_file_is_that_loss(tmp_path):
    """`json.dump(losses, f)`: the positions are the steps; nulls are gaps."""
    path = tmp_path / "losses.json"
    path.write_text(json.dumps([*TRAIN[:4], None, *TRAIN[4:]]))
    result = load_run(path)
    assert result.format == "series_file" and _roles(result) == {"losses": "train_loss"}
    assert list(result.frame["step"]) == list(range(9))
    assert any("array positions" in w.message for w in result.warnings)


def test_json_rows_of_step_train_and_val_are_both_losses_in_that_order(tmp_path):
    """nanoGPT-style `[[step, train, val], ...]`, pretty-printed or on one line."""
    rows = [[200 * (i + 1), v, v + 0.05] for i, v in enumerate(TRAIN)]
    for indent in (None, 2):
        path = tmp_path / "loss_history.json"
        path.write_text(json.dumps(rows, indent=indent))
        result = load_run(path)
        assert _roles(result) == {
            "loss_history/train": "train_loss",
            "loss_history/val": "val_loss",
        }
        val = result.frame[result.frame["metric"] == "loss_history/val"]
        assert list(val["step"]) == [r[0] for r in rows]
        assert list(val["value"]) == [r[2] for r in rows]
        assert any("in that order" in w.message for w in result.warnings)
    result = load_run(
        path, roles={"loss_history/val": "train_loss", "loss_history/train": "val_loss"}
    )
    assert _roles(result)["loss_history/val"] == "train_loss"


@pytest.mark.parametrize(
    ("name", "doc"),
    [
        ("losses.json", [3, 1, 4, 1, 5]),  # whole numbers: ids, not a loss
        ("results.json", TRAIN),  # the name names no loss
        ("losses.json", [[2, 0.5], [1, 0.4], [3, 0.3]]),  # a counter that goes back
        ("losses.json", [[1, 0.5, 0.4, 0.3]] * 3),  # rows too wide to say what they hold
        ("val_loss.json", [[1, 0.5, 0.6], [2, 0.4, 0.5], [3, 0.3, 0.4]]),  # two values of val?
    ],
)
def test_json_arrays_that_do_not_say_they_are_a_loss_are_not_claimed(tmp_path, name, doc):
    path = tmp_path / name
    path.write_text(json.dumps(doc))
    assert not series_file.sniff(path)


def test_values_under_a_csv_header_are_left_to_the_csv_readers(tmp_path):
    """`,loss0,loss1` over the rows (a header with digits in its names) makes the file a table:
    not a series file; the CSV reader reads it by its names."""
    path = tmp_path / "losses.csv"
    _write(path, [",loss0,loss1", *(f"{i},{v},{v / 2}" for i, v in enumerate(TRAIN))])
    assert not series_file.sniff(path)
    result = load_run(path)
    assert result.format == "csv" and set(result.frame["metric"]) == {"loss0", "loss1"}


def test_d3rlpy_lines_of_epoch_step_and_value_step_by_the_step():
    """d3rlpy writes one headerless CSV a metric, `epoch,step,value`: the two whole numbers
    read as a counter and a value, whole numbers only, and the file was refused."""
    path = Path(__file__).parent / "real_excerpts" / "d3rlpy_awac" / "critic_loss.csv"
    result = load_run(path)
    f = result.frame
    assert result.format == "series_file"
    assert set(f["metric"]) == {"critic_loss"} and set(f["role"].astype(str)) == {"train_loss"}
    assert f["step"].tolist()[:3] == [1000, 2000, 3000] and len(f) == 40
    assert f["value"].iloc[0] == 3.4779282207489013
