"""Small training logs written by their real writers (or in their documented layouts), for
upload tests that must not depend on ../shared."""

from __future__ import annotations

import io
import json
import tarfile
import zipfile
from pathlib import Path

import numpy as np

STEPS = 200


def curves(n: int = STEPS, *, overfit: bool = False) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    steps = np.arange(n)
    train = 2.0 * np.exp(-steps / (n / 4)) + 0.1
    val = train + 0.05 + (np.maximum(0, steps - n / 3) / n * 2 if overfit else 0)
    return steps, train, val


def write_jsonl(path: Path, n: int = STEPS, *, overfit: bool = False) -> Path:
    steps, train, val = curves(n, overfit=overfit)
    with open(path, "w") as fh:
        for s, t, v in zip(steps, train, val, strict=True):
            fh.write(
                json.dumps(
                    {"step": int(s), "train/loss": float(t), "val/loss": float(v), "lr": 1e-3}
                )
                + "\n"
            )
    return path


def write_keras_csv(path: Path, n: int = 40, *, overfit: bool = True) -> Path:
    steps, train, val = curves(n, overfit=overfit)
    lines = ["epoch,loss,lr,val_loss"]
    lines += [f"{s},{t:.6f},0.001,{v:.6f}" for s, t, v in zip(steps, train, val, strict=True)]
    path.write_text("\n".join(lines) + "\n")
    return path


def write_tfevents(
    folder: Path, tag: str = "loss", n: int = STEPS, *, overfit: bool = False, which: str = "train"
) -> Path:
    """An event file written by TensorBoard's own writer."""
    from tensorboard.compat.proto.event_pb2 import Event
    from tensorboard.compat.proto.summary_pb2 import Summary
    from tensorboard.summary.writer.event_file_writer import EventFileWriter

    steps, train, val = curves(n, overfit=overfit)
    values = train if which == "train" else val
    folder.mkdir(parents=True, exist_ok=True)
    writer = EventFileWriter(str(folder))
    for s, v in zip(steps, values, strict=True):
        summary = Summary(value=[Summary.Value(tag=tag, simple_value=float(v))])
        writer.add_event(Event(step=int(s), wall_time=1.7e9 + float(s), summary=summary))
    writer.close()
    (path,) = folder.glob("events.out.tfevents.*")
    return path


def zip_dir(folder: Path, dest: Path, *, prefix: str | None = None) -> Path:
    base = prefix if prefix is not None else folder.name
    with zipfile.ZipFile(dest, "w", zipfile.ZIP_DEFLATED) as zf:
        for p in sorted(folder.rglob("*")):
            if p.is_file():
                zf.write(p, f"{base}/{p.relative_to(folder)}" if base else p.relative_to(folder))
    return dest


def tar_dir(folder: Path, dest: Path) -> Path:
    with tarfile.open(dest, "w:gz") as tf:
        tf.add(folder, arcname=folder.name)
    return dest


def tar_with(dest: Path, members: list[tarfile.TarInfo], data: bytes = b"x") -> Path:
    with tarfile.open(dest, "w:gz") as tf:
        for m in members:
            if m.isfile():
                m.size = len(data)
                tf.addfile(m, io.BytesIO(data))
            else:
                tf.addfile(m)
    return dest
