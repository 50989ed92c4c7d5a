"""Ultralytics logs its loss only as parts; the loss it optimises, their sum, is read beside
them and judged as the run's loss."""

from __future__ import annotations

import math

import numpy as np
import pytest
from lossforensics.classifiers.run import RunSeries
from lossforensics.ingest import load_run

HEADER = (
    "               epoch,      train/box_loss,      train/obj_loss,      train/cls_loss,"
    "   metrics/precision,     metrics/mAP_0.5,        val/box_loss,        val/obj_loss,"
    "        val/cls_loss,               x/lr0\n"
)


def _results_csv(tmp_path, rows):
    path = tmp_path / "results.csv"
    lines = [HEADER] + [",".join(f"{v:>20}" for v in row) + "\n" for row in rows]
    path.write_text("".join(lines))
    return path


def _rows(n=20):
    """The box part falls while the objectness part, five times its size, climbs back on val."""
    rows = []
    for e in range(n):
        box = 0.12 - 0.003 * e
        val_obj = 0.60 - 0.02 * e if e < 10 else 0.40 + 0.03 * (e - 10)
        rows.append(
            (e, box, 0.55 - 0.01 * e, 0.0, 0.1 + 0.02 * e, 0.05 * e, box, val_obj, 0.0, 0.01)
        )
    return rows


def test_the_parts_are_summed_into_the_loss_the_run_optimised(tmp_path):
    result = load_run(_results_csv(tmp_path, _rows()))
    frame = result.frame
    total = frame[frame["metric"] == "val/loss"].sort_values("step")
    parts = frame[frame["metric"].isin(["val/box_loss", "val/obj_loss", "val/cls_loss"])]
    expected = parts.groupby("step")["value"].sum()
    assert total["step"].tolist() == list(range(20))
    assert np.allclose(total["value"].to_numpy(), expected.to_numpy())
    roles = frame.groupby("metric", observed=True)["role"].first().astype(str)
    assert roles["train/loss"] == "train_loss" and roles["val/loss"] == "val_loss"
    # the sum is what the classifiers judge, not the box part that keeps falling
    run = RunSeries(frame)
    assert run.primary("val_loss") == "val/loss" and run.primary("train_loss") == "train/loss"
    assert any("val/loss is read as the sum" in w.message for w in result.warnings)


def test_a_nan_part_makes_the_sum_nan(tmp_path):
    rows = _rows()
    rows[7] = rows[7][:2] + (float("nan"),) + rows[7][3:]
    frame = load_run(_results_csv(tmp_path, rows)).frame
    total = frame[frame["metric"] == "train/loss"].set_index("step")["value"]
    assert math.isnan(total[7]) and np.isfinite(total.drop(7)).all()


def test_a_logged_total_or_a_single_part_is_left_alone(tmp_path):
    # near misses: YOLOv5's results.txt-style total already logged; a loss in one part only
    path = tmp_path / "results.csv"
    path.write_text(
        "epoch,train/box_loss,train/obj_loss,train/loss,val/box_loss,metrics/mAP_0.5\n"
        + "".join(
            f"{e},{0.1 - 0.001 * e},{0.5},{0.6 - 0.001 * e},{0.1},{0.01 * e}\n" for e in range(8)
        )
    )
    frame = load_run(path).frame
    assert set(frame["metric"]) == {
        "train/box_loss",
        "train/obj_loss",
        "train/loss",
        "val/box_loss",
        "metrics/mAP_0.5",
    }
    total = frame[frame["metric"] == "train/loss"].sort_values("step")["value"]
    assert total.iloc[0] == 0.6


def test_a_real_yolov5_results_csv_reads_its_summed_loss(real_runs):
    frame = load_run(real_runs / "yolov5_lego_healthy" / "results.csv").frame
    wide = frame.pivot_table(index="step", columns="metric", values="value", observed=True)
    parts = wide[["train/box_loss", "train/obj_loss", "train/cls_loss"]].sum(axis=1)
    assert np.allclose(wide["train/loss"], parts) and len(wide) == 50


def test_yolov10s_two_heads_are_summed_and_a_validation_never_computed_is_not(tmp_path):
    # YOLOv10 logs each part of its one-to-many and one-to-one heads (`box_om`, `box_oo`);
    # a fork that computes no validation loss writes 0 in every val part
    path = tmp_path / "results.csv"
    heads = [
        f"{s}/{p}_{h}"
        for s in ("train", "val")
        for p in ("box", "cls", "dfl")
        for h in ("om", "oo")
    ]
    rows = []
    for e in range(10):
        train = [round(1.0 / (e + 1) + 0.1 * i, 4) for i in range(6)]
        rows.append(",".join(map(str, [e, *train, *([0.0] * 6), 0.1 * e])))
    path.write_text(",".join(["epoch", *heads, "metrics/mAP50(B)"]) + "\n" + "\n".join(rows) + "\n")
    result = load_run(path)
    frame = result.frame
    total = frame[frame["metric"] == "train/loss"].sort_values("step")["value"].to_numpy()
    assert len(total) == 10 and total[0] == pytest.approx(1.0 * 6 + 0.1 * 15)
    assert "val/loss" not in set(frame["metric"])
    run = RunSeries(frame)
    assert run.primary("train_loss") == "train/loss"


def test_a_part_that_is_zero_on_one_side_is_left_out_of_both_sums(tmp_path):
    """A detector trained on images without a single box: `train/box_loss` and `train/dfl_loss`
    are 0 for every epoch while their validation parts are not. Summed as logged, the training
    loss was the class part alone and the validation loss all three: two quantities, compared
    as one. The part left (`cls_loss`) is the loss of both, and the warning says why."""
    path = tmp_path / "results.csv"
    head = (
        "epoch,train/box_loss,train/cls_loss,train/dfl_loss,val/box_loss,val/cls_loss,val/dfl_loss"
    )
    rows = [
        f"{e},0,{113.0 / (e + 1):.4f},0,{3.5 + 0.02 * e:.4f},{4.1 + 0.1 * e:.4f},{4.2:.4f}"
        for e in range(10)
    ]
    result = load_run_text(path, head, rows)
    frame = result.frame
    for split in ("train", "val"):
        total = frame[frame["metric"] == f"{split}/loss"].sort_values("step")["value"].to_numpy()
        part = frame[frame["metric"] == f"{split}/cls_loss"].sort_values("step")["value"]
        assert np.allclose(total, part.to_numpy())
    assert any("box_loss, dfl_loss left out" in w.message for w in result.warnings)


def load_run_text(path, head, rows):
    path.write_text(head + "\n" + "\n".join(rows) + "\n")
    return load_run(path)
