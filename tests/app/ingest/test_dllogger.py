"""NVIDIA DLLogger's JSON stream: `DLLL {...}` lines whose `step` says whether a line is a
training step, an epoch's summary, the run's final summary or its arguments."""

import json
from pathlib import Path

import pytest
from lossforensics.classifiers.errors import EmptyInputError
from lossforensics.ingest import load_run
from lossforensics.ingest.detect import detect_format

REAL = Path(__file__).parent / "real_excerpts" / "dllogger_fastpitch" / "nvlog.json"


def _line(step, data, kind="LOG", t=1594037160.0) -> str:
    record = {"timestamp": str(t), "elapsedtime": "1.0", "type": kind, "step": step, "data": data}
    return "DLLL " + json.dumps(record) + "\n"


def test_a_real_fastpitch_log_reads_its_steps_losses_and_lr():
    """Steps are `[epoch, iteration, iterations per epoch]`; the lr is logged as a change."""
    result = load_run(REAL)
    f = result.frame
    assert result.format == "dllogger"
    assert set(f["run"]) == {"nvlog"}
    roles = dict(zip(f["metric"], f["role"].astype(str), strict=False))
    assert roles["train_loss"] == "train_loss"
    assert roles["train_mel_loss"] == "train_loss"
    assert roles["lrate_change"] == "lr"
    assert roles["took"] == "other"
    loss = f[f["metric"] == "train_loss"]
    assert list(loss["step"]) == list(range(1, 22))
    assert loss["value"].iloc[0] == pytest.approx(35.05329513549805)
    lr = f[f["metric"] == "lrate_change"]["value"]
    assert lr.iloc[0] == pytest.approx(3.16e-06)  # "1.00E-01 -> 3.16E-06": the new value
    assert lr.is_monotonic_increasing  # the warm-up
    assert f["wall_time"].notna().all()
    assert set(f["segment"]) == {0}


def test_epoch_iterations_epoch_summaries_and_the_final_summary(tmp_path):
    """DIEN's and BERT's form: `[epoch, step]` counting within the epoch, `[epoch]` for the
    epoch's evaluation, `[]` for the run's summary (a repeat, no points)."""
    lines = [_line("PARAMETER", {"lr": 0.001})]
    for epoch in (1, 2, 3):
        for it in (10, 20, 30):
            lines.append(_line([epoch, it], {"total_loss": 1.0 / (epoch * it)}))
        lines.append(_line([epoch], {"test_loss": 0.5 + epoch / 100, "train_loss": 0.4}))
    lines.append(_line([], {"test_loss": 0.53, "time_to_train": 120.0}))
    path = tmp_path / "dllogger.json"
    path.write_text("".join(lines))
    f = load_run(path).frame
    total = f[f["metric"] == "total_loss"]
    assert list(total["step"]) == [10, 20, 30, 40, 50, 60, 70, 80, 90]
    test = f[f["metric"] == "test_loss"]
    assert list(test["step"]) == [30, 60, 90]  # each at its epoch's last step
    assert test["role"].astype(str).iloc[0] == "val_loss"
    assert "time_to_train" not in set(f["metric"])
    assert set(f["segment"]) == {0}


def test_a_summary_named_like_a_step_metric_keeps_both(tmp_path):
    lines = [_line([1, i], {"loss": 2.0 - i / 10}) for i in range(1, 6)]
    lines.append(_line([1], {"loss": 1.7}))
    path = tmp_path / "nvlog.json"
    path.write_text("".join(lines))
    f = load_run(path).frame
    assert list(f[f["metric"] == "loss"]["step"]) == [1, 2, 3, 4, 5]
    assert list(f[f["metric"] == "epoch/loss"]["value"]) == [1.7]


def test_a_run_appended_to_the_same_file_is_a_second_segment(tmp_path):
    first = [_line([0, i, 4], {"loss": 3.0 - i / 10}) for i in range(4)]
    again = [_line([0, i, 4], {"loss": 3.0 - i / 20}) for i in range(3)]
    path = tmp_path / "nvlog.json"
    path.write_text("".join(first + again))
    f = load_run(path).frame
    assert list(f["segment"]) == [0, 0, 0, 0, 1, 1, 1]


def test_a_bad_line_is_a_warning_with_its_place_and_a_cut_last_line_too(tmp_path):
    good = [_line([1, i], {"loss": 1.0 / i}) for i in range(1, 5)]
    text = good[0] + "DLLL {not json\n" + "".join(good[1:]) + good[0][:30]
    path = tmp_path / "nvlog.json"
    path.write_text(text)
    result = load_run(path)
    assert len(result.frame) == 4
    lines = {w.line: w.message for w in result.warnings}
    assert "not JSON" in lines[2]
    assert "cut last line" in lines[6]
    assert result.warnings[0].byte == len(good[0])


def test_a_log_of_arguments_only_is_refused_with_the_reason(tmp_path):
    path = tmp_path / "nvlog.json"
    path.write_text(_line("PARAMETER", {"epochs": 10}) + _line("PARAMETER", {"lr": 0.1}))
    assert detect_format(path) == "dllogger"
    with pytest.raises(EmptyInputError, match="PARAMETER"):
        load_run(path)
