"""What every reader needs from a file before parsing it: its first bytes as text, a readable
default run name, and the `run=` renaming rule shared by all readers and `load_run`."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

import numpy as np
import pandas as pd
from lossforensics.classifiers.errors import (
    EmptyInputError,
    InputError,
    NoLogsFoundError,
    UnknownFormatError,
)

HEAD_BYTES = 64 * 1024

# Stems that name the logger, not the run: the folder around them is the better name.
_GENERIC_STEMS = {
    "log",
    "logs",
    "metrics",
    "metric",
    "training",
    "train",
    "trainer_state",
    "results",
    "history",
    "events",
    "output",
    "outputs",
    "wandb_export",
    "progress",
    "scalars",
    "export",
    "data",
    "stats",
    "log_history",
    "train_log",
    "training_log",
    "loss",
    "losses",
    "mlflow",
    "pasted",  # the service's name for a text/plain body: the run takes ?name= (its folder)
    "wandb-history",
    "history_log",
    "training_history",
    "train_history",
    "model_history",  # pd.DataFrame(history.history).to_csv("model_history.csv")
    "train_output",
    "readme",  # a model card's README.md: the folder is the model's name
    "run",
    "runs",
    # a name a script filled with a missing value (mmdetection's `None.log.json`, written
    # when its timestamp was never set)
    "none",
    "null",
}
GENERIC_STEMS = frozenset(_GENERIC_STEMS)  # shared with the upload naming rule

_CHECKPOINT_DIR = re.compile(r"^(checkpoint|ckpt)[-_]?\d+$", re.IGNORECASE)


def read_head(path: Path, n: int = HEAD_BYTES) -> bytes:
    """The first `n` bytes; an unreadable file is an InputError naming it."""
    try:
        with open(path, "rb") as fh:
            return fh.read(n)
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror or exc}", file=str(path)) from None


def head_text(path: Path, n: int = HEAD_BYTES) -> str | None:
    """The first bytes decoded as UTF-8 text (BOM dropped, a cut multi-byte char tolerated), or
    None when the bytes are binary (a NUL byte or undecodable)."""
    raw = read_head(path, n)
    if b"\x00" in raw:
        return None
    if raw.startswith(b"\xef\xbb\xbf"):
        raw = raw[3:]
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        if exc.start >= len(raw) - 4:  # a multi-byte char cut by the read size
            return raw[: exc.start].decode("utf-8", errors="replace")
        return None


def head_lines(path: Path, lines: int, max_bytes: int) -> tuple[str | None, bool]:
    """The file's first `lines` lines as text, read whole however long they are up to
    `max_bytes` (a 700-run W&B header is ~94 KB): (text or None when binary, complete). Not
    complete = the first line alone is longer than `max_bytes`. A line cut by the end of the
    read is dropped, so every line returned is whole."""
    size = HEAD_BYTES
    while True:
        raw = read_head(path, size)
        eof = len(raw) < size
        if eof or raw.count(b"\n") >= lines or size >= max_bytes:
            break
        size = min(size * 4, max_bytes)
    if b"\x00" in raw:
        return None, True
    if not eof:
        cut = raw.rfind(b"\n")
        if cut < 0:
            return _decode(raw), False
        raw = raw[: cut + 1]
    return _decode(raw), True


def _decode(raw: bytes) -> str | None:
    if raw.startswith(b"\xef\xbb\xbf"):
        raw = raw[3:]
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        if exc.start >= len(raw) - 4:
            return raw[: exc.start].decode("utf-8", errors="replace")
        return None


def first_line(text: str) -> str:
    return leading_lines(text, 1)[0] if text else ""


def leading_lines(text: str, n: int) -> list[str]:
    """`text.splitlines()[:n]` without splitting the rest of a 64 KB head: the prefix through
    the n-th newline holds at least n whole lines (every newline ends one; the other line
    boundaries of `splitlines` only add more)."""
    end = -1
    for _ in range(n):
        end = text.find("\n", end + 1)
        if end < 0:
            return text.splitlines()[:n]
    return text[: end + 1].splitlines()[:n]


def require_nonempty(path: Path) -> None:
    """EmptyInputError for a file with no bytes (or only whitespace in its first bytes)."""
    try:
        size = path.stat().st_size
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror or exc}", file=str(path)) from None
    if size == 0 or (size <= HEAD_BYTES and not read_head(path).strip()):
        raise EmptyInputError("the file is empty", file=str(path))


def metric_files(
    path: Path, sniff: Callable[[Path], bool], *, none_here: str, not_one: str
) -> tuple[list[Path], str]:
    """The files of a run kept one metric a file (series files, TensorBoard downloads): the
    files of a folder that `sniff` takes, or the one file given; and the run's name (the
    folder's). NoLogsFoundError (`none_here`) for a folder with none, UnknownFormatError
    (`not_one`) for a file `sniff` refuses."""
    if path.is_dir():
        files = sorted(p for p in path.iterdir() if p.is_file() and p.stat().st_size and sniff(p))
        if not files:
            raise NoLogsFoundError(none_here, file=str(path))
        return files, path.resolve().name or "run"
    require_nonempty(path)
    if not sniff(path):
        raise UnknownFormatError(not_one, file=str(path), line=1)
    return [path], path.resolve().parent.name or path.name.split(".")[0]


# the file-name suffixes taken off a run's name: extensions (`.log`, `.jsonl`, `.txt`) and a
# rotated log's number (`train.log.1`), at most three of them
_SUFFIXES_OFF = 3
_EXTENSION_CHARS = 8
_ROTATION_DIGITS = 3


def _stem(name: str) -> str:
    """A file name without its extensions (`train.log.1` -> `train`); a dot inside the name
    stays (`actor_opt-1.3b_critic.log` -> `actor_opt-1.3b_critic`, `run_lr0.001.log` ->
    `run_lr0.001`). A number is a rotated log's only in last place, after an extension."""
    head, dot, suffix = name.rpartition(".")
    stem = name
    if dot and suffix.isdigit() and len(suffix) <= _ROTATION_DIGITS and "." in head:
        stem = head
    for _ in range(_SUFFIXES_OFF):
        head, dot, suffix = stem.rpartition(".")
        if not dot or not head or not (suffix.isalpha() and len(suffix) <= _EXTENSION_CHARS):
            break
        stem = head
    return stem


def default_run_name(path: Path) -> str:
    """A readable run name: the stem, unless it only names the logger ('metrics', 'training',
    'trainer_state'), then the folder (skipping a 'checkpoint-500' folder)."""
    path = Path(path)
    stem = _stem(path.name) if not path.name.startswith(".") else path.name
    if stem and stem.lower() not in _GENERIC_STEMS:
        return stem
    parent = path.resolve().parent
    if _CHECKPOINT_DIR.match(parent.name) and parent.parent.name:
        parent = parent.parent
    return parent.name or stem or "run"


def apply_run_name(frame: pd.DataFrame, run: str | None) -> pd.DataFrame:
    """The `run=` rule: a one-run frame is renamed to `run`; a several-run frame keeps its names
    under the prefix `run/` so none collide."""
    if run is None or not len(frame):
        return frame
    names = frame["run"].astype(str)
    uniq = pd.unique(names)
    out = frame.copy()
    if len(uniq) == 1:
        out["run"] = pd.array(np.full(len(out), run, dtype=object), dtype="string")
    else:
        out["run"] = pd.array((run + "/" + names).to_numpy(dtype=object), dtype="string")
    return out


def parts_as_folders(
    paths: Iterable[Path], parts_of: Callable[[list[Path]], Sequence[Path] | None]
) -> list[Path]:
    """`paths` with each folder whose files are one run's parts (`parts_of` of the folder's
    files gives them, leading part first; None when they are not) replaced by the folder, in
    its leading part's place: the readers that take a run logged in parts (Keras CSV's
    training/validation, console train_log/val_log) read such a folder as one run."""
    paths = list(paths)
    by_dir: dict[Path, list[Path]] = {}
    for p in paths:
        by_dir.setdefault(p.parent, []).append(p)
    parts = {d: parts_of(files) for d, files in by_dir.items()}
    out: list[Path] = []
    for p in paths:
        found = parts[p.parent]
        if found is None:
            out.append(p)
        elif p == found[0]:
            out.append(p.parent)
    return out
