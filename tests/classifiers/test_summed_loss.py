"""A loss logged only as its parts (Ultralytics' box, cls and dfl losses) is judged on their sum."""

from __future__ import annotations

import numpy as np
import pytest
from lossforensics.classifiers.diagnose import diagnose_all
from lossforensics.classifiers.run import split_runs
from lossforensics.classifiers.summed_loss import parts_of, summed_view
from lossforensics.ingest import load_run

_HEADER = (
    "epoch,train/box_loss,train/cls_loss,train/dfl_loss,metrics/precision(B),metrics/recall(B),"
    "metrics/mAP50(B),metrics/mAP50-95(B),val/box_loss,val/cls_loss,val/dfl_loss,lr/pg0"
)
_EPOCHS = 60
_CLS_BEST_EPOCH = 30


def _results_csv(tmp_path, *, cls_rises: bool, nan_at: int | None = None):
    """A YOLOv8 results.csv: every training part falls. With `cls_rises` the val box and dfl
    parts level off after a few epochs (the part read first by name holds) while the val class
    part climbs 35% from epoch 30 (the class head overfits); without, every val part follows
    its training part down."""
    rng = np.random.default_rng(7)
    ep = np.arange(1, _EPOCHS + 1, dtype=float)
    noise = lambda: 1 + 0.01 * rng.standard_normal(_EPOCHS)  # noqa: E731
    train_box = (0.9 + 0.9 * np.exp(-ep / 10)) * noise()
    train_cls = (0.6 + 3.4 * np.exp(-ep / 12)) * noise()
    train_dfl = (1.0 + 0.5 * np.exp(-ep / 10)) * noise()
    if cls_rises:
        val_box = (1.15 + 0.3 * np.exp(-ep / 3)) * noise()
        val_dfl = (1.18 + 0.2 * np.exp(-ep / 3)) * noise()
        climb = np.where(ep > _CLS_BEST_EPOCH, 0.022 * (ep - _CLS_BEST_EPOCH), 0.0)
        val_cls = (1.85 + 7.0 * np.exp(-ep / 3) + climb) * noise()
    else:
        val_box, val_cls, val_dfl = 1.1 * train_box, 1.2 * train_cls, 1.1 * train_dfl
    if nan_at is not None:
        val_cls[nan_at] = np.nan
    m_ap = 0.45 * (1 - np.exp(-ep / 10))
    rows = [_HEADER]
    for i in range(_EPOCHS):
        rows.append(
            f"{i + 1},{train_box[i]:.5f},{train_cls[i]:.5f},{train_dfl[i]:.5f},0.4,0.8,"
            f"{m_ap[i]:.5f},{m_ap[i] * 0.6:.5f},{val_box[i]:.5f},{val_cls[i]:.5f},"
            f"{val_dfl[i]:.5f},0.0002"
        )
    path = tmp_path / "results.csv"
    path.write_text("\n".join(rows) + "\n")
    return path


def test_parts_of_takes_one_prefix_of_detection_parts_only():
    assert parts_of(["val/cls_loss", "val/box_loss", "val/dfl_loss"]) == (
        "val/",
        ["val/box_loss", "val/cls_loss", "val/dfl_loss"],
    )
    assert parts_of(["train/box_loss", "train/obj_loss", "train/cls_loss"]) is not None
    # one part is the loss as logged; a total beside the parts is the trainer's own
    assert parts_of(["val/box_loss"]) is None
    assert parts_of(["val/box_loss", "val/cls_loss", "val/loss"]) is None
    # a GAN's two losses are adversaries, not parts of one objective
    assert parts_of(["train/gen_loss", "train/disc_loss"]) is None
    assert parts_of(["a/box_loss", "b/cls_loss"]) is None


def test_a_class_head_that_overfits_is_found_on_the_sum(tmp_path):
    result = load_run(_results_csv(tmp_path, cls_rises=True))
    [d] = diagnose_all(result.frame)
    assert d.verdict == "overfit"
    [overfit] = [f for f in d.findings if f.label == "overfit"]
    assert overfit.evidence["val_metric"] == "val/box_loss+cls_loss+dfl_loss"
    assert any("sum, val/box_loss+cls_loss+dfl_loss" in w for w in d.warnings)
    # the diagnosis lists what was logged, not the sum
    assert {m.metric for m in d.metrics} >= {"val/box_loss", "val/cls_loss"}
    assert not any("+" in m.metric for m in d.metrics)


def test_parts_that_follow_training_down_are_healthy(tmp_path):
    [d] = diagnose_all(load_run(_results_csv(tmp_path, cls_rises=False)).frame)
    assert d.verdict == "healthy"


def test_the_stored_frame_keeps_only_what_was_logged(tmp_path):
    frame = load_run(_results_csv(tmp_path, cls_rises=True)).frame
    assert not frame["metric"].astype(str).str.contains("+", regex=False).any()


def test_a_nan_part_makes_the_sum_nan_at_its_step(tmp_path):
    run = split_runs(load_run(_results_csv(tmp_path, cls_rises=False, nan_at=20)).frame)[0]
    view, notes = summed_view(run)
    curve = view.curve("val_loss")
    assert curve.metric == "val/box_loss+cls_loss+dfl_loss" and len(curve) == _EPOCHS
    assert np.isnan(curve.values[20]) and np.isfinite(np.delete(curve.values, 20)).all()
    assert len(notes) == 2  # the training and the validation loss


@pytest.mark.parametrize("names", [["loss", "val_loss"], ["train/box_loss", "val/box_loss"]])
def test_a_run_with_a_total_or_one_part_gets_no_view(tmp_path, names):
    rows = [",".join(["epoch", *names])] + [
        ",".join([str(i), *(f"{1.0 / (i + 1):.4f}" for _ in names)]) for i in range(10)
    ]
    path = tmp_path / "metrics.csv"
    path.write_text("\n".join(rows) + "\n")
    assert summed_view(split_runs(load_run(path).frame)[0]) is None
