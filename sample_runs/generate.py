"""Regenerate the sample runs: small real CPU training runs, one pathology each, every format.

    .venv/bin/python sample_runs/generate.py          # rewrites sample_runs/<name>/ and labels.json

Each entry names a recipe (benchmarks/corpus/recipes.py) and a log format; seeds are tried in
order from the entry's base seed until the run's log shows its labels (the same verification the
evaluation corpus uses), so the output is deterministic. Training is single-threaded with
deterministic kernels; the whole set takes a minute or two on one core.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from benchmarks.corpus.pipeline import build_run, setup_torch, write_run  # noqa: E402

# name -> (recipe, format, base seed)
SAMPLES: dict[str, tuple[str, str, int]] = {
    "healthy_tensorboard": ("healthy", "tensorboard", 11),
    "healthy_keras_tensorboard": ("healthy", "tensorboard_keras", 21),
    "healthy_hf_trainer": ("healthy", "hf_trainer_state", 31),
    "nan_jsonl": ("nan", "jsonl", 41),
    "exploding_lightning": ("exploding", "lightning_csv", 51),
    "plateau_mlflow": ("plateau", "mlflow", 61),
    "oscillating_wandb": ("oscillating", "wandb_csv", 71),
    "overfit_keras_csv": ("overfit", "keras_csv", 81),
    "distribution_mismatch_mlflow": ("distribution_mismatch", "mlflow", 91),
    "lr_decayed_too_early_jsonl": ("lr_decayed_too_early", "jsonl", 101),
    "loss_spikes_tensorboard": ("loss_spikes", "tensorboard", 111),
    "unshuffled_lightning": ("unshuffled", "lightning_csv", 121),
    "underfit_hf_trainer": ("underfit", "hf_trainer_state", 131),
    "vanishing_gradients_jsonl": ("vanishing_gradients", "jsonl", 141),
    "over_clipping_tensorboard": ("over_clipping", "tensorboard", 151),
    "resume_discontinuity_keras_csv": ("resume_discontinuity", "keras_csv", 161),
    "metric_mismatch_wandb": ("metric_mismatch", "wandb_csv", 171),
}
MAX_TRIES = 40


def main(only: list[str] | None = None) -> int:
    setup_torch()
    labels_path = HERE / "labels.json"
    labels = json.loads(labels_path.read_text()) if labels_path.exists() else {}
    failed = []
    for name, (recipe, fmt, base) in SAMPLES.items():
        if only and name not in only:
            continue
        for seed in range(base * 1000, base * 1000 + MAX_TRIES):
            out = build_run(recipe, seed, fmt)
            if out.labels is not None:
                break
        else:
            print(f"{name}: no seed in {MAX_TRIES} showed {recipe} ({out.reason})")
            failed.append(name)
            labels.pop(name, None)
            continue
        dest = HERE / name
        shutil.rmtree(dest, ignore_errors=True)
        out.run.name = name
        files = write_run(out, dest)
        c = out.plan.cfg
        labels[name] = {
            "format": fmt,
            "label": out.labels,
            "recipe": recipe,
            "notes": f"recipe {recipe} ({out.plan.variant or 'default'}): {c.model} on {c.task}, "
                     f"{c.optimizer} lr={c.lr:.3g}, {c.epochs} epochs, seed {seed}",
            "files": files,
        }
        print(f"{name}: {out.labels} (seed {seed})")
    labels_path.write_text(json.dumps(dict(sorted(labels.items())), indent=1) + "\n")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:] or None))
