"""Lightning CSVLogger metrics.csv from a real LR sweep, and the logger's layout."""

from __future__ import annotations

import pytest
from lossforensics.ingest import lightning_csv, load_run

OVERFIT = "lightning_slm_sweep_overfit/version_5"


def test_sparse_rows_become_separate_series(real_runs):
    frame = lightning_csv.read(real_runs / OVERFIT / "metrics.csv").frame
    counts = frame.groupby("metric").size()
    assert counts["train_loss_step"] == 80
    assert counts["val_loss"] == 14 and counts["train_loss_epoch"] == 14
    assert not frame["value"].isna().any()  # empty cells are not points
    val = frame[frame["metric"] == "val_loss"].sort_values("step")
    assert val["value"].min() == pytest.approx(5.111, abs=1e-3)
    roles = frame.groupby("metric", observed=True)["role"].first().astype(str)
    assert roles["train_loss_step"] == roles["train_loss_epoch"] == "train_loss"
    assert roles["val_loss"] == "val_loss" and roles["epoch"] == "other"


def test_version_directory_is_read_and_named_with_its_parent(real_runs):
    result = load_run(real_runs / OVERFIT)
    assert result.format == "lightning_csv"
    assert result.runs == ["lightning_slm_sweep_overfit/version_5"]
    assert result.files == [str(real_runs / OVERFIT / "metrics.csv")]  # not hparams.yaml


def test_lightning_logs_with_several_versions(tmp_path):
    for v, lr in ((0, 0.1), (1, 0.01)):
        d = tmp_path / "lightning_logs" / f"version_{v}"
        d.mkdir(parents=True)
        (d / "hparams.yaml").write_text(f"lr: {lr}\n")
        (d / "metrics.csv").write_text(
            "epoch,lr-Adam,step,train_loss_step,val_loss\n"
            "0,,0,,\n0,0.1,0,,\n0,,49,2.5,\n0,,99,,2.7\n1,,149,2.1,\n"
        )
    result = load_run(tmp_path / "lightning_logs")
    assert sorted(result.runs) == ["version_0", "version_1"]
    roles = result.frame.groupby("metric", observed=True)["role"].first().astype(str)
    assert roles["lr-Adam"] == "lr"
    one = result.frame[(result.frame["run"] == "version_0")]
    assert one.loc[one["metric"] == "val_loss", "step"].tolist() == [99]
