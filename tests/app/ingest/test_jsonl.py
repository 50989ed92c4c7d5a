"""JSON lines: detectron2 and nanoGPT-style files from real repositories, plus the quirks."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from lossforensics.classifiers.diagnose import diagnose
from lossforensics.classifiers.errors import CorruptInputError, EmptyInputError
from lossforensics.classifiers.run import RunSeries
from lossforensics.ingest import jsonl, load_run

D2 = "jsonl_detectron2_medwaste_lr_step/metrics.json"
REAL_EXCERPTS = Path(__file__).parent / "real_excerpts"


def _points(frame, metric):
    rows = frame[frame["metric"] == metric].sort_values("seq")
    return list(zip(rows["step"], rows["value"], strict=True))


def test_detectron2_metrics_json_is_jsonl_keyed_by_iteration(real_runs):
    result = load_run(real_runs / D2)
    frame = result.frame
    assert result.format == "jsonl"
    total = _points(frame, "total_loss")
    assert len(total) == 200 and total[0][0] == 19 and total[-1][0] == 3999
    roles = frame.groupby("metric", observed=True)["role"].first().astype(str)
    assert roles["total_loss"] == "train_loss" and roles["lr"] == "lr"
    for key in ("time", "data_time", "eta_seconds"):
        assert roles[key] == "other"
    assert "iteration" not in set(frame["metric"])
    assert "fast_rcnn/cls_accuracy" in set(frame["metric"])  # slashes kept as logged


def test_nanollama_iter_key_and_default_run_name(real_runs):
    result = load_run(real_runs / "jsonl_nanollama_overfit_run2" / "log.jsonl")
    assert result.runs == ["jsonl_nanollama_overfit_run2"]  # 'log' names the logger, not the run
    val = _points(result.frame, "val/loss")
    assert val[2] == (200, pytest.approx(4.87, abs=0.01))


def test_nan_tokens_are_values_and_missing_keys_are_not(tmp_path):
    path = tmp_path / "run.jsonl"
    path.write_text(
        '{"step": 1, "loss": NaN, "grad_norm": Infinity}\n'
        '{"step": 2, "loss": 1.5}\n'
        '{"step": 3, "loss": -Infinity, "val_loss": 2.0}\n'
    )
    frame = jsonl.read(path).frame
    loss = _points(frame, "loss")
    assert [s for s, _ in loss] == [1, 2, 3]
    assert math.isnan(loss[0][1]) and loss[1][1] == 1.5 and loss[2][1] == -math.inf
    assert _points(frame, "grad_norm") == [(1, math.inf)]
    assert _points(frame, "val_loss") == [(3, 2.0)]  # not a NaN at steps 1 and 2


def test_nested_objects_flatten_with_slashes(tmp_path):
    path = tmp_path / "run.jsonl"
    path.write_text('{"global_step": 5, "train": {"loss": 1.0, "acc": {"top1": 0.5}}}\n')
    frame = jsonl.read(path).frame
    assert set(frame["metric"]) == {"train/loss", "train/acc/top1"}
    assert set(frame["step"]) == {5}


def test_long_form_lines(tmp_path):
    path = tmp_path / "points.jsonl"
    lines = [{"metric": "loss", "step": s, "value": 1.0 / (s + 1)} for s in range(4)]
    lines.append({"metric": "val_loss", "step": 3, "value": 0.9, "run": "other-run"})
    path.write_text("\n".join(json.dumps(x) for x in lines) + "\n")
    frame = jsonl.read(path).frame
    assert _points(frame, "loss")[3] == (3, 0.25)
    assert set(frame.loc[frame["metric"] == "val_loss", "run"]) == {"other-run"}


def test_no_step_key_uses_line_order_with_a_warning(tmp_path):
    path = tmp_path / "run.jsonl"
    path.write_text('{"loss": 3.0}\n{"loss": 2.0}\n\n{"loss": 1.0}\n')
    result = jsonl.read(path)
    assert _points(result.frame, "loss") == [(0, 3.0), (1, 2.0), (2, 1.0)]
    assert any("no step key" in w.message for w in result.warnings)


def test_non_numeric_values_are_counted_once_with_the_first_line(tmp_path):
    path = tmp_path / "run.jsonl"
    path.write_text(
        '{"step": 0, "loss": 1.0, "note": "warmup"}\n'
        '{"step": 1, "loss": "oops", "flag": true}\n'
        '{"step": 2, "loss": 0.5}\n'
    )
    result = jsonl.read(path)
    assert _points(result.frame, "loss") == [(0, 1.0), (2, 0.5)]
    [warning] = [w for w in result.warnings if "non-numeric" in w.message]
    assert warning.message.startswith("3 non-numeric") and warning.line == 1


def test_cut_last_line_is_a_warning_not_an_error(tmp_path):
    path = tmp_path / "live.jsonl"
    path.write_text('{"step": 0, "loss": 1.0}\n{"step": 1, "loss": 0.9}\n{"step": 2, "lo')
    result = jsonl.read(path)
    assert len(result.frame) == 2
    [warning] = result.warnings
    assert "cut short" in warning.message and warning.line == 3
    assert warning.byte == len('{"step": 0, "loss": 1.0}\n{"step": 1, "loss": 0.9}\n')


def test_corrupt_middle_line_is_reported_with_line_and_byte(tmp_path):
    good = '{"step": 0, "loss": 1.0}\n'
    path = tmp_path / "run.jsonl"
    path.write_text(good + '{"step": 1, "loss": \x07}\n' + '{"step": 2, "loss": 0.5}\n')
    result = jsonl.read(path)
    assert _points(result.frame, "loss") == [(0, 1.0), (2, 0.5)]
    [warning] = result.warnings
    assert (warning.line, warning.byte) == (2, len(good))


def test_a_line_without_the_step_key_takes_the_last_step(tmp_path):
    path = tmp_path / "run.jsonl"
    path.write_text('{"step": 10, "loss": 1.0}\n{"val_loss": 2.0}\n{"step": 20, "loss": 0.5}\n')
    result = jsonl.read(path)
    assert _points(result.frame, "val_loss") == [(10, 2.0)]
    assert any("took the step" in w.message for w in result.warnings)


def test_csv_named_jsonl_is_read_as_csv_by_load_run_and_refused_by_the_reader(tmp_path):
    path = tmp_path / "metrics.jsonl"
    path.write_text("epoch,loss,val_loss\n0,1.0,1.1\n1,0.8,1.0\n")
    result = load_run(path)
    assert result.format == "keras_csv" and len(result.frame) == 4
    assert "named 'metrics.jsonl'" in result.warnings[0].message
    with pytest.raises(CorruptInputError) as info:
        jsonl.read(path)
    assert info.value.file == str(path)


def test_objects_without_numbers_are_empty_input(tmp_path):
    path = tmp_path / "run.jsonl"
    path.write_text('{"step": 1, "msg": "hello"}\n')
    with pytest.raises(EmptyInputError):
        jsonl.read(path)


def test_wandb_history_timestamp_becomes_wall_time(tmp_path):
    path = tmp_path / "wandb-history.jsonl"
    path.write_text(
        '{"_step": 0, "_timestamp": 1700000000.5, "_runtime": 3, "loss": 1.0}\n'
        '{"_step": 1, "_timestamp": 1700000001.5, "_runtime": 4, "loss": 0.5}\n'
    )
    frame = jsonl.read(path).frame
    loss = frame[frame["metric"] == "loss"]
    assert loss["wall_time"].tolist() == [1700000000.5, 1700000001.5]
    assert "_timestamp" not in set(frame["metric"])


def test_fractional_epoch_as_the_only_step_key_falls_back_to_line_order(tmp_path):
    path = tmp_path / "run.jsonl"
    path.write_text('{"epoch": 0.5, "loss": 2.0}\n{"epoch": 1.0, "loss": 1.0}\n')
    result = jsonl.read(path)
    assert _points(result.frame, "loss") == [(0, 2.0), (1, 1.0)]
    assert _points(result.frame, "epoch") == [(0, 0.5), (1, 1.0)]
    assert any("fractional" in w.message for w in result.warnings)


def test_lines_before_the_first_step_are_reported_not_silently_dropped(tmp_path):
    path = tmp_path / "run.jsonl"
    path.write_text('{"loss": 9.0}\n{"step": 1, "loss": 2.0}\n')
    result = jsonl.read(path)
    assert _points(result.frame, "loss") == [(1, 2.0)]
    assert any("before the first 'step'" in w.message for w in result.warnings)


def test_no_points_says_what_the_reader_saw(tmp_path):
    # an experiment log whose "step" names a stage: the error says which key was not numeric
    path = tmp_path / "train_log.jsonl"
    path.write_text(
        "".join(
            json.dumps({"step": stage, "model": "m", "num_samples": 100}) + "\n"
            for stage in ("base_samples", "after_unlearning")
        )
    )
    with pytest.raises(
        EmptyInputError, match=r"no numeric points in 2 JSON object\(s\) \(.*'step'"
    ):
        jsonl.read(path)


def test_mmdetection_log_json_iter_per_epoch_and_val_lines(tmp_path):
    """mmdetection 2's `*.log.json`: an env-info first line, `"mode": "train"` lines whose `iter`
    starts again every epoch, and `"mode": "val"` lines: one session, val metrics apart."""
    lines = [json.dumps({"env_info": "sys.platform: linux", "seed": 0})]
    for e in (1, 2, 3):
        for it in (50, 100):
            row = {"mode": "train", "epoch": e, "iter": it, "lr": 0.02, "loss": 1.0 / e - it / 1e4}
            lines.append(json.dumps(row))
        lines.append(
            json.dumps({"mode": "val", "epoch": e, "iter": 500, "lr": 0.02, "bbox_mAP": e / 10})
        )
    path = tmp_path / "20220101_120000.log.json"
    path.write_text("\n".join(lines) + "\n")
    result = load_run(path)
    f = result.frame
    roles = dict(zip(f["metric"], f["role"], strict=False))
    assert roles["val/bbox_mAP"] == "val_score" and roles["loss"] == "train_loss"
    assert "bbox_mAP" not in roles and "val/lr" not in roles and "mode" not in roles
    loss = f[f["metric"] == "loss"].sort_values("seq")
    assert loss["step"].is_monotonic_increasing and f["segment"].nunique() == 1
    assert not any("restart" in w.message for w in result.warnings)
    val = f[f["metric"] == "val/bbox_mAP"].sort_values("seq")
    assert list(val["value"]) == [0.1, 0.2, 0.3]
    # at its epoch's end: its `iter` (500) counts the val set, not the epoch's iterations
    assert list(val["step"]) == list(loss["step"].to_numpy()[1::2])
    # epochs count from 1: the first epoch's first print is its 50th iteration, where the run
    # started (not one epoch in, which read as a log starting mid-run)
    assert list(loss["step"]) == [50, 100, 151, 201, 252, 302]


def test_mmcv_log_json_with_one_train_line_an_epoch_counts_iter_within_the_epoch(tmp_path):
    """An mmcv `log.json` logging every 100 iterations of epochs of 100-199 prints one train line
    an epoch, all at `"iter": 100` (mmpose's): the same count at every new epoch is a count
    within the epoch, not one step written again (which read as a run restarted every epoch)."""
    lines = []
    for e in range(3, 10):
        lines.append(json.dumps({"mode": "train", "epoch": e, "iter": 100, "loss": 55.0 / e}))
        if e % 2:
            lines.append(json.dumps({"mode": "val", "epoch": e, "iter": 88, "AP": 90 + e / 10}))
    path = tmp_path / "20210101_120000.log.json"
    path.write_text("\n".join(lines) + "\n")
    result = load_run(path)
    f = result.frame
    loss = f[f["metric"] == "loss"].sort_values("seq")
    assert loss["step"].is_monotonic_increasing and loss["step"].nunique() == 7
    assert f["segment"].nunique() == 1
    a_global_step = tmp_path / "global.jsonl"  # a global step repeated once at a boundary
    rows = [(1, 100), (1, 200), (2, 200), (2, 300), (3, 400)]
    a_global_step.write_text(
        "".join(json.dumps({"epoch": e, "step": i, "loss": 1.0}) + "\n" for e, i in rows)
    )
    f = load_run(a_global_step).frame
    assert list(f[f["metric"] == "loss"].sort_values("seq")["step"]) == [100, 200, 200, 300, 400]


def test_an_iter_that_goes_back_within_an_epoch_is_still_a_restart(tmp_path):
    path = tmp_path / "log.jsonl"
    rows = [(1, 10), (1, 20), (2, 10), (2, 20), (2, 5), (2, 15)]  # back within epoch 2: resumed
    path.write_text(
        "".join(json.dumps({"epoch": e, "iter": i, "loss": 1.0}) + "\n" for e, i in rows)
    )
    f = load_run(path).frame
    assert list(f[f["metric"] == "loss"]["step"]) == [10, 20, 10, 20, 5, 15]
    assert f["segment"].nunique() == 3
    resumed = tmp_path / "resumed.jsonl"  # each epoch restarts its iter, then epoch 1 again
    rows = [(1, 10), (1, 20), (2, 10), (1, 10)]
    resumed.write_text(
        "".join(json.dumps({"epoch": e, "iter": i, "loss": 1.0}) + "\n" for e, i in rows)
    )
    f = load_run(resumed).frame
    assert f["segment"].nunique() == 2  # folded by epoch, the resume still goes back


def test_json_lines_of_a_logging_formatter_are_read_from_their_messages(tmp_path):
    """`{"timestamp": .., "level": "INFO", "message": "Epoch : 1\\t Loss : 0.001"}`: no field
    holds a number, the training log is the message text, read as console lines."""
    lines = []
    for e in range(1, 11):
        for key, value in (("Loss", 0.0011 / e), ("Acc", 95.9 + e / 10)):
            message = f"Epoch : {e}\t {key} : {value:.6f}"
            lines.append(
                json.dumps({"timestamp": "2023-12-16", "level": "INFO", "message": message})
            )
    path = tmp_path / "training_log.json"
    path.write_text("\n".join(lines) + "\n")
    result = load_run(path)
    loss = result.frame[result.frame["metric"] == "Loss"]
    assert loss["step"].tolist() == list(range(1, 11)) and set(loss["role"].astype(str)) == {
        "train_loss"
    }
    assert "message text was read as console lines" in str(result.warnings[0])
    chatter = tmp_path / "app.json"
    chatter.write_text(
        "\n".join(json.dumps({"level": "INFO", "message": "started"}) for _ in range(3))
    )
    with pytest.raises(EmptyInputError):
        load_run(chatter, format="jsonl")


def test_detr_s_coco_evaluation_list_gives_its_ap_as_a_validation_score(tmp_path):
    """DETR's `log.txt`: `test_coco_eval_bbox` lists the 12 COCO stats, AP first; it is the
    run's only held-out quality metric, read as `test_coco_eval_bbox/AP`."""
    stats = lambda e: [0.1 + 0.02 * e, 0.2, 0.1, 0.0, 0.1, 0.2, 0.2, 0.3, 0.3, 0.1, 0.3, 0.4]  # noqa: E731
    lines = [
        json.dumps(
            {
                "train_loss": 30 / (e + 1),
                "test_loss": 28 / (e + 1),
                "test_coco_eval_bbox": stats(e),
                "epoch": e,
            }
        )
        for e in range(6)
    ]
    path = tmp_path / "log.txt"
    path.write_text("\n".join(lines) + "\n")
    result = load_run(path)
    ap = result.frame[result.frame["metric"] == "test_coco_eval_bbox/AP"]
    assert ap["value"].round(2).tolist() == [0.1, 0.12, 0.14, 0.16, 0.18, 0.2]
    assert set(ap["role"].astype(str)) == {"val_score"}
    assert not any("non-numeric" in str(w) for w in result.warnings)


def test_a_loss_that_is_null_at_every_step_reads_as_nan(tmp_path):
    """JavaScript's JSON.stringify and pandas' to_json write a NaN as null: a loss null at every
    epoch, with no loss logged as a number anywhere, is a run whose loss was NaN throughout, and
    it reads (and diagnoses) as one, with a warning saying how it was read."""
    path = tmp_path / "loss_history.json"
    path.write_text(json.dumps([{"epoch": e, "loss": None} for e in range(1, 16)]))
    result = load_run(path)
    loss = result.frame[result.frame["metric"] == "loss"]
    assert len(loss) == 15 and loss["value"].isna().all()
    assert any("'loss' held only nulls" in w.message for w in result.warnings)
    assert diagnose(result.frame).verdict == "nan"
    # the same in JSON lines beside a series that has values
    path = tmp_path / "log.jsonl"
    lines = [json.dumps({"step": s, "loss": None, "lr": 1e-3}) for s in range(12)]
    path.write_text("\n".join(lines))
    assert diagnose(load_run(path).frame).verdict == "nan"
    # a key that is null until it is computed is no such case: the file reads
    path.write_text(
        json.dumps([{"epoch": e, "loss": 1 / e, "val_loss": None} for e in range(1, 16)])
    )
    assert set(load_run(path).frame["metric"]) == {"loss"}


def test_llama_factory_trainer_log_counts_its_current_steps(tmp_path):
    """LLaMA-Factory's trainer_log.jsonl: `current_steps` is the step, beside a fractional
    `epoch` (kept as a series) and its clock strings."""
    path = tmp_path / "trainer_log.jsonl"
    lines = [
        {
            "current_steps": 10 * i,
            "total_steps": 100,
            "loss": 2.0 - i / 10,
            "lr": 1e-4,
            "epoch": i / 20,
            "percentage": 10.0 * i,
            "elapsed_time": "0:01:00",
            "remaining_time": "0:09:00",
        }
        for i in range(1, 11)
    ]
    path.write_text("\n".join(json.dumps(line) for line in lines))
    frame = load_run(path).frame
    loss = frame[frame["metric"] == "loss"]
    assert loss["step"].tolist() == list(range(10, 110, 10))
    assert "current_steps" not in set(frame["metric"])


def test_numbers_written_as_text_are_numbers_and_other_text_is_skipped(tmp_path):
    """`{"epoch": "3", "loss": "0.5234"}` (a script's `default=str`): the numbers read, a
    `"nan"` is a logged NaN, and a string that is no number is still skipped and said."""
    path = tmp_path / "loss_history.json"
    rows = [{"epoch": str(e), "loss": str(1 / e), "note": "ok"} for e in range(1, 9)]
    rows.append({"epoch": "9", "loss": "nan", "note": "ok"})
    path.write_text(json.dumps(rows))
    result = load_run(path)
    loss = result.frame[result.frame["metric"] == "loss"].sort_values("seq")
    assert loss["step"].tolist() == list(range(1, 10))
    assert loss["value"].iloc[:8].tolist() == pytest.approx([1 / e for e in range(1, 9)])
    assert math.isnan(loss["value"].iloc[-1])
    assert any("non-numeric" in w.message and "'note'" in w.message for w in result.warnings)


def test_mmengine_evaluations_logged_at_the_epoch_number_sit_at_the_epoch_end():
    """mmengine's `vis_data/scalars.json` logs a train line with `epoch` and the global
    iteration as `step` (69, 138, ...), then the evaluation with the epoch's number as `step`
    (1, 2, ...). Read as steps, every evaluation went back to step 1..8: eight restarts, and
    `accuracy/top1` a training score. It is a validation score at its epoch's last iteration."""
    result = load_run(REAL_EXCERPTS / "mmengine_scalars_real.json")
    frame = result.frame
    assert frame["segment"].nunique() == 1
    assert not any("session" in w.message or "restart" in w.message for w in result.warnings)
    roles = frame.groupby("metric", observed=True)["role"].first().astype(str)
    assert roles["val/accuracy/top1"] == "val_score" and roles["loss"] == "train_loss"
    acc = _points(frame, "val/accuracy/top1")
    assert [s for s, _ in acc] == [69 * e for e in range(1, 9)]
    assert acc[0][1] == pytest.approx(43.1354, abs=1e-4)
    assert [s for s, _ in _points(frame, "loss")] == [69 * e for e in range(1, 9)]


def test_a_line_without_the_epoch_key_at_a_later_step_is_no_evaluation(tmp_path):
    """Only a step at most the last epoch, and below the last train line's step, is an epoch's
    number: an evaluation logged at the global step keeps its step and its name."""
    lines = [
        {"epoch": 1, "step": 100, "loss": 1.0},
        {"step": 100, "val_loss": 0.9},
        {"epoch": 2, "step": 200, "loss": 0.8},
        {"step": 200, "val_loss": 0.7},
    ]
    path = tmp_path / "log.jsonl"
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    frame = load_run(path).frame
    assert _points(frame, "val_loss") == [(100, 0.9), (200, 0.7)]


def test_ms_swift_logging_jsonl_is_stepped_by_its_progress_text():
    """ms-swift prints the step as `"global_step/max_steps": "10/438"` beside a fractional epoch,
    and ends the file with a line holding the whole `log_history`: it was taken for a
    trainer_state.json and refused as corrupt, and read as JSON lines the order of the lines was
    the step."""
    path = REAL_EXCERPTS / "ms_swift" / "logging.jsonl"
    result = load_run(path)
    assert result.format == "jsonl"
    f = result.frame
    loss = f[f["metric"] == "loss"]
    assert loss["step"].iloc[0] == 1 and loss["step"].iloc[1] == 10
    assert loss["step"].is_monotonic_increasing and loss["step"].iloc[-1] == 430
    evals = f[f["metric"] == "eval_loss"]
    assert list(evals["step"]) == [100, 200, 300, 400, 438]
    assert not {"best_metric", "memory", "global_step", "global_step/max_steps"} & set(f["metric"])


def test_stylegan_stats_are_read_as_their_means_by_tick():
    """StyleGAN2-ADA's `stats.jsonl` logs each statistic as its count, mean and spread: each
    became three series (the sample count a training loss), the discriminator's raw scores
    were losses, a regulariser's penalty was the loss judged, and the line order was the step."""
    result = load_run(REAL_EXCERPTS / "stylegan_stats" / "stats.jsonl")
    f = result.frame
    names = set(f["metric"])
    assert "Loss/G/loss" in names and not {n for n in names if n.endswith(("/num", "/std"))}
    roles = dict(zip(f["metric"], f["role"].astype(str), strict=False))
    assert roles["Loss/scores/fake"] == "other" and roles["Loss/signs/real"] == "other"
    assert RunSeries(f).primary("train_loss") == "Loss/G/loss"
    assert list(f[f["metric"] == "Loss/G/loss"]["step"]) == list(range(8))
    assert not [w for w in result.warnings if "line order" in w.message]


def test_an_empty_object_is_a_line_with_nothing_to_read(tmp_path):
    """`{}` on a line (a logger's record with nothing in it) left the lines and the table's rows
    out of step: an IndexError from inside the reader, where a typed error or the other lines'
    points were due (found by the fuzz test)."""
    alone = tmp_path / "metrics.jsonl"
    alone.write_text("{}")
    with pytest.raises(EmptyInputError, match="no numeric points"):
        load_run(alone)
    mixed = tmp_path / "log.jsonl"
    mixed.write_text('{}\n{}\n{"loss": 1.0, "step": 1}\n{"loss": 0.5, "step": 2}\n')
    frame = load_run(mixed).frame
    assert frame["value"].tolist() == [1.0, 0.5] and frame["step"].tolist() == [1, 2]
