"""An upload's saved files -> the sources to ingest -> diagnosed runs.

The plain files of one request form one run folder (several event files, a Keras `train/` and
`validation/` pair), named by the `name` form field or after the single file, because readers
name runs after their folder; each archive is its own run folder, and a folder holding several
runs gives several runs. Temp paths never leak out: file names in results, warnings and errors
are made relative to the upload.
"""

from __future__ import annotations

import dataclasses
import hashlib
import re
import shutil
from pathlib import Path, PurePosixPath

import numpy as np
import pandas as pd
from lossforensics.api.archive import UnpackBudget, archive_kind, extract_archive
from lossforensics.api.multipart import ReceivedForm, SavedFile, sanitize_name, shorten
from lossforensics.classifiers.errors import (
    EmptyInputError,
    LossForensicsError,
    NoLogsFoundError,
    UnknownFormatError,
)
from lossforensics.ingest._limits import ReadLimits, reading_with
from lossforensics.ingest._source import GENERIC_STEMS
from lossforensics.ingest.base import IngestResult
from lossforensics.settings import Settings
from lossforensics.store.pipeline import DiagnosedRun, diagnose_result, ingest

ARCHIVE_SUFFIXES = (".tar.gz", ".tar.bz2", ".tar.xz", ".tgz", ".tar", ".zip")


def archive_stem(name: str) -> str:
    """'runs/run_dir.tar.gz' -> 'run_dir'."""
    base = Path(name).name
    for suffix in ARCHIVE_SUFFIXES:
        if base.lower().endswith(suffix):
            return base[: -len(suffix)] or "archive"
    return Path(base).stem or "archive"


UPLOAD_DIR = "upload"


def is_generic(name: str) -> bool:
    """A name that says which logger wrote the file, not which run it is ('trainer_state',
    'metrics', 'events.out.tfevents...', 'checkpoint-500', our own scratch 'upload')."""
    low = name.lower()
    return (
        low in GENERIC_STEMS
        or low in (UPLOAD_DIR, "archive", "run", "")
        or low.startswith("events.out")
        or bool(re.fullmatch(r"checkpoint[-_]?\d*", low))
    )


def run_dir_name(requested: str | None, files: list[SavedFile]) -> str:
    """The folder the plain files are read from, which readers use as the run's name: the
    `name` form field, else the folder every file sits in (a folder upload), else the single
    file's name up to its first dot when it is specific, else 'upload'."""
    if requested and requested.strip():
        return shorten(sanitize_name(requested).as_posix().replace("/", "_"))
    tops = {PurePosixPath(f.name).parts[0] for f in files if len(PurePosixPath(f.name).parts) > 1}
    if len(tops) == 1 and all(len(PurePosixPath(f.name).parts) > 1 for f in files):
        return shorten(tops.pop())
    if len(files) == 1:
        stem = Path(files[0].name).name.split(".")[0]
        return stem if stem and not is_generic(stem) else UPLOAD_DIR
    return UPLOAD_DIR


_SCRATCH = {"named", "unpacked"}  # our own folders under the upload's work folder


def source_label(path: Path, base: Path) -> str | None:
    """The specific name of a source, from its folders: the nearest folder under the upload
    that is not generic (an archive's top folder, then the archive's own stem)."""
    here = path if path.is_dir() else path.parent
    while here != base.parent and here != here.parent:
        if not is_generic(here.name) and not here.name.isdigit() and here.name not in _SCRATCH:
            return here.name
        here = here.parent
    return None


def name_runs(frame: pd.DataFrame, label: str | None) -> pd.DataFrame:
    """A one-run frame whose reader could only find a generic name takes the upload's label."""
    if label is None or not len(frame):
        return frame
    names = pd.unique(frame["run"].astype(str))
    if len(names) != 1 or not is_generic(str(names[0])):
        return frame
    return frame.assign(run=pd.Series(label, index=frame.index, dtype=frame["run"].dtype))


def content_hash(frame: pd.DataFrame) -> str:
    """The identity of a run's content: a hash of its normalised series (metrics, steps,
    values, wall times, in source order), whatever the files or archive it came in."""
    cols = frame[["metric", "step", "value", "wall_time"]].assign(
        metric=frame["metric"].astype(str)
    )
    order = np.lexsort((frame["seq"].to_numpy(), cols["metric"].to_numpy()))
    hashed = pd.util.hash_pandas_object(cols.iloc[order], index=False).to_numpy()
    return hashlib.sha256(hashed.tobytes()).hexdigest()


def is_training_log(frame: pd.DataFrame) -> bool:
    """A training log has a curve: some metric logged at two steps or more (a config.json read
    as one line of numbers is not one)."""
    if not len(frame):
        return False
    return bool(frame.groupby(frame["metric"].astype(str), sort=False).size().max() >= 2)


def found_files(work: Path, limit: int = 20) -> str:
    """What an upload held, for a 'no training log' message: file names under the upload."""
    names = sorted(
        p.relative_to(work).as_posix().split("/", 2)[-1] for p in work.rglob("*") if p.is_file()
    )
    more = f" and {len(names) - limit} more" if len(names) > limit else ""
    return (", ".join(names[:limit]) + more) or "no files"


def sources_of(
    form: ReceivedForm, recv_dir: Path, work: Path, settings: Settings
) -> list[tuple[Path, str, Path]]:
    """(path to ingest, name to show, folder names are shown relative to) for every source of
    the upload: the plain files together as one run folder, then each archive unpacked."""
    archives: list[SavedFile] = []
    plain: list[SavedFile] = []
    for f in form.files:
        (archives if archive_kind(f.path) else plain).append(f)
    sources: list[tuple[Path, str, Path]] = []
    budget = UnpackBudget(settings.max_unpacked_bytes)  # one for the whole request
    for i, f in enumerate(archives):
        dest = work / "unpacked" / str(i) / archive_stem(f.name)
        extract_archive(
            f.path,
            dest,
            display_name=f.name,
            max_members=settings.max_archive_members,
            max_bytes=settings.max_unpacked_bytes,
            budget=budget,
        )
        f.path.unlink(missing_ok=True)
        entries = list(dest.iterdir())
        root = entries[0] if len(entries) == 1 and entries[0].is_dir() else dest
        sources.append((root, f.name, root.parent))
    if plain:
        run_dir = work / "named" / run_dir_name(form.fields.get("name"), plain)
        run_dir.parent.mkdir(parents=True, exist_ok=True)
        recv_dir.rename(run_dir)  # only plain files are left in it
        if len(plain) == 1:
            sources.insert(0, (run_dir / plain[0].name, plain[0].name, run_dir))
        else:
            sources.insert(0, (run_dir, run_dir.name, run_dir.parent))
    return sources


def diagnose_upload(
    form: ReceivedForm, recv_dir: Path, work: Path, settings: Settings
) -> list[DiagnosedRun]:
    """Ingest and diagnose every source of an upload (blocking: run it in a worker thread)."""
    out: list[DiagnosedRun] = []
    read: list[str] = []
    failed: list[LossForensicsError] = []
    for path, name, base in sources_of(form, recv_dir, work, settings):
        try:
            result = _relative(ingest(path, display_name=name), base)
        except (NoLogsFoundError, UnknownFormatError, EmptyInputError) as exc:
            read.append(f"{name}: {_rel(exc.message, base)}")
            failed.append(_relative_error(exc, base))
            continue
        except LossForensicsError as exc:
            raise _relative_error(exc, base) from exc
        frame = name_runs(result.frame, source_label(path, base))
        if not is_training_log(frame):
            metrics = ", ".join(sorted(pd.unique(frame["metric"].astype(str)))[:10])
            read.append(f"{name} ({result.format}) holds single values ({metrics}), no curve")
            continue
        result = dataclasses.replace(result, frame=frame)
        out += diagnose_result(result, max_points=settings.max_points_per_run)
    if not out and failed and len(failed) == len(read):  # nothing read at all: the reader's error
        raise failed[0]
    if not out:
        raise NoLogsFoundError(
            f"no training log in the upload; it holds: {found_files(work)}"
            + (f". Read: {'; '.join(read)}" if read else "")
            + ". Pickled files (training_args.bin, *.pt) are never unpickled."
        )
    return out


def read_limits(settings: Settings) -> ReadLimits:
    """The limits readers enforce while reading an upload, from the service's settings."""
    return ReadLimits(
        max_points=settings.max_points_per_upload,
        max_columns=settings.max_columns,
        max_cells=settings.max_cells,
        max_metric_name_chars=settings.max_metric_name_chars,
        max_run_name_chars=settings.max_run_name_chars,
        max_line_bytes=settings.max_line_bytes,
        sqlite_seconds=settings.worker_wall_seconds,
    )


def read_upload(
    form: ReceivedForm, recv_dir: Path, work: Path, settings: Settings
) -> list[DiagnosedRun]:
    """`diagnose_upload` under the read limits, each result's copy of the whole frame left out
    (callers use its format, files and warnings; each run has its own frame): what a parsing
    worker runs, and the service in-thread when isolation is off."""
    with reading_with(read_limits(settings)):
        diagnosed = diagnose_upload(form, recv_dir, work, settings)
    return [
        dataclasses.replace(d, result=dataclasses.replace(d.result, frame=_EMPTY))
        for d in diagnosed
    ]


_EMPTY = pd.DataFrame()


def _rel(value: str | None, base: Path) -> str | None:
    if value is None:
        return None
    prefix = str(base) + "/"
    return value.replace(prefix, "")


def _relative(result: IngestResult, base: Path) -> IngestResult:
    warnings = [
        dataclasses.replace(w, file=_rel(w.file, base), message=_rel(w.message, base) or "")
        for w in result.warnings
    ]
    return IngestResult(
        frame=result.frame,
        warnings=warnings,
        format=result.format,
        files=[_rel(str(f), base) or "" for f in result.files],
        detail=_rel(result.detail, base),
    )


def _relative_error(exc: LossForensicsError, base: Path) -> LossForensicsError:
    out = type(exc)(
        _rel(exc.message, base) or "", file=_rel(exc.file, base), line=exc.line, byte=exc.byte
    )
    return out


def remove_tree(path: Path) -> None:
    shutil.rmtree(path, ignore_errors=True)
