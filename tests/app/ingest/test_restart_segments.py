"""One segment rule for every reader (`_segments.restart_segments`): a metric's step that goes
back, or a new segment/phase label, starts a segment of its run from that point on; metrics at
other cadences, train/validation streams and sweeps' runs are not restarts. Per reader: a file
with a restart gives segments 0 then 1 at the right rows, one without stays all 0."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from lossforensics.ingest import hf_trainer, keras_csv, lightning_csv, load_run, mlflow
from lossforensics.ingest._segments import restart_segments
from lossforensics.ingest.tensorboard import read as read_tensorboard

from tests.app.ingest.tb_event_writers import frame_records, scalar_event, timestamped_name

DATA = Path(__file__).parent / "data"


def _segments(frame, metric=None):
    rows = frame if metric is None else frame[frame["metric"] == metric]
    return rows.sort_values("seq")["segment"].tolist()


# --- the rule ----------------------------------------------------------------------------------


def test_one_restart_seen_by_every_metric_counts_once_from_its_first_point():
    steps = np.repeat([10, 20, 30, 10, 20], 3)  # three metrics a line, the fourth line restarts
    metrics = np.tile([0, 1, 2], 5)
    seg = restart_segments(np.zeros(15, int), metrics, steps)
    assert seg.tolist() == [0] * 9 + [1] * 6


def test_a_metric_at_another_cadence_is_judged_on_its_own_steps():
    # train every 10 steps, val every 500: val at 500 logged after train at 510 is no restart
    metrics = np.array([0, 0, 1, 0, 0, 1])
    steps = np.array([500, 510, 500, 520, 1000, 1000])
    assert restart_segments(np.zeros(6, int), metrics, steps).tolist() == [0] * 6


def test_a_repeated_step_is_a_duplicate_write_not_a_restart():
    steps = np.array([1, 2, 2, 3])
    assert restart_segments(np.zeros(4, int), np.zeros(4, int), steps).tolist() == [0] * 4


def test_a_metric_logged_across_the_restart_joins_the_segment_at_the_restart():
    # loss restarts at its third point; val (logged before and after) did not go back
    metrics = np.array([0, 1, 0, 0, 1, 0])
    steps = np.array([10, 10, 20, 5, 50, 15])
    assert restart_segments(np.zeros(6, int), metrics, steps).tolist() == [0, 0, 0, 1, 1, 1]


def test_labels_start_segments_but_labels_that_come_back_are_streams():
    runs, metrics, steps = np.zeros(4, int), np.zeros(4, int), np.arange(4)
    sessions = restart_segments(runs, metrics, steps, labels=np.array([0, 0, 1, 1]))
    streams = restart_segments(runs, metrics, steps, labels=np.array([0, 1, 0, 1]))
    assert sessions.tolist() == [0, 0, 1, 1] and streams.tolist() == [0] * 4


def test_runs_count_their_own_segments_in_the_given_order():
    runs = np.array([0, 0, 1, 1, 0, 1])
    steps = np.array([5, 6, 5, 6, 1, 7])
    assert restart_segments(runs, np.zeros(6, int), steps).tolist() == [0, 0, 0, 0, 1, 0]
    order = np.array([0, 1, 2, 3, 5, 4])  # the same points, logged in another order
    assert restart_segments(runs, np.zeros(6, int), steps, order).tolist() == [0, 0, 0, 0, 1, 0]


@pytest.mark.parametrize("seed", range(5))
def test_no_order_reads_as_the_order_given(seed):
    """`order=None` (the builder's source order) skips the sort of the order: the segments are
    the ones an explicit 0..n-1 order gives, and a shuffled order of the same points gives them
    in its own order."""
    rng = np.random.default_rng(seed)
    n = 3000
    runs, metrics = rng.integers(0, 3, n), rng.integers(0, 5, n)
    steps = np.cumsum(rng.integers(0, 3, n)) - np.where(rng.random(n) < 0.003, 500, 0).cumsum()
    labels = np.where(rng.random(n) < 0.5, rng.integers(0, 2, n), -1)
    for lab in (None, labels):
        plain = restart_segments(runs, metrics, steps, None, lab)
        assert plain.tolist() == restart_segments(runs, metrics, steps, np.arange(n), lab).tolist()
        assert plain.any()
        shuffle = rng.permutation(n)
        order = np.empty(n, dtype=np.int64)
        order[shuffle] = np.arange(n)  # point shuffle[k] was logged k-th
        moved = None if lab is None else lab[shuffle]
        got = restart_segments(runs[shuffle], metrics[shuffle], steps[shuffle], None, moved)
        mixed = restart_segments(runs, metrics, steps, order, lab)
        assert mixed[shuffle].tolist() == got.tolist()


def test_a_million_points_with_restarts_stay_vectorised():
    n = 1_000_000
    steps = np.tile(np.arange(n // 4), 4)  # one metric restarted three times
    seg = restart_segments(np.zeros(n, int), np.zeros(n, int), steps)
    assert np.bincount(seg).tolist() == [n // 4] * 4


# --- per reader --------------------------------------------------------------------------------

_KERAS_HEADER = "epoch,accuracy,loss,val_accuracy,val_loss\n"


def _keras_rows(epochs) -> str:
    return "".join(f"{e},0.{5 + e},{1 / (e + 1)},0.5,{1 / (e + 2)}\n" for e in epochs)


def test_keras_csv_fit_called_twice_on_one_logger(tmp_path):
    path = tmp_path / "training.log"
    path.write_text(_KERAS_HEADER + _keras_rows([0, 1]) + _keras_rows([0, 1, 2]))
    result = keras_csv.read(path)
    assert _segments(result.frame, "loss") == [0, 0, 1, 1, 1]
    assert _segments(result.frame, "val_loss") == [0, 0, 1, 1, 1]
    assert any("restart" in w.message for w in result.warnings)
    path.write_text(_KERAS_HEADER + _keras_rows(range(5)))
    assert set(keras_csv.read(path).frame["segment"]) == {0}


def test_lightning_csv_interleaved_train_and_val_rows_are_one_segment(tmp_path):
    lines = ["epoch,step,train_loss_step,val_loss,train_loss_epoch"]
    for epoch in range(3):
        lines += [f"{epoch},{epoch * 100 + s},{1 / (s + 1)},," for s in (49, 99)]
        lines += [f"{epoch},{epoch * 100 + 99},,0.5,", f"{epoch},{epoch * 100 + 99},,,0.7"]
    path = tmp_path / "metrics.csv"
    path.write_text("\n".join(lines) + "\n")
    assert set(lightning_csv.read(path).frame["segment"]) == {0}
    lines += ["1,149,0.4,,", "1,199,0.3,,"]  # resumed from the epoch-1 checkpoint
    path.write_text("\n".join(lines) + "\n")
    frame = lightning_csv.read(path).frame
    assert _segments(frame, "train_loss_step") == [0] * 6 + [1, 1]
    assert _segments(frame, "val_loss") == [0, 0, 0]


def test_plain_csv_run_column_is_runs_and_phase_column_is_segments(tmp_path):
    path = tmp_path / "sweep.csv"
    rows = [f"{t},{s},{1 / (s + 1)}" for t in (1, 2) for s in range(4)]
    path.write_text("trial,step,loss\n" + "\n".join(rows) + "\n")
    frame = load_run(path).frame
    assert sorted(set(frame["run"])) == ["trial-1", "trial-2"]
    assert set(frame["metric"]) == {"loss"} and set(frame["segment"]) == {0}
    rows = [f"{p},{s},{1 / (s + 1)}" for p, s in [("pre", 0), ("pre", 1), ("ft", 2), ("ft", 3)]]
    path.write_text("phase,step,loss\n" + "\n".join(rows) + "\n")
    frame = load_run(path).frame
    assert set(frame["metric"]) == {"loss"} and _segments(frame) == [0, 0, 1, 1]


def test_long_csv_keeps_the_segments_it_was_written_with(tmp_path):
    path = tmp_path / "long.csv"
    rows = [f"r,loss,{s},1.0,{g}" for g, s in [(0, 0), (0, 1), (1, 2), (1, 3)]]
    path.write_text("run,metric,step,value,segment\n" + "\n".join(rows) + "\n")
    assert _segments(load_run(path).frame) == [0, 0, 1, 1]


def test_hf_trainer_state_whose_step_goes_back(tmp_path):
    history = [{"step": s, "loss": 1 / s, "epoch": s / 10} for s in (10, 20, 30)]
    history += [{"step": 30, "eval_loss": 0.5, "epoch": 3.0}]
    path = tmp_path / "trainer_state.json"
    path.write_text(json.dumps({"log_history": history}))
    assert set(hf_trainer.read(path).frame["segment"]) == {0}
    history += [{"step": s, "loss": 0.9 / s, "epoch": s / 10} for s in (20, 30, 40)]
    path.write_text(json.dumps({"log_history": history}))
    frame = hf_trainer.read(path).frame
    assert _segments(frame, "loss") == [0, 0, 0, 1, 1, 1]
    assert _segments(frame, "eval_loss") == [0]


def test_mlflow_metric_history_resumed_at_an_earlier_step(tmp_path):
    store = tmp_path / "mlruns"
    shutil.copytree(DATA / "mlruns", store)
    assert set(mlflow.read(store).frame["segment"]) == {0}
    (loss,) = [p for p in store.rglob("metrics/train/loss") if "lr-high" in _run_name(p)]
    last = int(loss.read_text().split()[-3])
    loss.write_text(loss.read_text() + "".join(f"{last + 1000 + s} 0.3 {s}\n" for s in (2, 3)))
    frame = mlflow.read(store).frame
    mine = frame[(frame["run"] == "lr-high") & (frame["metric"] == "train/loss")]
    assert _segments(mine)[-3:] == [0, 1, 1]
    assert set(frame.loc[frame["run"] == "baseline", "segment"]) == {0}


def _run_name(metric_file: Path) -> str:
    return (metric_file.parents[2] / "tags" / "mlflow.runName").read_text()


def test_tensorboard_restart_files_are_segments_and_splits_are_not(tmp_path):
    run = tmp_path / "run"
    run.mkdir()
    first = [scalar_event("loss", s, 1.0 / (s + 1), 100.0 + s) for s in range(10)]
    resumed = [scalar_event("loss", s, 0.5, 200.0 + s) for s in range(5, 12)]
    (run / timestamped_name(1700000100)).write_bytes(frame_records(first))
    (run / timestamped_name(1700000200)).write_bytes(frame_records(resumed))
    assert _segments(read_tensorboard(run).frame) == [0] * 10 + [1] * 7
    # train/ and validation/ files of one run: each split keeps its own steps in order
    keras = tmp_path / "keras"
    for split, offset in (("train", 0.0), ("validation", 0.5)):
        (keras / split).mkdir(parents=True)
        events = [scalar_event("epoch_loss", e, 1 / (e + 1), 100.0 + e + offset) for e in range(5)]
        (keras / split / timestamped_name(1700000100)).write_bytes(frame_records(events))
    assert set(read_tensorboard(keras).frame["segment"]) == {0}
    for split, offset in (("train", 0.0), ("validation", 0.5)):  # resumed at epoch 3
        events = [scalar_event("epoch_loss", e, 0.3, 200.0 + e + offset) for e in range(3, 6)]
        (keras / split / timestamped_name(1700000200)).write_bytes(frame_records(events))
    frame = read_tensorboard(keras).frame
    assert _segments(frame, "train/epoch_loss") == [0] * 5 + [1] * 3
    assert _segments(frame, "validation/epoch_loss") == [0] * 5 + [1] * 3


@pytest.mark.parametrize("n_lines", [60, 1736])
def test_detectron2_appended_runs_split_at_each_counter_reset(real_runs_more, n_lines, tmp_path):
    """Eight sessions appended into one metrics.json; the interrupted run at line 59 ends with
    iteration 356 (metrics only) then 355 (losses): other keys, so no restart there."""
    src = real_runs_more / "jsonl_detectron2_maskrcnn_appended_runs_resume" / "metrics.json"
    path = tmp_path / "metrics.json"
    path.write_text("".join(src.read_text().splitlines(keepends=True)[:n_lines]))
    frame = load_run(path).frame
    loss = frame[frame["metric"] == "total_loss"].sort_values("seq")
    cuts = loss["step"][loss["segment"].diff() > 0].tolist()
    assert cuts == ([19] if n_lines == 60 else [19, 19, 19, 19, 15019, 19, 19])


def test_wandb_export_of_a_sweep_is_runs_each_one_segment(real_runs):
    frame = load_run(real_runs / "wandb_nanogpt_tokenizer_variants" / "wandb_export.csv").frame
    assert frame["run"].nunique() == 8 and set(frame["segment"]) == {0}


def test_jsonl_phase_that_alternates_is_a_stream_not_a_session(tmp_path):
    rows = [{"epoch": e, "phase": p, "loss": 1 / (e + 1)} for e in range(4) for p in ("tr", "va")]
    path = tmp_path / "log.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    assert set(load_run(path).frame["segment"]) == {0}
