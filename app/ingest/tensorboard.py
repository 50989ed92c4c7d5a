"""TensorBoard event files -> the normalised frame, every point kept.

Reads one event file or a directory of runs (layout rules in `_tb_layout`): PyTorch /
tensorboardX `simple_value` scalars and TF2 / Keras rank-0 tensor summaries, nothing subsampled
(TensorBoard's EventAccumulator keeps a reservoir sample of 10,000 points per tag by default;
tbparse inherits that unless told otherwise). Steps and wall times are as logged; `seq` is the
order of the points across the run's files (sorted by the timestamp in their names) and records.

How it is fast: the file is memory-mapped, the record framing is walked with struct reads, both
CRC32C checksums of every record are checked in vectorised batches (`_tb_crc`), and the Event
protobufs are decoded by a numpy wire walker (`_tb_wire`, `_tb_decode`) instead of one protobuf
object per record. Records the walker rejects go to tensorboard's compiled protobuf.

Bad input: a truncated last record (live run) or a corrupt record keeps every readable point and
adds a ReadWarning with the file and byte offset; a file that does not frame as TFRecord raises
UnknownFormatError and an unreadable one CorruptInputError (in a directory: a warning, unless no
file is readable); a directory without event files raises NoLogsFoundError.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from itertools import islice
from pathlib import Path

import numpy as np
import pandas as pd
from lossforensics.classifiers.errors import (
    CorruptInputError,
    InputError,
    LossForensicsError,
    NoLogsFoundError,
    UnknownFormatError,
)
from lossforensics.classifiers.frame import Coded, make_frame
from lossforensics.ingest._builder import check_points, merge_roles
from lossforensics.ingest._limits import check_name
from lossforensics.ingest._score_roles import ultralytics_roles
from lossforensics.ingest._segments import restart_segments
from lossforensics.ingest._tb_decode import FilePoints, decode
from lossforensics.ingest._tb_framing import HEADER, file_bytes, first_record_frames, walk
from lossforensics.ingest._tb_layout import (
    RunFiles,
    find_runs,
    is_event_file_name,
    iter_event_files,
)
from lossforensics.ingest.base import IngestResult, ReadWarning

FORMAT = "tensorboard"
_SNIFF_MAX_FILES = 64
_SNIFF_MAX_ENTRIES = 20_000
_LFS_POINTER = b"version https://git-lfs"


def sniff(path: Path) -> bool:
    """True for a file whose first record frames like a TFRecord (length + its checksum), or a
    directory holding a `*tfevents*` file that does."""
    path = Path(path)
    try:
        if path.is_dir():
            candidates = iter_event_files(path, max_entries=_SNIFF_MAX_ENTRIES)
            return any(_frames(f) for f in islice(candidates, _SNIFF_MAX_FILES))
        return _frames(path)
    except OSError:
        return False


def _frames(path: Path) -> bool:
    with path.open("rb") as fh:
        return first_record_frames(fh.read(HEADER))


def read(
    path: Path, *, run: str | None = None, roles: Mapping[str, str] | None = None
) -> IngestResult:
    """Every scalar point of the event file or directory at `path`, one run per run directory.
    `run` names the run (with several runs it prefixes their names); `roles` overrides roles."""
    path = Path(path)
    if not path.exists():
        raise NoLogsFoundError("no such file or directory", file=str(path))
    single = path.is_file()
    runs = find_runs(path)
    warnings: list[ReadWarning] = []
    files: list[str] = []
    collected: list[tuple[str, list[tuple[FilePoints, str | None]]]] = []
    unreadable: list[InputError] = []
    for run_files in runs:
        parts = []
        for file, split in run_files.files:
            files.append(str(file))
            try:
                points = _read_file(file)
            except InputError as exc:  # in a directory: skip the file, read the others
                if single:
                    raise
                unreadable.append(exc)
                warnings.append(
                    ReadWarning(f"not read: {exc.message}", file=str(file), byte=exc.byte)
                )
                continue
            warnings.extend(points.warnings)
            parts.append((points, split))
        collected.append((_name(run_files, run, len(runs)), parts))
    if unreadable and len(unreadable) == len(files):
        raise unreadable[0]
    frame = _build_frame(collected, roles)
    if not len(frame):
        warnings.append(
            ReadWarning(
                "no scalar values found (only metadata, text, images, histograms or empty files)",
                file=str(path),
            )
        )
    return IngestResult(frame, warnings, format=FORMAT, files=files)


def _name(run_files: RunFiles, run: str | None, n_runs: int) -> str:
    if run is None:
        return run_files.name
    return run if n_runs == 1 else f"{run}/{run_files.name}"


def _read_file(file: Path) -> FilePoints:
    """All points of one event file; typed errors only (a decoder bug on hostile bytes becomes a
    CorruptInputError naming the file rather than a traceback)."""
    name = str(file)
    with file_bytes(file) as raw:
        total = len(raw)
        if total == 0:
            return _no_points(ReadWarning("empty event file", file=name, byte=0))
        head = bytes(raw[:HEADER])
        if head.startswith(_LFS_POINTER[:HEADER]) and bytes(raw[:64]).startswith(_LFS_POINTER):
            raise UnknownFormatError(
                "a git-LFS pointer, not the event file itself (fetch it with `git lfs pull`)",
                file=name,
            )
        if total < HEADER:
            return _no_points(
                ReadWarning(f"truncated first record ({total} bytes)", file=name, byte=0)
            )
        if not first_record_frames(head):
            raise UnknownFormatError(
                "not a TensorBoard event file: the first record does "
                "not frame as TFRecord (length checksum mismatch)",
                file=name,
                byte=0,
            )
        try:
            records, warnings = walk(raw, name)
            buf = np.frombuffer(raw, dtype=np.uint8)
            try:
                points = decode(buf, records, name)
            finally:
                del buf
        except LossForensicsError:
            raise
        except (ValueError, IndexError, TypeError, OverflowError, MemoryError) as exc:
            raise CorruptInputError(
                f"could not decode event file ({type(exc).__name__}: {exc})", file=name
            ) from exc
    points.warnings[:0] = warnings
    return points


def _no_points(warning: ReadWarning) -> FilePoints:
    empty = np.zeros(0)
    return FilePoints(
        np.zeros(0, dtype=np.int32), np.zeros(0, dtype=np.int64), empty, empty, [], [warning]
    )


@dataclass
class _Columns:
    run: list[np.ndarray]
    metric: list[np.ndarray]
    step: list[np.ndarray]
    value: list[np.ndarray]
    wall_time: list[np.ndarray]


def _build_frame(
    collected: list[tuple[str, list[tuple[FilePoints, str | None]]]],
    roles: Mapping[str, str] | None,
) -> pd.DataFrame:
    """One make_frame call for all runs: run and metric go in as codes + names (Coded)."""
    cols = _Columns([], [], [], [], [])
    metric_index: dict[str, int] = {}
    splits: dict[str, str] = {}
    run_names: list[str] = []
    total = 0
    for run_name, parts in collected:
        run_code = len(run_names)
        run_names.append(check_name(run_name, "run"))
        for points, split in parts:
            total += len(points)
            check_points(total)
            names = [check_name(f"{split}/{t}" if split else t, "metric") for t in points.tags]
            if split:
                splits.update(dict.fromkeys(names, split))
            lookup = np.array(
                [metric_index.setdefault(n, len(metric_index)) for n in names], dtype=np.int32
            )
            cols.metric.append(lookup[points.tag] if len(points) else points.tag)
            cols.run.append(np.full(len(points), run_code, dtype=np.int32))
            cols.step.append(points.step)
            cols.value.append(points.value)
            cols.wall_time.append(points.wall_time)

    def cat(arrays: list[np.ndarray], dtype: type) -> np.ndarray:
        if len(arrays) == 1:  # one file: no copy (the frame copies once when it consolidates)
            return arrays[0]
        return np.concatenate(arrays) if arrays else np.zeros(0, dtype=dtype)

    run_codes, metric_codes = cat(cols.run, np.int32), cat(cols.metric, np.int32)
    step, wall = cat(cols.step, np.int64), cat(cols.wall_time, np.float64)
    # restarts in seq order (files by the creation stamp in their names, then record order):
    # a resumed run's new file follows the old one, train/ and validation/ files interleave
    segment = restart_segments(run_codes, metric_codes, step)
    run = Coded(run_codes, _distinct(run_names))
    metric = Coded(metric_codes, list(metric_index))
    # YOLOv5/v8 write their results to TensorBoard too: its `metrics/*` are validation scores
    defaults = ultralytics_roles(tuple(metric_index))
    return make_frame(
        run,
        metric,
        step,
        cat(cols.value, np.float64),
        wall,
        roles=merge_roles(metric_index, roles, defaults),
        splits=splits,
        segment=segment,
    )


def _distinct(names: list[str]) -> list[str]:
    """Run names as the frame's names (which must be distinct): a repeat gets a suffix."""
    seen: dict[str, int] = {}
    out = []
    for n in names:
        k = seen.get(n, 0)
        seen[n] = k + 1
        out.append(n if k == 0 else f"{n}#{k + 1}")
    return out


__all__ = ["FORMAT", "is_event_file_name", "read", "sniff"]
