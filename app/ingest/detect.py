"""Which reader a path needs, decided by content (first bytes, header line), not by its name:
`metrics.json` from detectron2 is JSON lines, Keras writes CSV to `training.log`, and a
`metrics.jsonl` that holds CSV is read as CSV (with a warning about the name).

A directory is planned as a whole: an MLflow store or run folder; else TensorBoard event files
anywhere below (the TensorBoard reader walks its run folders itself); else a DVCLive folder
(its histories are one run, the split in their folders' names); else every file of the
first format found in detection order (a Lightning `lightning_logs/` with several
`version_N/metrics.csv`, a folder of JSONL runs; a Keras `training.csv` + `validation.csv` pair
is one source, their folder). Markdown is skipped, as discovery skips it (`discover`'s
docstring says why): a model card is read when it is given itself. Files of other formats are
reported, not mixed in: one run logged twice (HF Trainer's TensorBoard files and its
trainer_state.json; YOLOv5's event file and results.csv) must not be counted twice.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from lossforensics.classifiers.errors import InputError, NoLogsFoundError, UnknownFormatError
from lossforensics.ingest import dvclive
from lossforensics.ingest._csv import sniff_header
from lossforensics.ingest._numpy_files import NPY_MAGIC, npy_array
from lossforensics.ingest._registry import READERS
from lossforensics.ingest._source import read_head, require_nonempty
from lossforensics.ingest.keras_csv import pair_parts
from lossforensics.ingest.wandb_csv import is_runs_table

MAX_FILES = 5000
MAX_DEPTH = 8
_SKIP_DIRS = {"__pycache__", "node_modules", "artifacts", "site-packages"}
_SKIP_SUFFIXES = {
    ".py",
    ".md",
    ".rst",
    ".yaml",
    ".yml",
    ".toml",
    ".cfg",
    ".ini",
    ".png",
    ".jpg",
    ".jpeg",
    ".gif",
    ".svg",
    ".pdf",
    ".pt",
    ".pth",
    ".ckpt",
    ".bin",
    ".safetensors",
    ".h5",
    ".pb",
    ".onnx",
    ".pkl",
    ".zip",
    ".gz",
    ".tar",
    ".html",
    ".wandb",
    ".sh",
    ".lock",
}
CSV_FAMILY = {"wandb_csv", "lightning_csv", "keras_csv", "csv", "series_file", "tensorboard_export"}
_NAME_CLAIMS = {  # suffix -> formats whose content fits that name
    ".jsonl": {"jsonl", "dllogger"},
    ".ndjson": {"jsonl"},
    ".json": {
        "jsonl",
        "dllogger",
        "hf_trainer",
        "history_json",
        "series_file",
        "tensorboard_export",
    },
    ".csv": CSV_FAMILY,
    ".tsv": CSV_FAMILY,
    ".ipynb": {"notebook"},
    ".npy": {"series_file"},
    ".npz": {"history_json"},
    ".db": {"mlflow"},
    ".sqlite": {"mlflow"},
}
_LFS_POINTER = b"version https://git-lfs"
# a pickle opens with the PROTO opcode and its protocol (2 to 5 are the ones Python writes)
_PICKLE_OPCODE = 0x80
_PICKLE_PROTOCOL = 5


def sniff_file(path: Path) -> str | None:
    """The first format (in detection order) whose reader recognises the file's content: the
    one sniffer, for ingest and for folder discovery alike. A sniff that fails on hostile bytes
    (anything but a typed InputError or an OSError) counts as 'not this format'."""
    for fmt in READERS:
        try:
            if READERS[fmt].sniff(path):
                return fmt
        except (InputError, OSError):
            raise
        except Exception:  # a reader's sniff must not end detection; the next reader may fit
            continue
    return None


def _unread_array(path: Path) -> InputError:
    """Why a NumPy `.npy` file was not read: what it holds (or its size, past the read limit),
    or a name that names no loss."""
    try:
        found = npy_array(path)
    except InputError as exc:
        return exc
    shape = "?" if found is None else "x".join(map(str, found[0].shape))
    return UnknownFormatError(
        f"a NumPy array ({shape}) read only as a loss curve: its file name must name the loss "
        "(`train_loss.npy`, `val_losses.npy`), and it must hold one value a step, or rows of a "
        "whole-number counter and one or two values",
        file=str(path),
    )


# a run's summary beside its logs: the last value of each metric, no curve (W&B's
# `files/wandb-summary.json`, beside the run's `output.log`)
SUMMARY_FILES = frozenset({"wandb-summary.json"})
_SUMMARY_MESSAGE = (
    "W&B's run summary: the last value of each metric, no curve; read the run's output.log "
    "(its console output) or wandb-history.jsonl beside it, or export the history as CSV"
)


def _never_loaded(path: Path, head: bytes) -> str | None:
    """What a file is that holds Python objects (a pickle, a `torch.save` archive) or a W&B
    binary run file, and how to save its curves so they can be read; None for other files.
    A pickle is never loaded: loading one runs whatever code it names."""
    pickled = len(head) > 1 and head[0] == _PICKLE_OPCODE and 2 <= head[1] <= _PICKLE_PROTOCOL
    if pickled:
        return (
            "a Python pickle (`pickle.dump(history.history, f)`), never loaded: unpickling runs "
            "code; save the history as JSON instead (`json.dump(history.history, f)`) or as CSV"
        )
    if head.startswith(b"PK") and b"data.pkl" in head:
        return (
            "a PyTorch file (`torch.save`), a pickle in a zip, never loaded: unpickling runs "
            "code; save the losses as JSON or CSV (`json.dump({'loss': losses}, f)`)"
        )
    if path.suffix.lower() == ".wandb":
        return (
            "W&B's binary run file: export the run's history as CSV (the run page's export, or "
            "`wandb.Api().run(PATH).history().to_csv(f)`), or read its files/ folder"
        )
    return None


def _unknown(path: Path) -> InputError:
    """The most helpful 'not recognised' for this file."""
    head = read_head(path, 512)
    if head.startswith(NPY_MAGIC):
        return _unread_array(path)
    never = _never_loaded(path, head)
    if never is not None:
        return UnknownFormatError(never, file=str(path), byte=0)
    if head.startswith(_LFS_POINTER):
        return UnknownFormatError(
            "a git-LFS pointer, not the file itself: run `git lfs pull`", file=str(path), line=1
        )
    header = sniff_header(path)
    if header is not None and is_runs_table(header):
        return UnknownFormatError(
            "a W&B runs-table export (one row per run, no steps): export a chart's CSV instead",
            file=str(path),
            line=1,
        )
    if header is not None:
        return UnknownFormatError(
            f"a table without a step column (columns: {', '.join(header.stripped[:6])}); "
            "name one 'step', 'iter' or 'epoch', or read its rows in order by naming its loss "
            "(format csv with a role: --format csv --role COLUMN=train_loss)",
            file=str(path),
            line=1,
        )
    return UnknownFormatError(
        f"no reader recognises this file (formats: {', '.join(READERS)})" + _as_console(path, head),
        file=str(path),
        line=1,
        byte=0,
    )


def _as_console(path: Path, head: bytes) -> str:
    """What the console reader saw in a text file no reader took (which lines it looked at,
    which styles it tried), so pasted output is refused with a reason."""
    if b"\x00" in head:
        return ""
    from lossforensics.ingest import console

    try:
        console.read(path)
    except UnknownFormatError as exc:
        return f"; as console text: {exc.message}"
    except InputError:
        return ""
    return ""


def name_mismatch(path: Path, fmt: str) -> str | None:
    """A note when the file's suffix promises another format than its content holds."""
    claims = _NAME_CLAIMS.get(path.suffix.lower())
    if claims is None or fmt in claims:
        return None
    return f"named '{path.name}' but holds {fmt} content: read as {fmt}"


@dataclass
class Plan:
    """What to read in a directory: one format, its sources, and what was left aside."""

    format: str
    sources: list[Path]
    ignored: dict[str, list[Path]] = field(default_factory=dict)
    truncated: bool = False
    superseded: list[Path] = field(default_factory=list)  # older HF checkpoint states


def _walk(root: Path, markdown: bool = False) -> tuple[list[Path], bool]:
    """The files below `root` a reader may take (`markdown`: only the markdown files, which
    the first walk leaves aside), and whether the walk stopped at MAX_FILES."""
    files: list[Path] = []
    for current, dirs, names in os.walk(root):
        depth = len(Path(current).relative_to(root).parts)
        dirs[:] = sorted(
            d for d in dirs if not d.startswith(".") and d not in _SKIP_DIRS and depth < MAX_DEPTH
        )
        for name in sorted(names):
            suffix = Path(name).suffix.lower()
            if name.startswith(".") or (suffix != ".md" if markdown else suffix in _SKIP_SUFFIXES):
                continue
            if name in SUMMARY_FILES:
                continue
            files.append(Path(current) / name)
            if len(files) >= MAX_FILES:
                return files, True
    return files, False


def plan_directory(root: Path, format: str | None = None) -> Plan:
    """The reading plan for a directory (see the module docstring); NoLogsFoundError when
    nothing below it is readable."""
    root = Path(root)
    for fmt in ("mlflow", "tensorboard", "dvclive"):
        if format in (None, fmt) and fmt in READERS and READERS[fmt].sniff(root):
            plan = Plan(fmt, [root])
            if format is None:
                plan.ignored = _others(root, fmt)
            return plan
    files, truncated = _walk(root)
    found = _sniffed(files)
    order = [f for f in READERS if f in found and format in (None, f)]
    if not order:  # nothing else here: a log pasted into a markdown file is the run's log
        markdown, truncated = _walk(root, markdown=True)
        found = _sniffed(markdown)
        order = [f for f in READERS if f in found and format in (None, f)]
        files += markdown
    if not order:
        what = f"no {format} logs" if format else "no training logs in a format we read"
        raise NoLogsFoundError(
            f"{what} ({len(files)} file(s) looked at; formats: {', '.join(READERS)})",
            file=str(root),
        )
    if len(order) > 1 and "notebook" in order:
        # a notebook beside logs of another format printed or plotted them: the logs are the
        # record (and a notebook's output may be cut), so they are read and it is reported
        order.remove("notebook")
    superseded: list[Path] = []
    if "hf_trainer" in found:
        found["hf_trainer"], superseded = newest_checkpoints(found["hf_trainer"])
    chosen = order[0]
    if chosen == "keras_csv":  # a folder's training/validation parts are one run
        found[chosen] = pair_parts(found[chosen])
    elif chosen == "series_file":  # log_train.txt + log_val.txt: one file per metric
        from lossforensics.ingest import series_file

        found[chosen] = series_file.pair_parts(found[chosen])
    elif chosen == "tensorboard_export":  # one download per tag: one file per metric
        from lossforensics.ingest import tensorboard_export

        found[chosen] = tensorboard_export.pair_parts(found[chosen])
    elif chosen == "csv":  # CatBoost's learn_error.tsv + test_error.tsv: one run
        from lossforensics.ingest import _plain_csv

        found[chosen] = _plain_csv.pair_parts(found[chosen])
    elif chosen == "console":  # train_log + val_log: the two halves of one run
        from lossforensics.ingest import console

        found[chosen] = console.pair_parts(found[chosen])
    ignored = {f: paths for f, paths in found.items() if f != chosen}
    return Plan(chosen, found[chosen], ignored, truncated, superseded)


def _sniffed(files: list[Path]) -> dict[str, list[Path]]:
    """Format -> the files it recognises (TensorBoard and MLflow trees are found before)."""
    found: dict[str, list[Path]] = {}
    for file in files:
        if "tfevents" in file.name:
            continue
        try:
            if file.stat().st_size == 0:
                continue
            sniffed = sniff_file(file)
        except InputError:
            continue
        if sniffed is not None and sniffed not in ("mlflow", "tensorboard"):
            found.setdefault(sniffed, []).append(file)
    return found


_CHECKPOINT = re.compile(r"^checkpoint-(\d+)$")
_GLOBAL_STEP = re.compile(rb'"global_step"\s*:\s*(\d+)')


def newest_checkpoints(paths: list[Path]) -> tuple[list[Path], list[Path]]:
    """(kept, left out) among trainer_state.json files: an HF output folder holds one per
    `checkpoint-N/` (each a prefix of the next) and maybe one at its top; only the most
    complete of each folder is read (the largest `global_step`, then N, the top one on a tie)."""
    groups: dict[Path, list[tuple[int, int, Path]]] = {}
    for path in paths:
        m = _CHECKPOINT.match(path.parent.name)
        folder = path.parent.parent if m else path.parent
        step = _GLOBAL_STEP.search(read_head(path, 4096))
        rank = (int(step.group(1)) if step else -1, int(m.group(1)) if m else 1 << 62)
        groups.setdefault(folder, []).append((*rank, path))
    kept: list[Path] = []
    older: list[Path] = []
    for members in groups.values():
        members.sort(key=lambda t: (t[0], t[1]))
        kept.append(members[-1][2])
        older.extend(t[2] for t in members[:-1])
    kept_set = set(kept)
    return [p for p in paths if p in kept_set], [p for p in paths if p not in kept_set]


def _others(root: Path, chosen: str) -> dict[str, list[Path]]:
    """Files beside a TensorBoard/MLflow/DVCLive tree that other readers would take (reported
    only); a DVCLive folder's own histories and summary are its run, not files beside it."""
    if chosen == "mlflow":
        return {}
    out: dict[str, list[Path]] = {}
    files, _ = _walk(root)
    own = dvclive.histories_dir(root) if chosen == "dvclive" else None
    live = None if own is None else dvclive.live_dir(own)
    for file in files[:200]:
        if "tfevents" in file.name or (live is not None and file.is_relative_to(live)):
            continue
        try:
            fmt = sniff_file(file) if file.stat().st_size else None
        except InputError:
            continue
        if fmt is not None and fmt != chosen:
            out.setdefault(fmt, []).append(file)
    return out


def detect_format(path: Path | str) -> str:
    """The format of a file or run directory; EmptyInputError, UnknownFormatError or
    NoLogsFoundError (each naming the path) when there is none."""
    path = Path(path)
    if path.is_dir():
        return plan_directory(path).format
    if not path.exists():
        raise NoLogsFoundError("no such file or directory", file=str(path))
    require_nonempty(path)
    if path.name in SUMMARY_FILES:
        raise UnknownFormatError(_SUMMARY_MESSAGE, file=str(path))
    fmt = sniff_file(path)
    if fmt is None:
        raise _unknown(path)
    return fmt
