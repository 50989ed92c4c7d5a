"""An evaluation logged after the HF Trainer's end-of-training summary is left out of the
validation curve, whatever format the log_history was exported in."""

import json

import pandas as pd
from lossforensics.ingest import load_run


def _log_history() -> list[dict]:
    """`trainer.state.log_history` after train() then evaluate() on a test split: the curve's
    val loss rises after step 200, the final evaluation's is far lower (another split)."""
    history = []
    for step, (loss, val) in enumerate(
        [(1.2, 0.90), (0.8, 0.70), (0.5, 0.72), (0.3, 0.78), (0.2, 0.85)], start=1
    ):
        history.append({"loss": loss, "learning_rate": 1e-5, "epoch": step, "step": step * 100})
        history.append({"eval_loss": val, "eval_wer": 0.5 - step / 20, "step": step * 100})
    history.append({"train_runtime": 812.0, "train_loss": 0.6, "epoch": 5, "step": 500})
    history.append({"eval_loss": 0.05, "eval_wer": 0.02, "epoch": 5, "step": 500})
    return history


def _val(result) -> list[float]:
    f = result.frame
    return f[f["metric"] == "eval_loss"].sort_values("seq")["value"].round(2).tolist()


def test_a_pandas_export_drops_the_evaluation_after_the_summary(tmp_path):
    path = tmp_path / "training_history.csv"
    pd.DataFrame(_log_history()).to_csv(path, index=False)
    result = load_run(path)
    assert _val(result) == [0.9, 0.7, 0.72, 0.78, 0.85]
    assert (result.frame["metric"] == "eval_wer").sum() == 5
    note = [w for w in result.warnings if "end-of-training summary" in w.message]
    assert note and "2 evaluation value(s) (eval_loss, eval_wer)" in note[0].message


def test_a_json_list_export_drops_it_too_and_a_log_without_one_keeps_every_point(tmp_path):
    path = tmp_path / "log_history.json"
    path.write_text(json.dumps(_log_history()))
    assert _val(load_run(path)) == [0.9, 0.7, 0.72, 0.78, 0.85]
    path.write_text(json.dumps(_log_history()[:-1]))  # no evaluate() after training
    result = load_run(path)
    assert _val(result) == [0.9, 0.7, 0.72, 0.78, 0.85]
    assert not [w for w in result.warnings if "end-of-training summary" in w.message]
