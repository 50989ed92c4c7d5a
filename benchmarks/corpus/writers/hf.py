"""Hugging Face Trainer `trainer_state.json`, as `TrainerState.save_to_json` writes it.

log_history holds train entries {epoch, grad_norm, learning_rate, loss, step} (loss averaged over
the logging interval and rounded to 4 decimals, as the Trainer does), eval entries {epoch,
eval_loss, eval_accuracy, eval_runtime, eval_samples_per_second, eval_steps_per_second, step} and
a final summary {train_runtime, train_loss, ...}. Steps are 1-based optimizer steps; keys sorted,
indent 2, as the real file.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from benchmarks.corpus.views import LoggedRun


def write_hf_trainer_state(run: LoggedRun, dest: Path, *, variant: str = "hf") -> list[str]:
    dest.mkdir(parents=True, exist_ok=True)
    spe = run.steps_per_epoch
    n_val = int(run.meta.get("n_val", 512))
    history: list[dict] = []
    best, best_step = None, None
    train_losses = []
    for r in run.rows:
        step = r.step + 1
        epoch = round(step / spe, 4)
        if r.kind == "train":
            e = {
                "epoch": epoch,
                "learning_rate": r.values.get("lr", 0.0),
                "loss": round(r.values["loss"], 4),
                "step": step,
            }
            if "grad_norm" in r.values:
                e["grad_norm"] = r.values["grad_norm"]
            train_losses.append(r.values["loss"])
        else:
            runtime = round(0.002 * n_val + 0.1, 4)
            e = {
                "epoch": epoch,
                "eval_loss": r.values["val_loss"],
                "eval_runtime": runtime,
                "eval_samples_per_second": round(n_val / runtime, 3),
                "eval_steps_per_second": round(n_val / 64 / runtime, 3),
                "step": step,
            }
            if "val_acc" in r.values:
                e["eval_accuracy"] = r.values["val_acc"]
            if np.isfinite(r.values["val_loss"]) and (best is None or r.values["val_loss"] < best):
                best, best_step = r.values["val_loss"], step
        history.append(dict(sorted(e.items())))
    last = run.rows[-1].step + 1
    runtime = round(run.rows[-1].wall_time - run.rows[0].wall_time + 1.0, 4)
    bs = int(run.meta.get("batch_size", 32))
    history.append(
        {
            "epoch": round(last / spe, 4),
            "step": last,
            "total_flos": float(bs * last * 1e6),
            "train_loss": float(np.mean(train_losses)) if train_losses else 0.0,
            "train_runtime": runtime,
            "train_samples_per_second": round(bs * last / runtime, 3),
            "train_steps_per_second": round(last / runtime, 3),
        }
    )
    every = run.log_every
    state = {
        "best_global_step": best_step,
        "best_metric": best,
        "best_model_checkpoint": None if best_step is None else f"./results/checkpoint-{best_step}",
        "epoch": round(last / spe, 4),
        "eval_steps": spe,
        "global_step": last,
        "is_hyper_param_search": False,
        "is_local_process_zero": True,
        "is_world_process_zero": True,
        "log_history": history,
        "logging_steps": every,
        "max_steps": int(run.meta.get("epochs", 1)) * spe,
        "num_input_tokens_seen": 0,
        "num_train_epochs": int(run.meta.get("epochs", 1)),
        "save_steps": spe,
        "stateful_callbacks": {
            "TrainerControl": {
                "args": {
                    "should_epoch_stop": False,
                    "should_evaluate": False,
                    "should_log": False,
                    "should_save": True,
                    "should_training_stop": True,
                },
                "attributes": {},
            }
        },
        "total_flos": float(bs * last * 1e6),
        "train_batch_size": bs,
        "trial_name": None,
        "trial_params": None,
    }
    (dest / "trainer_state.json").write_text(json.dumps(state, indent=2, sort_keys=True) + "\n")
    return ["trainer_state.json"]
