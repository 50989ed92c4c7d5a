"""The TensorBoard reader on event files published by other people (../shared/real_runs):
every file gives tbparse's points, and each run reads as the MANIFEST describes it."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from lossforensics.ingest import tensorboard
from lossforensics.ingest._tb_layout import event_files, split_of

RUNS_WITH_EVENTS = [
    "tb_hf_t5_cnndm_slow_healthy",
    "tb_keras_hparam_exp13_rmsprop",
    "tb_keras_imdb_overfit",
    "tb_keras_mnist_extra_metrics",
    "tb_keras_mnist_sgd_exp2",
    "tb_keras_reuters_mod1",
    "tb_lightning_lstm_shakespeare_plateau",
    "yolov5_lego_healthy",
    "mlflow_keras_ctc_plateau",
]


def tbparse_points(path: Path) -> pd.DataFrame:
    """tbparse's scalars plus its rank-0 float tensors (TF2 writes scalars as tensors)."""
    tbparse = pytest.importorskip("tbparse")
    reader = tbparse.SummaryReader(str(path))
    scalars = reader.scalars
    tensors = reader.tensors
    if len(tensors):
        is_float = tensors["value"].map(
            lambda v: (
                isinstance(v, float | np.floating)
                or (isinstance(v, np.ndarray) and v.ndim == 0 and v.dtype.kind == "f")
            )
        )
        tensors = tensors[is_float]
    parts = [p[["tag", "step", "value"]] for p in (scalars, tensors) if len(p)]
    if not parts:
        return pd.DataFrame({"tag": [], "step": [], "value": []})
    out = pd.concat(parts, ignore_index=True)
    return out.astype({"tag": str, "step": "int64", "value": "float64"})


def ours_points(path: Path) -> pd.DataFrame:
    frame = tensorboard.read(path).frame
    tag = frame["metric"].astype(str)
    split = split_of(path.parent)
    if split:
        tag = tag.str.slice(len(split) + 1)
    return pd.DataFrame(
        {
            "tag": tag.to_numpy(),
            "step": frame["step"].to_numpy(),
            "value": frame["value"].to_numpy(),
        }
    )


def canonical(df: pd.DataFrame) -> pd.DataFrame:
    return df.sort_values(["tag", "step", "value"]).reset_index(drop=True)


@pytest.mark.parametrize("name", RUNS_WITH_EVENTS)
def test_every_published_event_file_matches_tbparse(real_runs: Path, name: str) -> None:
    files = event_files(real_runs / name)
    assert files, f"{name} holds no event file"
    for path in files:
        ours, ref = canonical(ours_points(path)), canonical(tbparse_points(path))
        assert len(ours) == len(ref), path.name
        assert ours["tag"].tolist() == ref["tag"].tolist(), path.name
        assert ours["step"].tolist() == ref["step"].tolist(), path.name
        np.testing.assert_array_equal(ours["value"].to_numpy(), ref["value"].to_numpy())


def counts(frame: pd.DataFrame) -> dict[tuple[str, str], int]:
    return frame.groupby(["metric", "role"], observed=True).size().to_dict()


def test_keras_imdb_is_one_run_with_train_and_val_loss(real_runs: Path) -> None:
    result = tensorboard.read(real_runs / "tb_keras_imdb_overfit")
    frame = result.frame
    assert set(frame["run"]) == {"tb_keras_imdb_overfit"} and result.warnings == []
    c = counts(frame)
    assert c[("train/epoch_loss", "train_loss")] == 20
    assert c[("validation/epoch_loss", "val_loss")] == 20
    val = frame[frame["metric"] == "validation/epoch_loss"].sort_values("step")
    assert int(val["step"].iloc[val["value"].argmin()]) == 4  # MANIFEST: min 0.275 at epoch 4
    assert val["value"].min() == pytest.approx(0.275, abs=5e-4)


def test_keras_hparam_folder_holds_two_runs_and_no_plugin_payloads(real_runs: Path) -> None:
    frame = tensorboard.read(real_runs / "tb_keras_hparam_exp13_rmsprop").frame
    assert sorted(set(frame["run"])) == [
        "experiments/Exp_13_rmsprop_512_0.2",
        "hparam_tuning/Experiment 13_rmsprop_512_0.2",
    ]
    session = frame[frame["run"] == "hparam_tuning/Experiment 13_rmsprop_512_0.2"]
    assert (session["metric"] == "batch_loss").sum() == 15000  # every step, not a sample
    assert not frame["metric"].str.startswith("_hparams_").any()


def test_hf_trainer_run_reads_both_files(real_runs: Path) -> None:
    result = tensorboard.read(real_runs / "tb_hf_t5_cnndm_slow_healthy")
    frame = result.frame
    assert set(frame["run"]) == {"Mar24_22-23-40_DESKTOP-41L2EO3"}
    assert len(result.files) == 2
    c = counts(frame)
    assert c[("train/loss", "train_loss")] == 430
    assert c[("train/learning_rate", "lr")] == 430
    assert c[("train/grad_norm", "grad_norm")] == 430
    assert c[("eval/loss", "val_loss")] == 1
    # the final-eval file is later: its points come after the training points
    eval_seq = frame.loc[frame["metric"] == "eval/loss", "seq"].iloc[0]
    assert eval_seq > frame.loc[frame["metric"] == "train/loss", "seq"].max()
    run_dir = real_runs / "tb_hf_t5_cnndm_slow_healthy" / "Mar24_22-23-40_DESKTOP-41L2EO3"
    assert set(tensorboard.read(run_dir).frame["run"]) == {run_dir.name}


def test_lightning_and_yolov5_point_counts(real_runs: Path) -> None:
    lightning = counts(tensorboard.read(real_runs / "tb_lightning_lstm_shakespeare_plateau").frame)
    assert lightning[("train_loss", "train_loss")] == 7691
    assert lightning[("val_loss", "val_loss")] == 29
    yolo = tensorboard.read(real_runs / "yolov5_lego_healthy").frame
    assert yolo.groupby("metric").size().eq(50).all() and yolo["metric"].nunique() == 13
    assert counts(yolo)[("val/box_loss", "val_loss")] == 50


def test_mlflow_artifact_tensorboard_log(real_runs: Path) -> None:
    frame = tensorboard.read(real_runs / "mlflow_keras_ctc_plateau").frame
    assert len(frame) == 10
    assert set(frame["metric"]) == {"train/epoch_loss"}
    assert set(frame["role"]) == {"train_loss"}
    assert frame["run"].iloc[0].endswith("artifacts/tensorboard_logs")
