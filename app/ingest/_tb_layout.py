"""Which event files make which run, from the directory layout alone.

- Event files are the files whose name contains `tfevents` (TensorBoard's own rule).
- A directory holding event files is a run; its name is its path relative to the root given
  (the root's own name when the root itself is the run), so a folder of runs reads as many runs.
- Keras writes one run as `<run>/train/` and `<run>/validation/` holding the same tags: a split
  directory (`train`, `validation`, `validation_*`, `val`, `eval`, `test`, ...) belongs to its
  parent's run, and its tags are prefixed with the split (`validation/epoch_loss`).
- Several files in one run (restarts, HF's separate final-eval file) are read in the order of the
  timestamp in their name (`events.out.tfevents.<unix time>.<host>...`), then by name.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from lossforensics.classifiers.errors import NoLogsFoundError

_SPLITS = {"train", "training", "validation", "valid", "val", "eval", "evaluation", "test"}
_STAMP = re.compile(r"tfevents\.(\d+)")


@dataclass
class RunFiles:
    """One run: its name and its event files in reading order, each with its split (or None)."""

    name: str
    files: list[tuple[Path, str | None]] = field(default_factory=list)


def is_event_file_name(name: str) -> bool:
    return "tfevents" in name


def split_of(directory: Path) -> str | None:
    """The split a directory name stands for, or None."""
    name = directory.name
    low = name.lower()
    if low in _SPLITS or low.startswith("validation_"):
        return name
    return None


def event_files(root: Path) -> list[Path]:
    """Event files under `root`, sorted by path (links to directories are not followed)."""
    return sorted(iter_event_files(root))


def iter_event_files(root: Path, max_entries: int | None = None) -> Iterator[Path]:
    """Event files under `root` as the walk finds them (lets a sniff stop at the first);
    `max_entries` bounds the directory entries looked at (a sniff must stay cheap)."""
    seen = 0
    for directory, dirs, names in os.walk(root, followlinks=False):
        dirs.sort()
        for name in sorted(names):
            path = Path(directory) / name
            if is_event_file_name(name) and path.is_file():
                yield path
        seen += len(names) + len(dirs)
        if max_entries is not None and seen >= max_entries:
            return


def find_runs(path: Path) -> list[RunFiles]:
    """Group the event files under `path` (a directory, or one event file) into runs."""
    if path.is_file():
        split = split_of(path.parent)
        run_dir = path.parent.parent if split else path.parent
        return [RunFiles(run_dir.name or path.stem, [(path, split)])]
    files = event_files(path)
    if not files:
        raise NoLogsFoundError(
            "no TensorBoard event files (*tfevents*) in this directory", file=str(path)
        )
    runs: dict[Path, RunFiles] = {}
    for f in files:
        split = split_of(f.parent)
        run_dir = f.parent.parent if split else f.parent
        if run_dir not in runs:
            runs[run_dir] = RunFiles(_run_name(run_dir, path))
        runs[run_dir].files.append((f, split))
    for run in runs.values():
        run.files.sort(key=lambda item: (_stamp(item[0]), item[0].name, str(item[1])))
    return [runs[d] for d in sorted(runs, key=lambda d: runs[d].name)]


def _run_name(run_dir: Path, root: Path) -> str:
    try:
        rel = run_dir.relative_to(root)
    except ValueError:  # a split directory given as the root: the run is its parent
        return run_dir.name or root.name
    return root.resolve().name if rel == Path(".") else rel.as_posix()


def _stamp(path: Path) -> int:
    m = _STAMP.search(path.name)
    return int(m.group(1)) if m else 0
