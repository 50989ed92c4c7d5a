"""load_run and detect_format: every real published run, bad input as typed errors, naming."""

from __future__ import annotations

import json

import pytest
from lossforensics.classifiers.errors import (
    EmptyInputError,
    InvalidRoleError,
    NoLogsFoundError,
    UnknownFormatError,
)
from lossforensics.classifiers.frame import validate_frame
from lossforensics.ingest import READERS, detect_format, load_run

EXPECTED_FORMAT = {
    "hf_": "hf_trainer",
    "jsonl_": "jsonl",
    "keras_csvlogger_": "keras_csv",
    "lightning_": "lightning_csv",
    "mlflow_": "mlflow",
    "tb_": "tensorboard",
    "wandb_": "wandb_csv",
    "yolov5_": "tensorboard",
    "textlog_": "console",
    "csv_": ("keras_csv", "csv"),
}


def _loads_every_run_in_its_format(root, at_least):
    dirs = sorted(d for d in root.iterdir() if d.is_dir())
    assert len(dirs) >= at_least
    for d in dirs:
        result = load_run(d)
        want = next(f for prefix, f in EXPECTED_FORMAT.items() if d.name.startswith(prefix))
        assert result.format in (want if isinstance(want, tuple) else (want,)), d.name
        validate_frame(result.frame)
        assert len(result.frame) > 0 and result.files, d.name
        assert result.frame["role"].isin(["train_loss", "val_loss"]).any(), d.name


def test_every_real_run_loads_in_its_format(real_runs):
    _loads_every_run_in_its_format(real_runs, 20)


def test_every_more_real_run_loads_with_a_loss_series(real_runs_more):
    _loads_every_run_in_its_format(real_runs_more, 28)


@pytest.mark.parametrize(
    ("relpath", "fmt"),
    [
        ("jsonl_detectron2_medwaste_lr_step/metrics.json", "jsonl"),
        ("keras_csvlogger_brats_lr_decay/training.log", "keras_csv"),
        ("hf_whisper_ja_overfit/trainer_state.json", "hf_trainer"),
        ("lightning_slm_sweep_overfit/version_5/metrics.csv", "lightning_csv"),
        ("wandb_nanogpt_tokenizer_variants/wandb_export.csv", "wandb_csv"),
        ("yolov5_lego_healthy/results.csv", "csv"),
        ("mlflow_keras_ctc_plateau/mlruns", "mlflow"),
    ],
)
def test_detect_format_by_content(real_runs, tmp_path, relpath, fmt):
    assert detect_format(real_runs / relpath) == fmt
    if (real_runs / relpath).is_file():  # the name plays no part
        renamed = tmp_path / "renamed.dat"
        renamed.write_bytes((real_runs / relpath).read_bytes())
        assert detect_format(renamed) == fmt


def test_readers_mapping_lists_every_format():
    assert {
        "tensorboard",
        "mlflow",
        "hf_trainer",
        "jsonl",
        "wandb_csv",
        "lightning_csv",
        "keras_csv",
        "csv",
    } <= set(READERS)
    for fmt in READERS:
        reader = READERS[fmt]
        assert reader.FORMAT == fmt and callable(reader.sniff) and callable(reader.read)


def test_empty_file(tmp_path):
    path = tmp_path / "metrics.jsonl"
    path.write_bytes(b"")
    with pytest.raises(EmptyInputError) as info:
        load_run(path)
    assert info.value.file == str(path)
    path.write_bytes(b"\n\n  \n")
    with pytest.raises(EmptyInputError):
        load_run(path)


def test_unknown_content_names_the_file(tmp_path):
    path = tmp_path / "notes.txt"
    path.write_text("just some words about the run\nnothing numeric\n")
    with pytest.raises(UnknownFormatError) as info:
        load_run(path)
    assert info.value.file == str(path) and info.value.code == "unknown_format"


def test_git_lfs_pointer_says_what_it_is(tmp_path):
    path = tmp_path / "trainer_state.json"
    path.write_text(
        "version https://git-lfs.github.com/spec/v1\n"
        "oid sha256:4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393\n"
        "size 12345\n"
    )
    with pytest.raises(UnknownFormatError, match="git-LFS"):
        load_run(path)


def test_a_pickle_is_refused_unloaded_with_what_to_save_instead(tmp_path):
    """`pickle.dump(history.history, f)` and `torch.save(...)` hold code to run on loading:
    the error says what the file is and how to save the curves so they can be read, and the
    pickle is never loaded (its unpickling would leave a marker file)."""
    import pickle
    import zipfile

    marker = tmp_path / "unpickled"

    class Trap:
        def __reduce__(self):
            return (open, (str(marker), "w"))

    path = tmp_path / "history.pkl"
    path.write_bytes(pickle.dumps({"loss": [1.0, 0.5], "trap": Trap()}, protocol=4))
    with pytest.raises(UnknownFormatError, match=r"a Python pickle .*json\.dump"):
        load_run(path)
    assert not marker.exists()
    path = tmp_path / "ckpt.pt"  # torch.save's layout: a zip holding <name>/data.pkl
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("ckpt/data.pkl", pickle.dumps({"loss": [1.0, 0.5]}))
        zf.writestr("ckpt/version", "3\n")
    with pytest.raises(UnknownFormatError, match="a PyTorch file"):
        load_run(path)
    path = tmp_path / "run-3xk9.wandb"
    path.write_bytes(b"\x00\x01:W&B" + bytes(200))
    with pytest.raises(UnknownFormatError, match="W&B's binary run file"):
        load_run(path)


def test_directory_without_logs_and_missing_path(tmp_path):
    (tmp_path / "README.md").write_text("# a run\n")
    (tmp_path / "hparams.yaml").write_text("lr: 0.1\n")
    with pytest.raises(NoLogsFoundError) as info:
        load_run(tmp_path)
    assert info.value.file == str(tmp_path)
    with pytest.raises(NoLogsFoundError):
        load_run(tmp_path / "absent")


def test_unknown_format_name_is_refused(real_runs):
    with pytest.raises(UnknownFormatError, match="known formats"):
        load_run(real_runs / "hf_whisper_ja_overfit", format="wandb")


def test_format_override_on_a_file_of_another_kind(real_runs):
    with pytest.raises(UnknownFormatError):
        load_run(real_runs / "hf_whisper_ja_overfit" / "trainer_state.json", format="keras_csv")


def test_folder_of_jsonl_runs_with_clashing_default_names(tmp_path):
    for exp in ("exp1", "exp2"):
        d = tmp_path / exp / "train"
        d.mkdir(parents=True)
        (d / "log.jsonl").write_text(json.dumps({"step": 0, "loss": 1.0}) + "\n")
    result = load_run(tmp_path)
    assert sorted(result.runs) == ["exp2/train/log", "train"]
    assert result.frame["seq"].is_unique


def _wandb_chart(path, metric, runs, offset):
    """A W&B chart export: x-axis `epoch/epoch`, then `<run> - <metric>` with its companions."""
    cols = ['"epoch/epoch"']
    for run in runs:
        cols += [f'"{run} - _step"', f'"{run} - {metric}"', f'"{run} - {metric}__MIN"']
    lines = [",".join(cols)]
    for e in range(10):
        cells = [f'"{e}"']
        for i, _ in enumerate(runs):
            v = offset + 1.0 / (e + 1) + 0.01 * i
            cells += [f'"{601 * (e + 1)}"', f'"{v}"', f'"{v}"']
        lines.append(",".join(cells))
    path.write_text("\n".join(lines) + "\n")


def test_chart_exports_of_one_runs_metrics_side_by_side_are_one_run_each(tmp_path):
    # W&B exports one chart a file: the train loss of four runs in one, their val loss in
    # another; each run's curves belong together (the `_step` columns repeat in both)
    runs = ["elated-capybara-104", "divine-pond-103", "spring-sunset-102", "icy-cosmos-101"]
    _wandb_chart(tmp_path / "train_loss.csv", "epoch/loss", runs, 0.5)
    _wandb_chart(tmp_path / "val_loss.csv", "epoch/val_loss", runs, 0.6)
    result = load_run(tmp_path)
    assert sorted(result.runs) == sorted(runs)
    frame = result.frame
    for run in runs:
        roles = set(frame.loc[frame["run"] == run, "role"].astype(str))
        assert {"train_loss", "val_loss"} <= roles
    assert frame["seq"].is_unique


def test_chart_exports_of_the_same_metric_stay_apart(tmp_path):
    # near misses: two exports of the same metric under the same run names (two projects'
    # charts), and the same chart in two folders, are not merged
    runs = ["run-a", "run-b"]
    _wandb_chart(tmp_path / "loss_1.csv", "epoch/loss", runs, 0.5)
    _wandb_chart(tmp_path / "loss_2.csv", "epoch/loss", runs, 0.7)
    (tmp_path / "other").mkdir()
    _wandb_chart(tmp_path / "other" / "val_loss.csv", "epoch/val_loss", runs, 0.6)
    result = load_run(tmp_path)
    assert sorted(result.runs) == sorted(
        [
            "run-a",
            "run-b",
            "loss_2/run-a",
            "loss_2/run-b",
            "other/val_loss/run-a",
            "other/val_loss/run-b",
        ]
    )


def test_one_bad_file_among_several_is_a_warning(tmp_path):
    (tmp_path / "a.jsonl").write_text('{"step": 0, "loss": 1.0}\n')
    (tmp_path / "b.jsonl").write_text('{"step": 0, "loss": "x"}\n')
    result = load_run(tmp_path)
    assert result.runs == ["a"]
    assert any(w.file and w.file.endswith("b.jsonl") for w in result.warnings)


def test_a_format_whose_files_all_fail_gives_way_to_the_next(tmp_path):
    # HF is tried first, but its only trainer_state.json holds just the end-of-training
    # summary; the JSONL run beside it must still be read, and the failure said
    (tmp_path / "hf").mkdir()
    (tmp_path / "hf" / "trainer_state.json").write_text(
        json.dumps({"global_step": 10, "log_history": [{"train_runtime": 5.0, "step": 10}]})
    )
    (tmp_path / "nano").mkdir()
    (tmp_path / "nano" / "log.jsonl").write_text(
        "".join(json.dumps({"step": s, "loss": 2.0 / (s + 1)}) + "\n" for s in range(20))
    )
    result = load_run(tmp_path)
    assert result.format == "jsonl" and result.runs == ["nano"]
    said = [w.message for w in result.warnings]
    assert any(m.startswith("not read:") and "log_history" in m for m in said), said
    assert not any("also found" in m for m in said), said  # the HF file was tried, not skipped


def test_a_second_format_beside_the_first_is_named_with_the_cli_flag(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "trainer_state.json").write_text(
        json.dumps({"log_history": [{"step": s, "loss": 1.0 / (s + 1)} for s in range(1, 6)]})
    )
    (tmp_path / "b.jsonl").write_text('{"step": 0, "loss": 1.0}\n')
    result = load_run(tmp_path)
    note = next(w.message for w in result.warnings if "also found" in w.message)
    assert "--format jsonl" in note and "audit" in note


def test_roles_and_run_pass_through(real_runs):
    path = real_runs / "jsonl_detectron2_medwaste_lr_step" / "metrics.json"
    result = load_run(
        path, roles={"loss_*": "other", "fast_rcnn/cls_accuracy": "val_score"}, run="d2"
    )
    roles = result.frame.groupby("metric", observed=True)["role"].first().astype(str)
    assert roles["loss_cls"] == "other" and roles["total_loss"] == "train_loss"
    assert roles["fast_rcnn/cls_accuracy"] == "val_score"
    assert result.runs == ["d2"]
    with pytest.raises(InvalidRoleError):
        load_run(path, roles={"total_loss": "bogus"})


def test_run_prefixes_a_several_run_source(real_runs):
    result = load_run(real_runs / "wandb_nanogpt_tokenizer_variants", run="sweep")
    assert len(result.runs) == 8 and all(r.startswith("sweep/") for r in result.runs)
    assert "sweep/gpt2" in result.runs


def test_a_log_pasted_into_a_markdown_file_is_read_when_the_folder_has_no_other(tmp_path):
    """`train.md` holding a console log in a code fence: a folder with nothing else is read
    from it; beside a real log, markdown (a README's results table) stays aside."""
    lines = "".join(
        f"Epoch {e}: train_loss={1 / e:.4f} val_loss={1.1 / e:.4f}\n" for e in range(1, 6)
    )
    (tmp_path / "train.md").write_text(f"# Training\n\n```\n{lines}```\n")
    result = load_run(tmp_path)
    assert result.format == "console" and result.files == [str(tmp_path / "train.md")]
    (tmp_path / "metrics.csv").write_text("epoch,loss\n1,0.9\n2,0.7\n3,0.6\n")
    assert load_run(tmp_path).files == [str(tmp_path / "metrics.csv")]


def test_a_wandb_run_folder_is_read_from_its_console_not_its_summary(tmp_path):
    """A W&B run's `files/` holds `output.log` (the console) and `wandb-summary.json` (each
    metric's last value): the summary won the folder as a one-point run; given alone, it says
    what it is and where the curve is."""
    files = tmp_path / "wandb" / "run-20251021_012100-abc123" / "files"
    files.mkdir(parents=True)
    (files / "output.log").write_text(
        "".join(f"Epoch {e}: train_loss={1 / e:.4f} val_loss={1.2 / e:.4f}\n" for e in range(1, 21))
    )
    summary = files / "wandb-summary.json"
    summary.write_text('{"_wandb": {"runtime": 11}, "_runtime": 11, "_step": 19, "val_loss": 0.06}')
    result = load_run(tmp_path)
    assert result.format == "console" and len(result.frame) == 40
    with pytest.raises(UnknownFormatError, match="run summary"):
        load_run(summary)


@pytest.mark.parametrize("stem", ["model_history", "train_output"])
def test_a_history_saved_under_a_generic_name_takes_its_folders(tmp_path, stem):
    """`pd.DataFrame(history.history).to_csv("model_history.csv")`, in one notebook folder
    after another: named by the file, three projects' runs were all `model_history` and
    collided in an audit of the lot."""
    folder = tmp_path / "cifar-cnn"
    folder.mkdir()
    path = folder / f"{stem}.csv"
    path.write_text(",loss,val_loss\n0,1.2,1.3\n1,0.9,1.1\n2,0.7,1.0\n")
    assert load_run(path).runs == ["cifar-cnn"]
