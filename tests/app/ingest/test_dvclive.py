"""DVCLive folders: the histories under plots/metrics (or 0.x's scalars) are one run, each
metric named by its path, so the split in a folder's name gives the role."""

import shutil
from pathlib import Path

import numpy as np
from lossforensics.discover import discover_runs
from lossforensics.ingest import load_run

REAL = Path(__file__).parent / "real_excerpts" / "dvclive_musicnet"


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def _history(name: str, steps, values, *, timestamps: bool) -> str:
    head = ("timestamp\t" if timestamps else "") + f"step\t{name}\n"
    rows = [
        (f"{1669212391870 + 1000 * s}\t" if timestamps else "") + f"{s}\t{v}\n"
        for s, v in zip(steps, values, strict=True)
    ]
    return head + "".join(rows)


def test_a_real_dvclive_folder_is_one_run_with_its_split_from_the_folders():
    """Each split's `loss.tsv` holds a column called `loss`: read one file at a time, the eval
    loss was a second run's training loss."""
    result = load_run(REAL)
    f = result.frame
    assert result.format == "dvclive"
    assert set(f["run"]) == {"dvclive_musicnet"}
    roles = dict(zip(f["metric"], f["role"].astype(str), strict=False))
    assert roles == {"train/loss": "train_loss", "eval/loss": "val_loss"}
    evals = f[f["metric"] == "eval/loss"]
    assert list(evals["step"]) == list(range(4, 20))
    assert evals["value"].iloc[0] == 0.4142318069934845
    assert not result.warnings


def test_the_folder_holding_dvclive_and_the_histories_folder_read_alike():
    by_project = load_run(REAL).frame
    by_live = load_run(REAL / "dvclive").frame
    assert by_project.equals(by_live)


def test_timestamps_are_wall_times_and_0x_scalars_are_read(tmp_path):
    steps = np.arange(5)
    live = tmp_path / "exp" / "dvclive"
    loss = _history("loss", steps, 2.0 - 0.1 * steps, timestamps=True)
    _write(live / "scalars" / "loss.tsv", loss)
    _write(
        live / "scalars" / "val" / "acc.tsv",
        _history("acc", steps, 0.5 + 0.05 * steps, timestamps=True),
    )
    _write(live / "metrics.json", '{"step": 4, "loss": 1.6}\n')
    f = load_run(tmp_path / "exp").frame
    assert set(f["run"]) == {"exp"}
    roles = dict(zip(f["metric"], f["role"].astype(str), strict=False))
    assert roles == {"loss": "train_loss", "val/acc": "val_score"}
    loss = f[f["metric"] == "loss"]
    assert list(loss["wall_time"]) == [1669212391.87 + s for s in range(5)]


def test_a_bad_row_is_skipped_with_its_line(tmp_path):
    history = _history("loss", range(4), [0.9, 0.8, 0.7, 0.6], timestamps=False)
    history = history.replace("2\t0.7\n", "2\tcorrupt\n") + "4\t0.5"  # and no final newline
    _write(tmp_path / "dvclive" / "plots" / "metrics" / "train" / "loss.tsv", history)
    result = load_run(tmp_path)
    assert list(result.frame["step"]) == [0, 1, 3, 4]
    (warning,) = result.warnings
    assert warning.line == 4 and "non-numeric" in warning.message
    assert warning.file.endswith("train/loss.tsv")


def test_an_audit_lists_each_dvclive_folder_as_one_run_named_by_its_project(tmp_path):
    for name in ("lr-1e-3", "lr-1e-2"):
        shutil.copytree(REAL / "dvclive", tmp_path / "sweep" / name / "dvclive")
    found = discover_runs(tmp_path)
    assert [(s.name, s.format) for s in found.sources] == [
        ("sweep/lr-1e-2", "dvclive"),
        ("sweep/lr-1e-3", "dvclive"),
    ]
    assert not found.problems
