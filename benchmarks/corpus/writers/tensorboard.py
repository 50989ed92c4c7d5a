"""TensorBoard event files written by the real writer, torch.utils.tensorboard.SummaryWriter.

Two layouts: a PyTorch-style run folder (one folder, tags like `train/loss` or `Loss/train`) and
the Keras callback layout (`train/` and `validation/` sub-folders, `epoch_loss` tags, tensor-style
scalar summaries as TF2 writes them). A resumed run gets a second event file in the same folder,
as a restarted process does. File names are made deterministic after writing.
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterable
from pathlib import Path
from unittest import mock

from torch.utils.tensorboard import SummaryWriter

from benchmarks.corpus.views import LoggedRun
from benchmarks.corpus.writers.common import segments

TB_VARIANTS = ("slash", "tutorial", "hf")

_TAGS = {
    "slash": {
        "loss": "train/loss",
        "acc": "train/acc",
        "lr": "train/lr",
        "grad_norm": "train/grad_norm",
        "max_grad_norm": "train/max_grad_norm",
        "val_loss": "val/loss",
        "val_acc": "val/acc",
    },
    "tutorial": {
        "loss": "Loss/train",
        "acc": "Accuracy/train",
        "lr": "learning_rate",
        "grad_norm": "grad_norm",
        "max_grad_norm": "max_grad_norm",
        "val_loss": "Loss/val",
        "val_acc": "Accuracy/val",
    },
    "hf": {
        "loss": "train/loss",
        "acc": "train/accuracy",
        "lr": "train/learning_rate",
        "grad_norm": "train/grad_norm",
        "val_loss": "eval/loss",
        "val_acc": "eval/accuracy",
    },
}

Scalar = tuple[str, float, int, float]  # tag, value, step, wall time


def _event_file(folder: Path, scalars: list[Scalar], seq: int, new_style: bool = False) -> Path:
    """Write the scalars with one SummaryWriter into `folder`; return the event file."""
    folder.mkdir(parents=True, exist_ok=True)
    t0 = scalars[0][3] if scalars else 1.7e9
    with (
        tempfile.TemporaryDirectory() as tmp,
        mock.patch("tensorboard.summary.writer.event_file_writer.time.time", return_value=t0),
    ):
        writer = SummaryWriter(log_dir=tmp, flush_secs=3600, max_queue=100_000)
        for tag, value, step, wall in scalars:
            writer.add_scalar(tag, value, step, walltime=wall, new_style=new_style)
        writer.close()
        (src,) = Path(tmp).glob("events.out.tfevents.*")
        name = f"events.out.tfevents.{int(t0)}.lossforensics-corpus.{seq}.0"
        dest = folder / (name + ".v2" if new_style else name)
        dest.write_bytes(src.read_bytes())
    return dest


def _scalars(rows: Iterable, tags: dict[str, str], step_of=lambda r: r.step) -> list[Scalar]:
    return [
        (tags[k], v, step_of(r), r.wall_time)
        for r in rows
        for k, v in r.values.items()
        if k in tags
    ]


def write_tensorboard(run: LoggedRun, dest: Path, *, variant: str = "slash") -> list[str]:
    """A PyTorch-style run folder: one event file per training session."""
    files = []
    for k, seg in enumerate(segments(run)):
        path = _event_file(dest, _scalars(seg, _TAGS[variant]), 1000 + k)
        files.append(str(path.relative_to(dest)))
    return files


def write_tensorboard_keras(run: LoggedRun, dest: Path, *, variant: str = "keras") -> list[str]:
    """Keras TensorBoard callback layout: train/ and validation/ folders, per-epoch tags.

    Validation also carries `evaluation_loss_vs_iterations` on the optimizer-step axis, as
    Keras >= 2.10 writes it, when `run.meta['_keras_iterations']` is set."""
    files = []
    train_tags = {"loss": "epoch_loss", "acc": "epoch_accuracy", "lr": "epoch_learning_rate"}
    val_tags = {"val_loss": "epoch_loss", "val_acc": "epoch_accuracy"}
    iter_tags = {
        "val_loss": "evaluation_loss_vs_iterations",
        "val_acc": "evaluation_accuracy_vs_iterations",
    }
    spe = run.steps_per_epoch
    for k, seg in enumerate(segments(run)):
        p = _event_file(
            dest / "train",
            _scalars(seg, train_tags, lambda r: r.epoch),
            2000 + 2 * k,
            new_style=True,
        )
        files.append(str(p.relative_to(dest)))
        val_rows = [r for r in seg if "val_loss" in r.values]
        if not val_rows:
            continue
        scalars: list[Scalar] = []
        for r in val_rows:
            scalars += _scalars([r], val_tags, lambda r: r.epoch)
            if run.meta.get("_keras_iterations"):
                scalars += _scalars([r], iter_tags, lambda r: (r.epoch + 1) * spe)
        p = _event_file(dest / "validation", scalars, 2001 + 2 * k, new_style=True)
        files.append(str(p.relative_to(dest)))
    return files
