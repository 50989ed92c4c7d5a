"""Hyper-parameters from run names and the config files beside the logs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from lossforensics.audit.hparams import from_configs, from_name, hparams_for


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("sweep/lr-3e-2/seed1", {"lr": 0.03}),
        ("lr=0.03_bs64", {"lr": 0.03, "batch_size": 64.0}),
        ("runs/wd_0.1-dropout0.2", {"weight_decay": 0.1, "dropout": 0.2}),
        ("learning_rate=1e-4,warmup=500", {"lr": 1e-4, "warmup_steps": 500.0}),
        ("lightning_logs/version_5", {}),
        ("plain-name", {}),
        ("resnet50-t5-small/gpt2_char_to_token1729491541.27", {}),
        ("Exp_13_rmsprop_512_0.2", {}),
        ("temp_0.7-beta=2", {"temp": 0.7, "beta": 2.0}),
    ],
)
def test_from_name(name: str, expected: dict) -> None:
    assert from_name(name) == pytest.approx(expected)


def test_from_configs_reads_yaml_json_mlflow_and_wandb(tmp_path: Path) -> None:
    (tmp_path / "hparams.yaml").write_text("lr: 0.0003\nnum_layers: 12\nname: gpt\nseed: 3\n")
    (tmp_path / "training_args.json").write_text(
        json.dumps(
            {"per_device_train_batch_size": 16, "weight_decay": "0.01", "nested": {"beta": 0.9}}
        )
    )
    (tmp_path / "params").mkdir()
    (tmp_path / "params" / "opt_momentum").write_text("0.9")
    (tmp_path / "params" / "opt_name").write_text("SGD")
    (tmp_path / "params" / "class_weight").write_text("None")
    (tmp_path / "files").mkdir()
    (tmp_path / "files" / "config.yaml").write_text("dropout:\n  desc: null\n  value: 0.2\n")
    got = from_configs(tmp_path)
    assert got == pytest.approx(
        {
            "lr": 3e-4,
            "num_layers": 12.0,
            "batch_size": 16.0,
            "weight_decay": 0.01,
            "nested.beta": 0.9,
            "momentum": 0.9,
            "dropout": 0.2,
        }
    )


def test_broken_config_is_ignored_and_names_win(tmp_path: Path) -> None:
    (tmp_path / "config.json").write_text("{not json")
    (tmp_path / "hparams.yaml").write_text("lr: 0.5\n")
    assert hparams_for("sweep/lr-1e-3", tmp_path) == pytest.approx({"lr": 1e-3})


def test_real_lightning_hparams(real_runs: Path) -> None:
    got = from_configs(real_runs / "lightning_slm_sweep_highlr_stuck" / "version_30")
    assert got["lr"] == pytest.approx(9.9e-4, rel=0.05)
