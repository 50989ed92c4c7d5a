"""Run discovery: walk a folder and name every run in it, with the format that reads it.

A *run source* is what one `ingest.load_run` call reads: a TensorBoard run directory (a
Keras `train/` + `validation/` pair is ONE source, at their parent; other logs in its folder are
the same run written twice, noted in `also`, not listed again), an MLflow run directory
(`meta.yaml` + `metrics/`), a DVCLive folder (`plots/metrics/`, listed under the folder that
holds it), a folder's Keras `training.csv` + `validation.csv` pair, console
`train_log` + `val_log` parts or series files (`log_train.txt` + `log_val.txt`) (one run each,
as the readers' `pair_parts` say), or one file
(trainer_state.json, a Lightning `metrics.csv`, a Keras CSVLogger log, a W&B CSV export that may
hold several runs, a JSONL log).

Why a walker of our own: a sweep folder can hold thousands of runs, so discovery must stay cheap
(`os.scandir`, at most a few KiB of each candidate file's head, never a whole file) and must not
stop at the first bad entry: symlink loops, unreadable directories and files become `Problem`s
and the walk goes on. The order is deterministic (entries sorted by name) so two audits of the
same folder list runs identically.

Markdown files are never candidates, though the printed-table reader reads a model card's
"Training results" table when the card is given itself: a card summarises the run whose logs
usually sit beside it (the Trainer's `runs/` event files, trainer_state.json), so walked it would
count that run twice, at the grain of its evaluations only; and a project folder holds many
markdown files (READMEs, docs, tables of results across models) that are no run's log, which
an audit must neither list as runs nor report as problems.

Which format a file holds is ingest's answer (`ingest.detect.sniff_file`, the registered
readers' own `sniff`), so discovery and `load_run` never disagree; the readers' sniffs read only
a file's head.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from importlib import import_module
from pathlib import Path

from lossforensics.classifiers.errors import InputError, NoLogsFoundError
from lossforensics.ingest import console, detect, dvclive

# Formats, by the name `lossforensics.ingest.load_run(format=...)` takes.
TENSORBOARD = "tensorboard"
MLFLOW = "mlflow"
HF_TRAINER = "hf_trainer"
LIGHTNING_CSV = "lightning_csv"
KERAS_CSV = "keras_csv"
WANDB_CSV = "wandb_csv"
JSONL = "jsonl"
PLAIN_CSV = "csv"  # any per-step table (Ultralytics results.csv, hand-written logs)
CONSOLE = "console"  # printed output: nohup.out, a SLURM .out, train.log, a .txt, a misnamed .csv
SERIES_FILE = "series_file"  # bare numbers named by their file: train_loss.txt, log_val.txt
# TensorBoard's scalar downloads, one tag a file named by it: run-train-tag-epoch_loss.csv
TENSORBOARD_EXPORT = "tensorboard_export"
DVCLIVE = "dvclive"  # a DVCLive folder: plots/metrics/<split>/<metric>.tsv, one run
# the folders below which a DVCLive folder keeps its histories (lossforensics.ingest.dvclive)
_DVCLIVE_HISTORIES = frozenset({"plots", "scalars"})
# Formats whose reader takes one run's parts as a folder (its `pair_parts` says which folders)
_PART_READERS = {
    KERAS_CSV: "lossforensics.ingest.keras_csv",
    PLAIN_CSV: "lossforensics.ingest._plain_csv",
    CONSOLE: "lossforensics.ingest.console",
    SERIES_FILE: "lossforensics.ingest.series_file",
    TENSORBOARD_EXPORT: "lossforensics.ingest.tensorboard_export",
}

# Sub-directories whose event files belong to their parent's run (Keras, HF, TF estimators).
SPLIT_DIRS = frozenset(
    {"train", "training", "validation", "valid", "val", "eval", "evaluation", "test"}
)
# ... of which these hold the training split
_TRAIN_DIRS = frozenset({"train", "training"})
# Directories that never hold a user's run (tool caches, VCS, environments).
SKIP_DIRS = frozenset(
    {
        ".git",
        ".hg",
        ".svn",
        "__pycache__",
        ".ipynb_checkpoints",
        ".venv",
        "node_modules",
        ".mypy_cache",
        ".pytest_cache",
        ".ruff_cache",
    }
)
# Files next to runs that describe them but are not logs (read by audit.hparams instead).
CONFIG_FILES = frozenset(
    {
        "hparams.yaml",
        "config.json",
        "config.yaml",
        "config.yml",
        "training_args.json",
        "opt.yaml",
        "hyp.yaml",
        "args.json",
        "wandb-metadata.json",
        "wandb-summary.json",
        "package.json",
        "tokenizer.json",
        "tokenizer_config.json",
        "vocab.json",
        "special_tokens_map.json",
        "generation_config.json",
        "adapter_config.json",
        "preprocessor_config.json",
    }
)
_CANDIDATE_SUFFIXES = (
    ".csv",
    ".tsv",
    ".log",
    ".txt",
    ".out",
    ".json",
    ".jsonl",
    ".ndjson",
    ".ipynb",
    ".npy",
    ".npz",
    ".dat",  # DeepXDE's loss.dat
)
# a candidate no reader takes is reported (not silently passed over) when its name says it is a
# training log; other .txt/.json files beside runs are not
_LOG_NAME = re.compile(
    r"(train|metric|history|loss)\w*\.(csv|tsv|log|out|jsonl|ndjson)$", re.IGNORECASE
)


@dataclass(frozen=True, order=True)
class RunSource:
    """One thing `load_run` reads: `path` (file or directory), its `format`, and `name`, the
    path relative to the audited root ('sweep/lr-3e-2/seed1') that reports show."""

    name: str
    path: str
    format: str
    # the same run written in other formats beside it, not read (a CSV next to the event file)
    also: tuple[str, ...] = ()


@dataclass(frozen=True)
class Problem:
    """Something the walk could not look into; reported, never fatal."""

    path: str
    kind: str  # "symlink_loop" | "unreadable" | "broken_link" | "unrecognised"
    message: str

    def __str__(self) -> str:
        return f"{self.path}: {self.message}"


@dataclass
class Discovery:
    root: str
    sources: list[RunSource] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)


def discover_runs(root: str | os.PathLike[str], *, follow_symlinks: bool = True) -> Discovery:
    """Every run source under `root` (a directory, or a single file/run directory), sorted by
    name. Raises NoLogsFoundError when `root` does not exist."""
    root_path = Path(root).expanduser()
    if not root_path.exists():
        raise NoLogsFoundError("no such file or directory", file=str(root_path))
    found = Discovery(root=str(root_path))
    if root_path.is_file():
        fmt = sniff_file(root_path)
        if fmt is not None:
            found.sources.append(RunSource(root_path.name, str(root_path), fmt))
        return found
    walker = _Walker(root_path, follow_symlinks, found)
    walker.walk(root_path)
    found.sources = _newest_checkpoints_only(found.sources)
    found.sources.sort()
    return found


def _newest_checkpoints_only(sources: list[RunSource]) -> list[RunSource]:
    """One source per HF output folder: its `checkpoint-N/trainer_state.json` files are
    prefixes of one log, so only the most complete is a run (ingest's rule, shared)."""
    states = [Path(s.path) for s in sources if s.format == HF_TRAINER]
    if len(states) < 2:
        return sources
    _, older = detect.newest_checkpoints(states)
    drop = {str(p) for p in older}
    return [s for s in sources if s.path not in drop]


def require_runs(found: Discovery) -> Discovery:
    """The discovery itself, or NoLogsFoundError when it holds no run (CLI exit 2)."""
    if not found.sources:
        extra = f" ({len(found.problems)} path(s) could not be read)" if found.problems else ""
        raise NoLogsFoundError(f"no training logs found{extra}", file=found.root)
    return found


class _Walker:
    """Depth-first walk with a visited set of (device, inode) to break symlink loops."""

    def __init__(self, root: Path, follow_symlinks: bool, out: Discovery) -> None:
        self.root = root
        self.follow = follow_symlinks
        self.out = out
        self.seen: set[tuple[int, int]] = set()

    def name_of(self, path: Path) -> str:
        rel = os.path.relpath(path, self.root)
        if rel == ".":
            return self.root.resolve().name or str(self.root)
        return rel.replace(os.sep, "/")

    def walk(self, top: Path) -> None:
        # (directory, inside a TensorBoard run already listed): load_run reads a TensorBoard
        # run directory recursively, so nested event files are not listed again
        stack: list[tuple[Path, bool]] = [(top, False)]
        while stack:
            d, inside_tb = stack.pop()
            sub, now_tb = self.visit(d, inside_tb)
            stack.extend((s, now_tb) for s in reversed(sub))  # reversed: pop in sorted order

    def _entries(self, d: Path) -> list[os.DirEntry[str]] | None:
        try:
            st = d.stat()
        except OSError as exc:
            self.problem(d, "unreadable", exc)
            return None
        key = (st.st_dev, st.st_ino)
        if key in self.seen:
            self.out.problems.append(
                Problem(str(d), "symlink_loop", "directory already visited (symlink loop); skipped")
            )
            return None
        self.seen.add(key)
        try:
            with os.scandir(d) as it:
                return sorted(it, key=lambda e: e.name)
        except OSError as exc:
            self.problem(d, "unreadable", exc)
            return None

    def problem(self, path: Path | str, kind: str, exc: OSError | str) -> None:
        msg = exc if isinstance(exc, str) else (exc.strerror or str(exc))
        self.out.problems.append(Problem(str(path), kind, msg))

    def visit(self, d: Path, inside_tb: bool) -> tuple[list[Path], bool]:
        """Record the runs in directory `d`; return the sub-directories still to walk and
        whether they lie inside a TensorBoard run already recorded."""
        entries = self._entries(d)
        if entries is None:
            return [], inside_tb
        files, dirs = self._split(entries)
        names = {e.name for e in files}
        if "meta.yaml" in names and any(e.name == "metrics" for e in dirs):
            self.add(d, MLFLOW, d)
            return [], inside_tb  # its artifacts (an autolog TensorBoard copy) are the same run
        if any(e.name in _DVCLIVE_HISTORIES for e in dirs) and dvclive.own_histories(d):
            # named after the folder that holds it, as the reader names the run; its summary
            # (metrics.json) and report are the same run
            named = d.parent if d.name == dvclive.DEFAULT_DIR and d != self.root else d
            self.add(named, DVCLIVE, d)
            return [], inside_tb
        is_tb = not inside_tb and (_has_events(files) or self._split_children_with_events(dirs))
        if is_tb:
            self.add(d, TENSORBOARD, d)
            dirs = [e for e in dirs if e.name.lower() not in SPLIT_DIRS]
        elif _has_split_children(dirs) and console.holds_split_folder_parts(d):
            # `train/log.txt` + `val/log.txt`: one run's console logs, kept by split
            self.add(d, CONSOLE, d)
            dirs = [e for e in dirs if e.name.lower() not in SPLIT_DIRS]
        self._visit_files(d, files, dir_taken=is_tb or (inside_tb and _has_events(files)))
        return [Path(e.path) for e in dirs], inside_tb or is_tb

    def _split(self, entries: list[os.DirEntry[str]]) -> tuple[list, list]:
        files, dirs = [], []
        for e in entries:
            try:
                if e.is_dir(follow_symlinks=self.follow):
                    if e.name not in SKIP_DIRS and not (e.is_symlink() and not self.follow):
                        dirs.append(e)
                elif e.is_file(follow_symlinks=self.follow):
                    files.append(e)
                elif e.is_symlink() and not os.path.exists(e.path):
                    self.problem(e.path, "broken_link", "symbolic link to a missing target")
            except OSError as exc:
                self.problem(e.path, "unreadable", exc)
        return files, dirs

    def _split_children_with_events(self, dirs: list[os.DirEntry[str]]) -> bool:
        for e in dirs:
            if e.name.lower() in SPLIT_DIRS:
                try:
                    with os.scandir(e.path) as it:
                        if any(_is_event_file(c.name) for c in it):
                            return True
                except OSError:
                    continue  # reported when the walk reaches it, if it does
        return False

    def _visit_files(self, d: Path, files: list[os.DirEntry[str]], *, dir_taken: bool) -> None:
        picked: list[tuple[Path, str]] = []
        for e in files:
            if e.name in CONFIG_FILES or not e.name.lower().endswith(_CANDIDATE_SUFFIXES):
                continue
            try:
                fmt = sniff_file(Path(e.path))
            except OSError as exc:
                self.problem(e.path, "unreadable", exc)
                continue
            if fmt is not None:
                picked.append((Path(e.path), fmt))
            elif _LOG_NAME.search(e.name):
                self.problem(
                    e.path,
                    "unrecognised",
                    "named like a training log, but no reader "
                    "recognises its content (`lossforensics diagnose` on the file "
                    "says why)",
                )
        picked = _paired(d, picked)
        if dir_taken and picked:  # the TensorBoard run's own folder: these are that run again
            self.note_also(d, [path for path, _ in picked])
            return
        for path, fmt in picked:
            # a lone conventional file names its run after the folder ('version_5')
            self.add(d if len(picked) == 1 and not dir_taken else path, fmt, path)

    def add(self, named: Path, fmt: str, path: Path) -> None:
        self.out.sources.append(RunSource(self.name_of(named), str(path), fmt))

    def note_also(self, d: Path, paths: list[Path]) -> None:
        """Files in a TensorBoard run's folder that other readers take are the same run logged
        twice (HF Trainer, YOLOv5, Keras write both): noted on that run, as ingest reads a
        folder in one format."""
        for i in range(len(self.out.sources) - 1, -1, -1):
            src = self.out.sources[i]
            if src.format == TENSORBOARD and d.is_relative_to(src.path):
                self.out.sources[i] = replace(src, also=(*src.also, *(str(p) for p in paths)))
                return


def _paired(d: Path, picked: list[tuple[Path, str]]) -> list[tuple[Path, str]]:
    """The parts of one run in `d` become one source, the folder, as ingest reads them: a Keras
    `training.csv` + `validation.csv` pair, a console training log beside logs named after
    a split (`train_log.csv` + `val_log.csv`), or a folder's series files (one per metric)."""
    for fmt, module in _PART_READERS.items():
        picked = _paired_format(d, picked, fmt, import_module(module).pair_parts)
    return picked


def _paired_format(
    d: Path,
    picked: list[tuple[Path, str]],
    fmt: str,
    pair_parts: Callable[[list[Path]], list[Path]],
) -> list[tuple[Path, str]]:
    parts = [p for p, f in picked if f == fmt]
    if len(parts) < 2:
        return picked
    kept = pair_parts(parts)
    if d not in kept:
        return picked
    first = next(p for p in parts if p not in kept)
    return [
        (d, f) if p == first else (p, f) for p, f in picked if f != fmt or p in kept or p == first
    ]


def _has_split_children(dirs: list[os.DirEntry[str]]) -> bool:
    """A training folder and a held-out one among `dirs` (the cheap test before looking in)."""
    names = {e.name.lower() for e in dirs}
    return bool(names & _TRAIN_DIRS) and bool(names & (SPLIT_DIRS - _TRAIN_DIRS))


def _is_event_file(name: str) -> bool:
    return "tfevents" in name and not name.endswith((".tmp", ".lock"))


def _has_events(files: list[os.DirEntry[str]]) -> bool:
    return any(_is_event_file(e.name) for e in files)


# ---------------------------------------------------------------- file sniffing


def sniff_file(path: Path) -> str | None:
    """The format of one candidate log file, by ingest's own sniffer (each registered reader's
    `sniff`, in detection order); None when no reader takes it or its content cannot be read as
    a log. An OSError (unreadable file) is left to the walk, which reports it."""
    try:
        return detect.sniff_file(path)
    except InputError:
        return None
