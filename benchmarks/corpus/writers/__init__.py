"""One writer per log format, each reproducing what the real logger writes.

Every writer takes `LoggedRun`s (views.py) and a destination, and returns the files it wrote
(relative to the destination). `FORMATS` lists, per format, the writer, the naming variants it
knows, whether it can show per-step series and whether a resumed run (steps going back) can be
written the way the real logger does it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from benchmarks.corpus.writers.hf import write_hf_trainer_state
from benchmarks.corpus.writers.jsonl import JSONL_VARIANTS, write_jsonl
from benchmarks.corpus.writers.keras import KERAS_VARIANTS, write_keras_csv
from benchmarks.corpus.writers.lightning import write_lightning_csv
from benchmarks.corpus.writers.mlflow import MLFLOW_VARIANTS, write_mlflow
from benchmarks.corpus.writers.tensorboard import (
    TB_VARIANTS,
    write_tensorboard,
    write_tensorboard_keras,
)
from benchmarks.corpus.writers.wandb import write_wandb_csv


@dataclass(frozen=True)
class Format:
    name: str
    write: Callable
    variants: tuple[str, ...]
    step_level: bool  # can hold per-step series
    epoch_level: bool  # can hold per-epoch series
    resumable: bool  # a resumed run's repeated/restarted steps survive in the files
    multi_run: bool = False  # one file holds several runs
    # naming variants whose real logger writes no clip threshold (HF's Trainer keeps
    # max_grad_norm in its arguments, not in its logs, and logs the pre-clip norm only)
    no_clip_threshold: tuple[str, ...] = ()

    def clip_variants(self) -> tuple[str, ...]:
        """The variants able to show clipping: those that write the threshold."""
        return tuple(v for v in self.variants if v not in self.no_clip_threshold)


FORMATS: dict[str, Format] = {
    f.name: f
    for f in (
        Format(
            "tensorboard",
            write_tensorboard,
            TB_VARIANTS,
            True,
            True,
            True,
            no_clip_threshold=("hf",),
        ),
        Format("tensorboard_keras", write_tensorboard_keras, ("keras",), False, True, True),
        Format("wandb_csv", write_wandb_csv, ("wandb",), True, False, False, multi_run=True),
        Format("jsonl", write_jsonl, JSONL_VARIANTS, True, True, True),
        Format(
            "hf_trainer_state",
            write_hf_trainer_state,
            ("hf",),
            True,
            False,
            False,
            no_clip_threshold=("hf",),
        ),
        Format("lightning_csv", write_lightning_csv, ("lightning",), True, False, False),
        Format("keras_csv", write_keras_csv, KERAS_VARIANTS, False, True, True),
        Format("mlflow", write_mlflow, MLFLOW_VARIANTS, True, True, True),
    )
}

__all__ = ["FORMATS", "Format"]
