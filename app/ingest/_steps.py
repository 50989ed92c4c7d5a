"""Steps as the frame wants them (int64), from whatever the source logged: ints, integral
floats, or something else (then the row order, with a warning)."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

# by priority; LLaMA-Factory's trainer_log.jsonl counts steps as `current_steps` beside a
# fractional `epoch`
STEP_KEYS: tuple[str, ...] = (
    "step",
    "global_step",
    "_step",
    "iter",
    "iteration",
    "current_steps",
    "epoch",
)
_INT64_MAX = float(2**62)


def choose_step_key(names: list[str] | tuple[str, ...]) -> str | None:
    """The step column among `names`, by priority (case-insensitive), or None."""
    lower = {n.strip().lower(): n for n in names}
    for key in STEP_KEYS:
        if key in lower:
            return lower[key]
    for key in (
        "steps",
        "iterations",
        "iters",
        "trainer/global_step",
        "train/global_step",
        # environment steps so far: Stable-Baselines3's progress.csv, OpenAI baselines'
        # (`total/steps`, `misc/total_timesteps`, `TimestepsSoFar`), Spinning Up's
        # progress.txt (`TotalEnvInteracts`) and RLlib's progress.csv (`timesteps_total`,
        # `num_env_steps_sampled`, else its `training_iteration`)
        "time/total_timesteps",
        "total_timesteps",
        "total/steps",
        "misc/total_timesteps",
        "timestepssofar",
        "totalenvinteracts",
        "timesteps_total",
        "num_env_steps_sampled",
        "training_iteration",
        # the NVlabs training loop's `stats.jsonl` (StyleGAN2/3, EDM): its progress ticks
        "progress/tick",
        "epochs",
        # a printed table's step-count column (spaCy's `E    #       LOSS TOK2VEC ...`)
        "#",
    ):
        if key in lower:
            return lower[key]
    return None


# a progress key that prints the step out of the total as text (ms-swift's
# `"global_step/max_steps": "10/438"`): the step is the number before the slash
_PROGRESS_KEY = re.compile(
    r"(?i)(?:global_)?(?:step|iter(?:ation)?)s?\s*/\s*(?:max|total)_?(?:step|iter(?:ation)?)s?"
)
_PROGRESS_VALUE = re.compile(r"\s*(\d+)\s*/\s*\d+\s*")


def progress_key(names: list[str] | tuple[str, ...]) -> str | None:
    """The name among `names` that prints the step out of the total (`global_step/max_steps`)."""
    return next((n for n in names if _PROGRESS_KEY.fullmatch(n.strip())), None)


def progress_steps(values: pd.Series) -> pd.Series:
    """`"10/438"` -> 10.0 (NaN where a cell is not `N/M`)."""
    text = values.astype("string")
    found = text.str.extract(_PROGRESS_VALUE.pattern, expand=False)
    return pd.to_numeric(found, errors="coerce").astype("float64")


def integral_steps(raw: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(steps as int64, ok mask): ok where the value is finite, integral and in range."""
    raw = np.asarray(raw, dtype=np.float64)
    ok = np.isfinite(raw) & (np.abs(raw) < _INT64_MAX)
    ok &= np.floor(np.where(ok, raw, 0.0)) == np.where(ok, raw, 0.0)
    return np.where(ok, raw, 0).astype(np.int64), ok


def counts_within_epoch(epoch: np.ndarray, step: np.ndarray, run: np.ndarray) -> bool:
    """Whether a logged step counts within each epoch (`Epoch [2/5], Step [100/600]`, mmdet's
    `{"epoch": 2, "iter": 100}`): in logging order it goes back where the epoch (of the same run)
    goes forward, and never while the epoch stays. Such a step is a batch counter; where the
    epoch goes back with it, the run restarted (a relaunch from epoch 1 resets both), and a
    step that goes back within an epoch is a restart of a step counter."""
    if len(step) < 2:
        return False
    same_run = run[1:] == run[:-1]
    back = (step[1:] < step[:-1]) & same_run
    after, before = epoch[1:][back], epoch[:-1][back]
    return bool((after > before).any()) and bool((after != before).all())


def same_count_each_epoch(epoch: np.ndarray, step: np.ndarray, run: np.ndarray) -> bool:
    """Whether a log of one line an epoch prints the same count at every new epoch
    (`{"epoch": 4, "iter": 100}`, then `{"epoch": 5, "iter": 100}`: an mmcv `log.json` logging
    every 100 iterations of epochs of 100 to 199), and never goes back within an epoch: a
    count within the epoch too, which a global step never is. For readers whose every line
    prints its own count (a console line's count carried over from the line before would
    repeat across an epoch's end without being one)."""
    same_run = run[1:] == run[:-1]
    new_epoch = (epoch[1:] > epoch[:-1]) & same_run
    back_within = (step[1:] < step[:-1]) & (epoch[1:] == epoch[:-1]) & same_run
    return (
        bool(new_epoch.any())
        and bool((step[1:][new_epoch] == step[:-1][new_epoch]).all())
        and not bool(back_within.any())
    )
