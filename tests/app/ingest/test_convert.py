"""`lossforensics convert` through the CLI entry point, on real files; the outputs read back."""

from __future__ import annotations

import io

import pandas as pd
import pytest
from lossforensics.classifiers.frame import COLUMNS
from lossforensics.cli import main
from lossforensics.ingest import load_run

D2 = "jsonl_detectron2_medwaste_lr_step/metrics.json"


def _same(a: pd.DataFrame, b: pd.DataFrame) -> None:
    pd.testing.assert_frame_equal(
        a.reset_index(drop=True), b.reset_index(drop=True), check_exact=True
    )


def test_csv_to_stdout_round_trips(real_runs, capsys, tmp_path):
    src = real_runs / "wandb_nanogpt_tokenizer_variants" / "wandb_export.csv"
    assert main(["convert", str(src), "--to", "csv"]) == 0
    text = capsys.readouterr().out
    assert text.splitlines()[0] == ",".join(COLUMNS)
    out = tmp_path / "frame.csv"
    out.write_text(text)
    back = load_run(out)
    assert back.format == "csv"
    _same(back.frame, load_run(src).frame)  # runs, roles (__MAX: other), values, seq


def test_jsonl_keeps_nan_and_inf_and_round_trips(tmp_path, capsys):
    src = tmp_path / "run.jsonl"
    src.write_text('{"step": 1, "loss": NaN}\n{"step": 2, "loss": Infinity}\n')
    assert main(["convert", str(src), "--to", "jsonl", "--run", "r"]) == 0
    text = capsys.readouterr().out
    assert '"value": NaN' in text and '"value": Infinity' in text
    out = tmp_path / "frame.jsonl"
    out.write_text(text)
    _same(load_run(out).frame, load_run(src, run="r").frame)


def test_parquet_needs_out_and_writes_the_frame(real_runs, tmp_path, capsys):
    src = real_runs / "hf_multi_eval_overfit"
    assert main(["convert", str(src), "--to", "parquet"]) == 2
    assert "--out" in capsys.readouterr().err
    out = tmp_path / "sub" / "run.parquet"
    assert main(["convert", str(src), "--to", "parquet", "--out", str(out)]) == 0
    _same(pd.read_parquet(out), load_run(src).frame)
    assert not [p for p in out.parent.iterdir() if p.name.endswith(".tmp")]


def test_role_overrides_and_warnings_on_stderr(real_runs, capsys, tmp_path):
    # the real log with one unreadable cell appended: a genuine reader warning
    src = tmp_path / "training.log"
    text = (real_runs / "keras_csvlogger_voiceid_old_acc_cols" / "training.log").read_text()
    header = text.splitlines()[0].split(",")
    src.write_text(text + ",".join(["10"] + ["oops"] * (len(header) - 1)) + "\n")
    code = main(
        ["convert", str(src), "--to", "csv", "--role", "val_acc=other", "--role", "lo*=val_loss"]
    )
    assert code == 0
    captured = capsys.readouterr()
    frame = pd.read_csv(io.StringIO(captured.out))
    roles = frame.groupby("metric")["role"].first()
    assert roles["val_acc"] == "other" and roles["loss"] == "val_loss"
    assert "warning:" in captured.err and "warning" not in captured.out


@pytest.mark.parametrize(
    "args",
    [
        ["--role", "loss=nonsense"],
        ["--role", "no-equals-sign"],
        ["--to", "xlsx"],
    ],
)
def test_bad_options_exit_2_with_one_line(real_runs, capsys, args):
    src = real_runs / D2
    assert main(["convert", str(src), *args]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error [") and "Traceback" not in err


def test_bad_input_exits_2_naming_the_file(tmp_path, capsys):
    path = tmp_path / "empty.jsonl"
    path.write_bytes(b"")
    assert main(["convert", str(path)]) == 2
    err = capsys.readouterr().err
    assert "empty_input" in err and str(path) in err


def test_a_dot_inside_a_file_name_stays_in_the_run_name(tmp_path):
    """DeepSpeed-Chat names its logs by the models' sizes (`actor_opt-1.3b_critic_opt-350m.log`):
    the run was named `actor_opt-1`, cut at the first dot; extensions and a rotated log's number
    still come off."""
    from lossforensics.ingest._source import default_run_name

    assert default_run_name(tmp_path / "actor_opt-1.3b_critic_opt-350m.log") == (
        "actor_opt-1.3b_critic_opt-350m"
    )
    assert default_run_name(tmp_path / "run_lr0.001.log") == "run_lr0.001"
    assert default_run_name(tmp_path / "baseline.log.1") == "baseline"
    assert default_run_name(tmp_path / "exp3.jsonl") == "exp3"
