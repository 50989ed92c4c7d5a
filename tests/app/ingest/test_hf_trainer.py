"""Hugging Face trainer_state.json from real fine-tunes."""

from __future__ import annotations

import json
import math

import pytest
from lossforensics.classifiers.errors import CorruptInputError, EmptyInputError
from lossforensics.ingest import hf_trainer, load_run


def _roles(frame):
    return frame.groupby("metric", observed=True)["role"].first().astype(str).to_dict()


def test_six_eval_sets_are_six_validation_losses(real_runs):
    frame = hf_trainer.read(real_runs / "hf_multi_eval_overfit" / "trainer_state.json").frame
    roles = _roles(frame)
    assert [m for m, r in sorted(roles.items()) if r == "val_loss"] == [
        f"eval_g{i}_loss" for i in range(6)
    ]
    assert roles["loss"] == "train_loss" and roles["grad_norm"] == "grad_norm"
    assert roles["learning_rate"] == "lr" and roles["eval_g0_runtime"] == "other"
    g0 = frame[frame["metric"] == "eval_g0_loss"].sort_values("step")
    assert len(g0) == 31 and g0["step"].iloc[0] == 0  # the eval before training is kept
    assert g0["value"].iloc[1] == pytest.approx(1.1138, abs=1e-3)
    assert (frame["metric"] == "loss").sum() == 30


def test_final_summary_entry_is_not_a_point(real_runs):
    frame = hf_trainer.read(real_runs / "hf_whisper_ja_overfit" / "trainer_state.json").frame
    metrics = set(frame["metric"])
    assert not metrics & {"train_loss", "train_runtime", "total_flos", "train_samples_per_second"}
    assert (frame["metric"] == "loss").sum() == 200
    assert (frame["metric"] == "eval_loss").sum() == 5
    assert frame.loc[frame["metric"] == "eval_wer", "role"].astype(str).unique() == ["val_score"]


def test_epoch_is_kept_once_per_step(real_runs):
    frame = hf_trainer.read(real_runs / "hf_trl_tinyllama_sft_healthy" / "trainer_state.json").frame
    epoch = frame[frame["metric"] == "epoch"]
    assert epoch["step"].is_unique
    assert _roles(frame)["mean_token_accuracy"] == "train_score"


def test_nan_loss_and_checkpoint_folder_name(tmp_path):
    folder = tmp_path / "my-finetune" / "checkpoint-500"
    folder.mkdir(parents=True)
    path = folder / "trainer_state.json"
    state = {
        "best_metric": None,
        "epoch": 1.0,
        "global_step": 20,
        "log_history": [
            {"epoch": 0.5, "learning_rate": 1e-4, "loss": 2.0, "step": 10},
            {"epoch": 1.0, "learning_rate": 1e-4, "loss": float("nan"), "step": 20},
            {
                "epoch": 1.0,
                "step": 20,
                "train_loss": 1.5,
                "train_runtime": 10.0,
                "train_samples_per_second": 1.0,
                "train_steps_per_second": 2.0,
                "total_flos": 1.0,
            },
        ],
    }
    path.write_text(json.dumps(state, indent=2, sort_keys=True))  # HF's own json.dumps call
    result = load_run(path)
    assert result.format == "hf_trainer" and result.runs == ["my-finetune"]
    loss = result.frame[result.frame["metric"] == "loss"].sort_values("step")
    assert loss["step"].tolist() == [10, 20] and math.isnan(loss["value"].iloc[1])


def test_broken_json_names_line(tmp_path):
    path = tmp_path / "trainer_state.json"
    path.write_text('{\n  "log_history": [\n    {"loss": 1.0 "step": 1}\n  ]\n}\n')
    with pytest.raises(CorruptInputError) as info:
        hf_trainer.read(path)
    assert info.value.line == 3 and info.value.file == str(path)


def test_empty_history(tmp_path):
    path = tmp_path / "trainer_state.json"
    path.write_text('{"log_history": []}')
    with pytest.raises(EmptyInputError, match="log_history has no entries"):
        hf_trainer.read(path)


def test_a_history_with_only_the_final_summary_says_why_nothing_was_logged(tmp_path):
    # a real LoRA run: logging_steps larger than the whole run, so only the summary was written
    path = tmp_path / "trainer_state.json"
    path.write_text(
        json.dumps(
            {
                "global_step": 768,
                "logging_steps": 996,
                "max_steps": 768,
                "log_history": [
                    {
                        "epoch": 3.0,
                        "step": 768,
                        "train_loss": 0.97,
                        "train_runtime": 5980.7,
                        "train_samples_per_second": 14.4,
                    }
                ],
            }
        )
    )
    with pytest.raises(
        EmptyInputError,
        match=r"only the end-of-training summary.*"
        r"logging_steps 996 is more than the run's 768",
    ):
        hf_trainer.read(path)


def _appended_state(tmp_path, second_start: float):
    """A trainer_state.json whose log_history holds a first Trainer's 3 logs (epoch 0.2-0.6),
    then a second's (epoch from 0.04 again) while `step` counts on, its schedule restarted."""
    history = [
        {
            "step": 500 * (i + 1),
            "epoch": 0.21 * (i + 1),
            "loss": 2.12 - 0.01 * i,
            "learning_rate": 4.98e-5 - 1e-7 * i,
        }
        for i in range(3)
    ]
    for i in range(12):
        history.append(
            {
                "step": 2000 + 500 * i,
                "epoch": 0.04 + 0.21 * i,
                "loss": second_start - 0.02 * i,
                "learning_rate": 5e-5 * (1 - i / 12),
            }
        )
    path = tmp_path / "trainer_state.json"
    path.write_text(json.dumps({"global_step": 7500, "log_history": history}))
    return path


def test_an_epoch_that_falls_back_while_the_step_counts_on_starts_a_session(tmp_path):
    from lossforensics import diagnose

    result = load_run(_appended_state(tmp_path, second_start=2.49))
    loss = result.frame[result.frame["metric"] == "loss"].sort_values("seq")
    assert list(loss["segment"]) == [0] * 3 + [1] * 12
    assert "resume_discontinuity" in {f.label for f in diagnose(result.frame).findings}
    # near miss: the second Trainer carries on from where the first stopped: no jump, no resume
    calm = load_run(_appended_state(tmp_path, second_start=2.09)).frame
    assert "resume_discontinuity" not in {f.label for f in diagnose(calm).findings}
