"""Console logs: what a training script printed (nohup.out, a SLURM .out, a Python logging
file, a notebook cell's output, text pasted into the service).

Each style people meet is a small declarative pattern set in `styles/` (HF Trainer dicts,
Keras verbose 1 and 2, tqdm/Lightning bars, MXNet, PyTorch meters, timm, detectron2,
mmengine, fairseq (text and JSON), nanoGPT, Megatron, OpenNMT-py, YOLOv5, XGBoost / LightGBM, and a
generic key-value fallback); `_parser` reads lines with one of them (each shape of line once
with the patterns, then by position: `_plan`) and `_engine` turns the records into points.
The style is chosen on the file's first bytes (the one that finds the most loss points; a
specific style wins a tie with the fallback,
and the fallback wins only with longer curves too: `_choose`), then the whole file is streamed
through it, a block at a time: only the block in hand and the lines not yet packed are kept as
text, so memory grows with the points found (packed into arrays as they are read), not with
the size of the file. A margin that most lines share (a README code block's indentation, the
`# ` of a log pasted as comments, a `> ` quote: `_margin`) is taken off first. Logger prefixes
(timestamps, levels, rank tags) are removed from every line first (with several ranks
interleaved, only rank 0's lines are read), ANSI codes stripped
and progress-bar redraws reduced to their last state (the last before each reset of the bar). A
value printed inside the object that holds it is read as its number: a one-element list or
numpy array (`loss: [0.6931]`, `Loss [ 0.69]`), a tensor (`tensor(0.69, device='cuda:0')`), a
numpy scalar (`np.float64(0.69)`); an array of several values is not one value and is not read.
A count out of a total printed before its percentage (`Accuracy: 9836/10000 (98.36%)`) is the
percentage.
A score printed after a held-out loss on a line of no training metric (`Epoch: 3  Validation
Loss: 0.41, Accuracy: 0.87`) is that split's score (`Validation/Accuracy`).
An epoch printed on a line of its own (`Epoch 3/10`) is the epoch of the batch or step lines
after it that print none.
A key holds no sentence end: the words before one are prose (`Epoch 3 finished. Avg loss: 0.5`
and `Training done. Best AUC: 0.95` read `Avg loss` and `Best AUC`). A full stop that ends a
sentence ends the value before it (`trained with loss: 0.0197. The running time is 4073.9.`); a
full stop followed by more of the token does not (`1.2.3` is no value). A split printed as a verb
(`evaluated with loss`, `validating`, `trained`) names its split as the noun does.

No silent guesses: a text is taken only when the style finds a loss-like series (a train or
val loss with at least two points; a split that names no loss but a bare `total` or an error it
minimises has that as its loss, as in every reader's frame, on lines with a counter only);
otherwise UnknownFormatError says that no training metrics were recognised, how many lines were
looked at and which styles were tried. The result's
`detail` names the style ("console log, keras verbose 2"), the step axis and the lines
skipped. Sessions appended into one file (a restart header, a train step that goes back) stay
in one run, in order, as the other readers keep them; `segments()` returns each point's
session for when the frame carries a `segment` column. Trial headers of a sweep give
separate runs. A folder holding one training log beside logs named after a split (train_log.csv
and val_log.csv) is one run: the split's metrics are named `val_<name>`.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import BinaryIO

import numpy as np
import pandas as pd
from lossforensics.classifiers.errors import NoLogsFoundError, UnknownFormatError
from lossforensics.classifiers.frame import concat_frames, make_frame
from lossforensics.ingest._builder import Warnings, check_points, merge_roles
from lossforensics.ingest._limits import check_name
from lossforensics.ingest._source import (
    HEAD_BYTES,
    default_run_name,
    head_text,
    parts_as_folders,
    require_nonempty,
)
from lossforensics.ingest.base import IngestResult
from lossforensics.ingest.console._choose import choose_style
from lossforensics.ingest.console._columns import release_freed_memory
from lossforensics.ingest.console._engine import (
    RELEASE_AFTER_POINTS,
    Parser,
    Points,
    loss_points,
    to_points,
)
from lossforensics.ingest.console._margin import find_margin, margin_remover
from lossforensics.ingest.console._plan import skeletons
from lossforensics.ingest.console._style import NUM, Style
from lossforensics.ingest.console._text import blocks, clean, iter_blocks
from lossforensics.ingest.console.styles import STYLES

FORMAT = "console"
SNIFF_BYTES = HEAD_BYTES
_SPLIT_STEMS = {"val", "valid", "validation", "eval", "test", "dev"}
_TRAIN_FOLDERS = {"train", "training"}

__all__ = ["FORMAT", "STYLES", "read", "read_stream", "sniff"]


def _clean_lines(text: str) -> list[str]:
    lines = clean(text).split("\n")
    return lines[:-1] if len(lines) > 1 else lines  # the last may be cut by the read size


def _head_lines(text: str) -> list[str]:
    """The head's cleaned lines, without their margin (`_margin`)."""
    lines = _clean_lines(text)
    margin = margin_remover(find_margin(lines))
    return [margin.sub("", line) for line in lines] if margin else lines


def sniff(path: Path) -> bool:
    """Text (not binary) in which some style finds a loss-like series within the first bytes."""
    text = head_text(Path(path), SNIFF_BYTES)
    if not text or not text.strip():
        return False
    if text.lstrip()[:1] in ("{", "[") and text.lstrip()[:2] not in ("{'", "[1", "[r"):
        # JSON (a JSON document or JSON lines) belongs to the JSON readers, not printed dicts
        if '"' in text.split("\n", 1)[0][:3]:
            return False
    return sniff_text(text)


def sniff_text(text: str) -> bool:
    """Some style finds a loss-like series in the head of `text` (the first SNIFF_BYTES), read
    as `read_stream` reads it (one rank's, one host's lines)."""
    head = text[:SNIFF_BYTES]
    others = other_ranks(head) or other_hosts(head)
    style, _ = choose_style(_head_lines(others.sub("", head) if others else head))
    return style is not None


def read(
    path: Path, *, run: str | None = None, roles: Mapping[str, str] | None = None
) -> IngestResult:
    """Read a console log, or a folder whose console logs are one run's parts (a training log
    beside files named after a split: train_log.csv + val_log.csv)."""
    path = Path(path)
    if path.is_dir():
        return _read_parts(path, run=run, roles=roles)
    require_nonempty(path)
    with open(path, "rb") as fh:
        return read_stream(
            fh,
            name=str(path),
            run=run or default_run_name(path),
            roles=roles,
            split=_split_of(path),
        )


def _parts(files: Iterable[Path]) -> list[Path] | None:
    """One run's parts among a folder's console logs: exactly one log not named after a split
    (the training log) and at least one named after one (val_log, eval.log), training first;
    None for any other mix (several training logs are several runs)."""
    files = sorted(files)
    train = [f for f in files if _split_of(f) is None]
    held_out = [f for f in files if _split_of(f) is not None]
    return train + held_out if len(train) == 1 and held_out else None


def _split_folder_parts(files: list[Path]) -> list[Path] | None:
    """One run's parts kept in folders named after their split (FastSpeech2's `train/log.txt`
    and `val/log.txt`): the same file name in a training folder and in held-out folders beside
    it, training first; None otherwise."""
    by_split: dict[str, list[Path]] = {}
    for f in files:
        folder = f.parent.name.lower()
        side = "train" if folder in _TRAIN_FOLDERS else "held" if folder in _SPLIT_STEMS else ""
        by_split.setdefault(side, []).append(f)
    train, held = by_split.get("train", []), sorted(by_split.get("held", []))
    if len(train) != 1 or not held or "" in by_split:
        return None
    if {f.name for f in held} != {train[0].name}:
        return None
    return train + held


def pair_parts(paths: Iterable[Path]) -> list[Path]:
    """`paths` (console logs) with each folder holding one run's parts (`_parts`) replaced by
    the folder, which `read` reads as one run; so is a folder whose split-named sub-folders hold
    them (`train/log.txt`, `val/log.txt`)."""
    paths = parts_as_folders(paths, _parts)
    by_grandparent: dict[Path, list[Path]] = {}
    for p in paths:
        if p.is_file():
            by_grandparent.setdefault(p.parent.parent, []).append(p)
    out: list[Path] = []
    for p in paths:
        group = by_grandparent.get(p.parent.parent) if p.is_file() else None
        parts = _split_folder_parts(group) if group and len(group) > 1 else None
        if parts is None:
            out.append(p)
        elif p == parts[0]:
            out.append(p.parent.parent)
    return out


def _logs_in(folder: Path) -> list[Path]:
    """The console logs directly in `folder`."""
    return [p for p in folder.iterdir() if p.is_file() and p.stat().st_size and sniff(p)]


def _nested_parts(folder: Path) -> list[Path] | None:
    """One run's parts in `folder`'s split-named sub-folders (`_split_folder_parts`)."""
    nested = [
        p
        for sub in sorted(folder.iterdir())
        if sub.is_dir() and sub.name.lower() in _TRAIN_FOLDERS | _SPLIT_STEMS
        for p in _logs_in(sub)
    ]
    return _split_folder_parts(nested) if nested else None


def _folder_parts(folder: Path) -> list[Path] | None:
    """The parts of the one run `folder` holds: its own console logs (`_parts`), else, when it
    holds none, its split-named sub-folders'."""
    own = _logs_in(folder)
    return _parts(own) if own else _nested_parts(folder)


def holds_split_folder_parts(folder: Path) -> bool:
    """Whether `folder` holds one run's console logs in split-named sub-folders only
    (`train/log.txt` + `val/log.txt`): discovery lists such a folder as one run."""
    return not _logs_in(folder) and _nested_parts(folder) is not None


def _read_parts(folder: Path, *, run: str | None, roles: Mapping[str, str] | None) -> IngestResult:
    parts = _folder_parts(folder)
    if parts is None:
        raise NoLogsFoundError(
            "no console logs of one run in this folder (one training log beside logs named "
            "after a split: val, eval, test)",
            file=str(folder),
        )
    name = run or folder.resolve().name or "run"
    read_parts = [read(p, run=name, roles=roles) for p in parts]
    frames = [
        r.frame if _split_of(p) is None else _held_out_names(r.frame)
        for p, r in zip(parts, read_parts, strict=True)
    ]
    result = IngestResult(
        concat_frames(frames),
        [w for r in read_parts for w in r.warnings],
        format=FORMAT,
        files=[f for r in read_parts for f in r.files],
    )
    result.detail = "; ".join(r.detail for r in read_parts if r.detail)
    return result


def _held_out_names(frame: pd.DataFrame) -> pd.DataFrame:
    """A split part's metrics renamed `val_<name>` (`mask loss` in val_log.csv beside `mask
    loss` in train_log.csv), so each name is one curve; names that already say val keep theirs."""
    names = frame["metric"].astype(str)
    said = names.str.lower().str.match(r"(val|valid|validation|eval|test|dev)\b|(val|eval)_")
    return frame.assign(metric=names.where(said, "val_" + names).astype(frame["metric"].dtype))


def _split_of(path: Path) -> str | None:
    """'validation' for a file named after a split (val_log.csv, eval.log), or kept in a folder
    named after one (`val/log.txt`), else None."""
    stem = path.name.split(".")[0].lower()
    first = stem.replace("-", "_").split("_")[0]
    held_out = first in _SPLIT_STEMS or path.parent.name.lower() in _SPLIT_STEMS
    return "validation" if held_out else None


def read_stream(
    stream: BinaryIO,
    *,
    name: str,
    run: str = "console",
    roles: Mapping[str, str] | None = None,
    split: str | None = None,
) -> IngestResult:
    """Read console text from a binary stream (a file, stdin, an upload): the style is chosen
    on its first bytes, then the whole stream is read with it."""
    head = stream.read(SNIFF_BYTES)
    text = head.decode("utf-8", errors="replace")
    if "\x00" in text:
        raise UnknownFormatError("binary content, not console text", file=name, line=1, byte=0)
    margin = margin_remover(find_margin(_clean_lines(text)))
    if margin:
        text = margin.sub("", text)
    others = other_ranks(text) or other_hosts(text)
    style, scores = choose_style(_clean_lines(others.sub("", text) if others else text))
    parser = Parser(style or STYLES[-1])
    for text in iter_blocks(_chain(head, stream)):
        if margin:
            text = margin.sub("", text)
        if others:
            text = others.sub("", text)
        parser.feed_block(text.split("\n"), skeletons(text))
    parsed = parser.finish()
    points = to_points(parsed, chosen=True)
    parsed.rec.clear()  # the records' arrays: the points now hold what the frame needs
    parsed.pts.clear()
    if len(points.value) >= RELEASE_AFTER_POINTS:
        release_freed_memory()
    if style is None or loss_points(points) == 0:
        tried = ", ".join(s.name for s in STYLES)
        raise UnknownFormatError(
            f"no training metrics recognised in {parsed.lines} line(s) of text: no style found "
            f"a loss series of at least 2 points (looked for: {tried})",
            file=name,
        )
    return _result(
        points, parsed.lines, parsed.records, parsed.restarts, style, name, run, roles, split
    )


# lines an MPI launcher (`[job,rank]<stdout>:`) or torchrun (`[rankN]:`) tagged with a rank
# other than 0
_OTHER_RANK_LINE = re.compile(
    r"^(?:\[\d+,0*[1-9]\d*\]<std(?:out|err)>:|\[rank\s*0*[1-9]\d*\]:?).*(?:\n|$)", re.M
)
_RANK_ZERO = re.compile(r"^(?:\[\d+,0+\]<std(?:out|err)>:|\[rank\s*0+\]:?)", re.M)


def other_ranks(head: str) -> re.Pattern[str] | None:
    """The pattern of lines to leave out when the log interleaves several ranks' output and
    rank 0's is there: every rank of a data-parallel job logs the same run, and two ranks'
    numbers in one series would be read as one noisy curve. None when the head shows no rank 0."""
    if _RANK_ZERO.search(head) and _OTHER_RANK_LINE.search(head):
        return _OTHER_RANK_LINE
    return None


# a line a multi-node launcher (DeepSpeed's pdsh runner) prefixed with its host: an IPv4 address
# or a host name holding a digit (`10.96.202.43: `, `worker-3: `, `gpu-node01: `; no underscore,
# which no host name holds), before more than a bare number (`stage1_loss: 38.9` is a metric)
_HOST_TAG = re.compile(
    r"^((?:\d{1,3}\.){3}\d{1,3}|[A-Za-z][A-Za-z0-9-]*\d[A-Za-z0-9-]*): "
    rf"(?!\s*(?:{NUM})\s*$)",
    re.M,
)
# the head shows hosts when at least half its non-empty lines carry a tag: IPv4 addresses, or
# host names from 2 hosts or more, each on 2 lines or more (a script's `epoch1: ...` lines name a
# different epoch on each), whose lines interleave
_IPV4 = re.compile(r"(?:\d{1,3}\.){3}\d{1,3}")
_HOSTS_MIN = 2
_HOST_LINES_MIN = 2
_HOST_SHARE = 0.5


def other_hosts(head: str) -> re.Pattern[str] | None:
    """The pattern that takes every host's lines out but the busiest host's, and that host's
    tag off its own: every node of a data-parallel job prints the same records (the same dict
    four times over), and read together they are one run logged four times; a trainer that
    logs on its main process only (the HF Trainer under DeepSpeed's launcher) prints its
    records from one host, the others a warning now and then. Host names must print side by
    side to count as hosts; IPv4 addresses are hosts on their own, one or many. None when the
    head shows no such tags."""
    tags = _HOST_TAG.findall(head)
    lines = sum(1 for line in head.split("\n") if line.strip())
    counts = Counter(tags)
    if not counts or len(tags) < _HOST_SHARE * lines:
        return None
    if not all(_IPV4.fullmatch(tag) for tag in counts):
        if len(counts) < _HOSTS_MIN or min(counts.values()) < _HOST_LINES_MIN:
            return None
        # hosts print side by side: the first one's lines come back after another's (the lines
        # of a script's `iter100: ..` record never follow `iter200: ..`'s)
        other = next(i for i, tag in enumerate(tags) if tag != tags[0])
        if tags[0] not in tags[other:]:
            return None
    kept = re.escape(counts.most_common(1)[0][0])  # ties: the first seen
    # a later host not seen in the head is left out too: any tag but the kept one's
    return re.compile(rf"^(?:{kept}: |(?!{kept}: )(?:{_HOST_TAG.pattern[1:]}).*(?:\n|$))", re.M)


def _chain(head: bytes, stream: BinaryIO) -> Iterable[bytes]:
    yield head
    yield from blocks(stream)


def _result(
    points: Points,
    lines: int,
    records: int,
    restarts: int,
    style: Style,
    name: str,
    run: str,
    roles: Mapping[str, str] | None,
    split: str | None,
) -> IngestResult:
    warns = Warnings(name)
    frame = _frame(points, run, roles, split)
    skipped = lines - records
    detail = f"console log, {style.name}"
    warns.add(
        f"read as a {detail}: {records} line(s) with metrics, {skipped} other line(s) skipped; "
        f"steps are {points.axis}"
    )
    if style.note:
        warns.add(style.note)
    for note in points.notes:
        warns.add(note)
    if restarts or _went_back(points):
        warns.add(
            f"the log holds several sessions ({int(points.segment.max()) + 1}: restart headers "
            "or a step that goes back); they are kept in one run, in the order printed"
        )
    result = IngestResult(frame, warns.finish(), format=FORMAT, files=[name])
    result.detail = f"{detail}; {records} metric line(s), {skipped} line(s) skipped"
    return result


def _frame(
    points: Points, run: str, roles: Mapping[str, str] | None, split: str | None
) -> pd.DataFrame:
    """The frame, its run and metric columns passed as codes into their names (no Python
    object a point; a single run as its name), each point's session in `segment`."""
    check_points(len(points.step))
    runs = _Names("run", [run if not r else f"{run}#{r}" for r in points.runs])
    metrics = _Names("metric", points.names)
    merged = merge_roles(metrics.names, roles, points.roles)
    return make_frame(
        runs.names[0] if len(runs.names) == 1 else runs.column(points.run),
        metrics.column(points.metric),
        points.step,
        points.value,
        points.wall,
        roles=merged,
        splits=dict.fromkeys(points.names, split) if split else None,
        segment=points.segment,
    )


class _Names:
    """Names given by code, checked against the length limit; a name given twice keeps one
    code (two trials of one name are one run)."""

    def __init__(self, kind: str, given: list[str]) -> None:
        codes: dict[str, int] = {}
        self.remap = np.asarray(
            [codes.setdefault(check_name(n, kind), len(codes)) for n in given], dtype=np.int32
        )
        self.names = list(codes)

    def column(self, codes: np.ndarray) -> pd.Categorical[str]:
        if len(codes) > 1 and codes.strides[0] == 0:  # one name throughout
            codes = np.full(len(codes), self.remap[codes[0]], dtype=np.int32)
        else:
            codes = self.remap[codes]
        categories: pd.Index[str] = pd.Index(self.names, dtype=object)
        return pd.Categorical.from_codes(codes, categories=categories)


def _went_back(points: Points) -> bool:
    return bool(len(points.segment)) and int(points.segment.max()) > 0


def segments(result: IngestResult) -> np.ndarray | None:
    """Each point's session, when the frame carries it (the `segment` column)."""
    if "segment" in result.frame.columns:
        return result.frame["segment"].to_numpy()
    return None
