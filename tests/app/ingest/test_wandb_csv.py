"""W&B chart exports: the real nanoGPT export plus files laid out exactly as W&B writes them."""

from __future__ import annotations

import math

import pytest
from lossforensics.classifiers.errors import UnknownFormatError
from lossforensics.ingest import load_run, wandb_csv

EXPORT = "wandb_nanogpt_tokenizer_variants/wandb_export.csv"


def _export(tmp_path, header: list[str], rows: list[list[str]]):
    """A chart export as W&B writes it: every cell quoted, comma separated."""
    lines = [",".join(f'"{c}"' for c in header)]
    lines += [",".join(f'"{c}"' for c in row) for row in rows]
    path = tmp_path / "wandb_export.csv"
    path.write_text("\n".join(lines) + "\n")
    return path


def test_real_export_has_eight_runs_with_their_own_cadence(real_runs):
    result = wandb_csv.read(real_runs / EXPORT)
    frame = result.frame
    loss = frame[frame["metric"] == "train/loss"]
    counts = loss.groupby("run").size()
    assert len(counts) == 8
    assert counts["gpt2"] == 386
    assert counts.min() == 51  # runs logged less often leave empty cells: not points
    assert not loss["value"].isna().any()
    gpt2 = loss[loss["run"] == "gpt2"].sort_values("step")
    assert gpt2["value"].iloc[0] == pytest.approx(10.95, abs=0.01)
    assert result.format == "wandb_csv"


def test_companions_are_their_own_metrics_with_role_other(real_runs):
    frame = wandb_csv.read(real_runs / EXPORT).frame
    roles = frame.groupby("metric", observed=True)["role"].first().astype(str).to_dict()
    assert roles == {
        "train/loss": "train_loss",
        "train/loss__MIN": "other",
        "train/loss__MAX": "other",
    }


def test_run_name_split_at_the_last_separator(tmp_path):
    path = _export(
        tmp_path,
        ["Step", "lr=0.1 - warmup - train/loss", "b - val_loss"],
        [["0", "2.5", ""], ["10", "2.0", "2.2"]],
    )
    frame = wandb_csv.read(path).frame
    pairs = set(zip(frame["run"], frame["metric"], strict=True))
    assert pairs == {("lr=0.1 - warmup", "train/loss"), ("b", "val_loss")}
    assert len(frame) == 3  # the empty cell is not a point


def test_bucketed_export_warns_that_spikes_hide_in_max(tmp_path):
    path = _export(
        tmp_path,
        ["Step", "r - loss", "r - loss__MIN", "r - loss__MAX"],
        [["0", "2.0", "1.9", "2.1"], ["100", "1.5", "1.0", "9.0"]],
    )
    result = wandb_csv.read(path)
    assert any("bucketed" in w.message and "loss__MAX" in w.message for w in result.warnings)
    promoted = wandb_csv.read(path, roles={"loss__MAX": "train_loss"}).frame
    roles = promoted.groupby("metric", observed=True)["role"].first().astype(str)
    assert roles["loss__MAX"] == "train_loss" and roles["loss__MIN"] == "other"


def test_unbucketed_export_does_not_warn(real_runs):
    assert not any("bucketed" in w.message for w in wandb_csv.read(real_runs / EXPORT).warnings)


def test_nan_and_infinity_cells_are_kept(tmp_path):
    path = _export(tmp_path, ["Step", "r - loss"], [["0", "1.0"], ["1", "NaN"], ["2", "Infinity"]])
    values = wandb_csv.read(path).frame["value"].tolist()
    assert values[0] == 1.0 and math.isnan(values[1]) and values[2] == math.inf


def test_epoch_x_axis_and_run_override(tmp_path):
    path = _export(tmp_path, ["epoch", "only - val/acc"], [["0", "0.5"], ["1", "0.6"]])
    frame = load_run(path, run="renamed").frame
    assert frame["step"].tolist() == [0, 1]
    assert set(frame["run"]) == {"renamed"}
    assert set(frame["role"].astype(str)) == {"val_score"}


def test_runs_table_export_is_refused_with_a_reason(tmp_path):
    path = tmp_path / "wandb_export.csv"
    path.write_text(
        '"Name","State","Notes","User","Tags","Created","Runtime","lr"\n'
        '"run-1","finished","-","me","","2024-01-01","100","0.1"\n'
    )
    with pytest.raises(UnknownFormatError, match="runs-table"):
        load_run(path)


def test_fractional_epoch_axis_uses_row_order(tmp_path):
    path = _export(tmp_path, ["epoch", "r - loss"], [["0.5", "2.0"], ["1", "1.5"], ["1.5", "1"]])
    result = wandb_csv.read(path)
    assert result.frame["step"].tolist() == [0, 1, 2]
    assert any("fractional" in w.message for w in result.warnings)
