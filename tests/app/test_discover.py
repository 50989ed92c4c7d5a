"""Run discovery: every format found once, Keras train/validation as one run, sweeps nested,
symlink loops and unreadable paths reported without stopping the walk, deterministic order."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from lossforensics.classifiers.errors import NoLogsFoundError
from lossforensics.discover import discover_runs, require_runs


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def _events(path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"\x18\x00\x00\x00\x00\x00\x00\x00")  # framing only: discovery never parses


@pytest.fixture()
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "experiments"
    _events(root / "keras_run" / "train" / "events.out.tfevents.1.host.v2")
    _events(root / "keras_run" / "validation" / "events.out.tfevents.2.host.v2")
    _events(root / "sweep" / "lr-3e-2" / "seed1" / "events.out.tfevents.3.host")
    _events(root / "sweep" / "lr-1e-3" / "seed1" / "events.out.tfevents.4.host")
    _write(
        root / "hf" / "trainer_state.json", json.dumps({"log_history": [{"step": 1, "loss": 2.0}]})
    )
    _write(root / "hf" / "config.json", json.dumps({"learning_rate": 0.1}))
    _write(
        root / "lightning" / "version_3" / "metrics.csv",
        "epoch,step,train_loss_step,val_loss\n0,49,2.0,\n0,99,1.9,\n",
    )
    _write(root / "lightning" / "version_3" / "hparams.yaml", "lr: 0.001\n")
    _write(root / "keras_csv" / "training.log", "epoch,loss,val_loss\n0,1.0,1.1\n")
    _write(
        root / "exports" / "wandb_export.csv",
        '"Step","a - train/loss","b - train/loss"\n"1","2.0","3.0"\n',
    )
    _write(root / "nano" / "log.jsonl", '{"iter": 0, "train/loss": 10.0}\n')
    mlrun = root / "mlruns" / "1" / "abc123"
    _write(mlrun / "meta.yaml", "run_id: abc123\n")
    _write(mlrun / "metrics" / "loss", "1628697775 332.7 0\n")
    _events(mlrun / "artifacts" / "tensorboard_logs" / "train" / "events.out.tfevents.9.x")
    _write(root / "mlruns" / "1" / "meta.yaml", "name: exp\n")
    _write(root / "notes" / "README.txt", "nothing to see here\n")
    _write(root / "notes" / "empty.csv", "")
    return root


def test_finds_each_format_once_with_names_relative_to_root(tree: Path) -> None:
    found = discover_runs(tree)
    got = {(s.name, s.format) for s in found.sources}
    assert got == {
        ("exports", "wandb_csv"),
        ("hf", "hf_trainer"),
        ("keras_csv", "keras_csv"),
        ("keras_run", "tensorboard"),
        ("lightning/version_3", "lightning_csv"),
        ("mlruns/1/abc123", "mlflow"),
        ("nano", "jsonl"),
        ("sweep/lr-1e-3/seed1", "tensorboard"),
        ("sweep/lr-3e-2/seed1", "tensorboard"),
    }
    assert found.problems == []


def test_keras_split_dirs_are_one_run_read_from_the_parent(tree: Path) -> None:
    keras = [s for s in discover_runs(tree).sources if s.name == "keras_run"]
    assert len(keras) == 1 and Path(keras[0].path) == tree / "keras_run"


def test_order_is_sorted_and_stable(tree: Path) -> None:
    first = discover_runs(tree).sources
    assert [s.name for s in first] == sorted(s.name for s in first)
    assert discover_runs(tree).sources == first


def test_symlink_loop_is_reported_not_fatal(tree: Path) -> None:
    os.symlink(tree, tree / "sweep" / "loop")
    found = discover_runs(tree)
    assert [p.kind for p in found.problems] == ["symlink_loop"]
    assert "loop" in found.problems[0].path
    assert len(found.sources) == 9  # nothing found twice through the loop


def test_broken_link_is_reported(tree: Path) -> None:
    os.symlink(tree / "missing", tree / "dangling.csv")
    found = discover_runs(tree)
    assert [p.kind for p in found.problems] == ["broken_link"]


def test_unreadable_directory_is_reported_and_the_walk_goes_on(
    tree: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    locked = str(tree / "sweep" / "lr-1e-3")
    real_scandir = os.scandir

    def scandir(path):  # chmod 0 does not stop root, so refuse the way the kernel would
        if str(path) == locked:
            raise PermissionError(13, "Permission denied", str(path))
        return real_scandir(path)

    monkeypatch.setattr("lossforensics.discover.os.scandir", scandir)
    found = discover_runs(tree)
    assert [(p.kind, p.path) for p in found.problems] == [("unreadable", locked)]
    assert "sweep/lr-3e-2/seed1" in {s.name for s in found.sources}
    assert "sweep/lr-1e-3/seed1" not in {s.name for s in found.sources}


def test_a_single_file_is_its_own_source(tree: Path) -> None:
    found = discover_runs(tree / "nano" / "log.jsonl")
    assert [(s.name, s.format) for s in found.sources] == [("log.jsonl", "jsonl")]


def test_file_beside_tensorboard_run_is_the_same_run_noted(tmp_path: Path) -> None:
    # YOLOv5 writes results.csv beside its event file: one run logged twice, read once (as
    # ingest reads the folder), the other format noted
    _events(tmp_path / "exp" / "events.out.tfevents.1.x")
    _write(tmp_path / "exp" / "results.csv", "epoch,loss,val_loss\n0,1.0,1.0\n")
    [source] = discover_runs(tmp_path).sources
    assert (source.name, source.format) == ("exp", "tensorboard")
    assert source.also == (str(tmp_path / "exp" / "results.csv"),)


def test_missing_root_and_empty_root(tmp_path: Path) -> None:
    with pytest.raises(NoLogsFoundError):
        discover_runs(tmp_path / "nope")
    with pytest.raises(NoLogsFoundError) as err:
        require_runs(discover_runs(tmp_path))
    assert err.value.code == "no_logs"


def test_real_runs_every_folder_found(real_runs: Path, real_labels: dict) -> None:
    found = discover_runs(real_runs)
    tops = {s.name.split("/")[0] for s in found.sources}
    assert tops == set(real_labels)
    fmts = {s.name.split("/")[0]: s.format for s in found.sources}
    assert fmts["tb_keras_imdb_overfit"] == "tensorboard"
    assert fmts["wandb_nanogpt_tokenizer_variants"] == "wandb_csv"
    assert fmts["mlflow_keras_ctc_plateau"] == "mlflow"
    assert fmts["jsonl_detectron2_medwaste_lr_step"] == "jsonl"


def test_event_files_nested_in_a_tensorboard_run_are_not_listed_twice(tmp_path: Path) -> None:
    # HF Trainer writes runs/<date>/events... plus runs/<date>/<timestamp>/events...; load_run
    # reads a TensorBoard directory recursively, so only the outer directory is a source
    _events(tmp_path / "runs" / "Mar24" / "events.out.tfevents.1.host")
    _events(tmp_path / "runs" / "Mar24" / "1742884204.123" / "events.out.tfevents.2.host")
    _write(
        tmp_path / "runs" / "Mar24" / "1742884204.123" / "trainer_state.json",
        json.dumps({"log_history": [{"step": 1, "loss": 2.0}]}),
    )
    # ...and the trainer_state.json among them is the same run logged again: noted, not listed
    [source] = discover_runs(tmp_path).sources
    assert (source.name, source.format) == ("runs/Mar24", "tensorboard")
    assert source.also == (str(tmp_path / "runs/Mar24/1742884204.123/trainer_state.json"),)


def test_a_file_named_like_a_log_that_no_reader_takes_is_reported(tmp_path: Path) -> None:
    (tmp_path / "run").mkdir()
    (tmp_path / "run" / "training.log").write_text("Epoch 1/10 - loss: 0.91 - acc: 0.55\n")
    (tmp_path / "run" / "notes.txt").write_text("just notes\n")  # not named like a log: quiet
    found = discover_runs(tmp_path)
    assert found.sources == []
    assert [(Path(p.path).name, p.kind) for p in found.problems] == [
        ("training.log", "unrecognised")
    ]


def test_a_folders_series_files_are_one_run(tmp_path: Path) -> None:
    """`log_train.txt` + `log_val.txt` of bare numbers: one run, at their folder, as ingest
    reads it; a lone series file elsewhere is its own (named after its folder, as a lone
    conventional file is)."""
    run = tmp_path / "exp1"
    run.mkdir()
    (run / "log_train.txt").write_text("".join(f"{e} {0.9 / (e + 1):.4f}\n" for e in range(6)))
    (run / "log_val.txt").write_text("".join(f"{e} {1.0 / (e + 1):.4f}\n" for e in range(6)))
    (tmp_path / "train_loss.txt").write_text("0.91\n0.62\n0.48\n0.40\n")
    found = discover_runs(tmp_path)
    assert sorted((s.name, s.format) for s in found.sources) == sorted(
        [("exp1", "series_file"), (tmp_path.name, "series_file")]
    )
    assert {Path(s.path).name for s in found.sources} == {"exp1", "train_loss.txt"}
