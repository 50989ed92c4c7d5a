"""From a recipe to a verified, written run: train, pick what the logger writes, check, write.

`build_run` trains one plan and returns the logged view with its verified label set (or the reason
it was discarded); `write_run` writes it in a format. The corpus generator and
sample_runs/generate.py both go through here, so the sample runs and the corpus share one
implementation of every step.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch

from benchmarks.corpus import checks
from benchmarks.corpus.recipes import RECIPES, Plan
from benchmarks.corpus.trainer import train
from benchmarks.corpus.views import EpochView, LoggedRun, StepView, epoch_view, step_view
from benchmarks.corpus.writers import FORMATS


def setup_torch() -> None:
    """One thread, deterministic kernels: a run is a function of its seed."""
    torch.set_num_threads(1)
    torch.use_deterministic_algorithms(True)


@dataclass
class Outcome:
    name: str
    recipe: str
    seed: int
    format: str
    variant: str
    plan: Plan
    run: LoggedRun
    labels: list[str] | None  # None: discarded
    reason: str


def compatible_formats(plan: Plan) -> list[str]:
    """Formats able to show this plan's signature the way the real logger would."""
    out = []
    for f in FORMATS.values():
        if plan.step_level and not f.step_level:
            continue
        if plan.resumable and not f.resumable:
            continue
        if plan.grad_norm and not f.step_level:
            continue
        if "over_clipping" in plan.labels and not f.clip_variants():
            continue  # its logger never writes the clip threshold (nor a post-clip norm)
        out.append(f.name)
    return out


def _view(plan: Plan, fmt: str, rng: np.random.Generator, spe: int) -> StepView | EpochView:
    f = FORMATS[fmt]
    step = f.step_level and (plan.step_level or not f.epoch_level or rng.random() < 0.7)
    if not step:
        return EpochView(acc=True, lr=plan.lr, val=plan.val, val_acc=plan.val_acc)
    choices = [
        e for e in (1, 1, 2, 5, 10) if spe // e >= (6 if "unshuffled" in plan.labels else 2)
    ] or [1]
    every = int(rng.choice(choices))
    if "loss_spikes" in plan.labels and plan.variant.startswith("every"):
        every = int(plan.variant[5:])
    hf = fmt == "hf_trainer_state"
    return StepView(
        every=every,
        aggregate="mean" if hf else "last",
        acc=rng.random() < 0.3,
        lr=plan.lr or hf,
        grad_norm=plan.grad_norm or ("pre" if hf else None),
        max_grad_norm=plan.max_grad_norm,
        val=plan.val,
        val_acc=plan.val_acc,
    )


def verify(plan: Plan, run: LoggedRun) -> tuple[list[str] | None, str]:
    """The run's label set if its log shows what was induced, else None and why."""
    fired = checks.fired(run)
    wanted = plan.labels - {"healthy"}
    missing = wanted - fired
    if missing:
        return None, f"induced {sorted(missing)} not visible"
    extra = fired - wanted - plan.maybe
    if extra:
        return None, f"unintended {sorted(extra)} visible"
    if "healthy" in plan.labels:
        t = run.series("loss")[1]
        n = max(1, len(t) // 20)
        progress = (np.median(t[:n]) - np.median(t[-n:])) / max(np.median(t[:n]) - run.floor, 1e-8)
        if progress < 0.5:
            return None, f"healthy run made only {progress:.0%} progress"
        return ["healthy"], "ok"
    # the induced label first (the primary label), then what it brought along
    return sorted(wanted) + sorted((fired & plan.maybe) - wanted), "ok"


def build_run(recipe: str, seed: int, fmt: str | None = None) -> Outcome:
    """Train one run of `recipe` with `seed`, view it as `fmt` logs it, and verify its labels."""
    rng = np.random.default_rng(seed)
    plan = RECIPES[recipe](rng, seed)
    formats = compatible_formats(plan)
    fmt = fmt if fmt is not None else str(rng.choice(formats))
    variant = str(rng.choice(FORMATS[fmt].variants))
    if "over_clipping" in plan.labels:
        variant = str(rng.choice(FORMATS[fmt].clip_variants()))  # the threshold must be written
    if fmt == "mlflow" and variant == "autolog":
        variant = "script"  # autolog names are per-epoch only; chosen below when epoch-level
    rec = train(plan.cfg)
    view = _view(plan, fmt, rng, rec.steps_per_epoch)
    if isinstance(view, EpochView) and fmt == "mlflow" and rng.random() < 0.5:
        variant = "autolog"
    name = f"{recipe}-{fmt}-{seed:05d}"
    c = plan.cfg
    meta = {
        "task": c.task,
        "model": c.model,
        "optimizer": c.optimizer,
        "lr": c.lr,
        "batch_size": c.batch_size,
        "epochs": c.epochs,
        "n_val": c.n_val,
        "seed": seed,
        "_keras_iterations": bool(rng.random() < 0.5),
    }
    if isinstance(view, StepView):
        run = step_view(rec, view, name, seed, meta)
    else:
        run = epoch_view(rec, view, name, seed, meta)
    labels, reason = verify(plan, run)
    return Outcome(name, recipe, seed, fmt, variant, plan, run, labels, reason)


def write_run(out: Outcome, dest: Path) -> list[str]:
    """Write one outcome under `dest`; returns the files relative to `dest`."""
    fmt = FORMATS[out.format]
    return fmt.write([out.run] if fmt.multi_run else out.run, dest, variant=out.variant)
