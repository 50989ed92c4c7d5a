"""An upload's saved files -> the sources to ingest -> diagnosed runs.

Plain files of one request form one run directory (several event files, a Keras `train/` and
`validation/` pair); each archive is its own run directory, and a directory holding several runs
gives several runs. Temp paths never leak out: file names in results, warnings and errors are
made relative to the upload.
"""

from __future__ import annotations

import dataclasses
import shutil
from pathlib import Path

from app.api.archive import archive_kind, extract_archive
from app.api.multipart import ReceivedForm
from app.ingest.base import IngestResult
from app.settings import Settings
from app.store.pipeline import DiagnosedRun, diagnose_result, ingest
from classifiers.errors import LossForensicsError

ARCHIVE_SUFFIXES = (".tar.gz", ".tar.bz2", ".tar.xz", ".tgz", ".tar", ".zip")


def archive_stem(name: str) -> str:
    """'runs/run_dir.tar.gz' -> 'run_dir'."""
    base = Path(name).name
    for suffix in ARCHIVE_SUFFIXES:
        if base.lower().endswith(suffix):
            return base[: -len(suffix)] or "archive"
    return Path(base).stem or "archive"


def sources_of(form: ReceivedForm, recv_dir: Path, work: Path, settings: Settings
               ) -> list[tuple[Path, str]]:
    """(path to ingest, name to show) for every source of the upload. Archives are unpacked
    (and their packed copy removed) so `recv_dir` ends with the plain files only."""
    archives, plain = [], []
    for f in form.files:
        (archives if archive_kind(f.path) else plain).append(f)
    sources: list[tuple[Path, str]] = []
    if len(plain) == 1:
        sources.append((plain[0].path, plain[0].name))
    elif plain:
        sources.append((recv_dir, "upload"))
    for i, f in enumerate(archives):
        dest = work / "unpacked" / str(i) / archive_stem(f.name)
        extract_archive(f.path, dest, display_name=f.name,
                        max_members=settings.max_archive_members,
                        max_bytes=settings.max_unpacked_bytes)
        f.path.unlink(missing_ok=True)
        entries = list(dest.iterdir())
        root = entries[0] if len(entries) == 1 and entries[0].is_dir() else dest
        sources.append((root, f.name))
    return sources


def diagnose_upload(form: ReceivedForm, recv_dir: Path, work: Path, settings: Settings
                    ) -> list[DiagnosedRun]:
    """Ingest and diagnose every source of an upload (blocking: run it in a worker thread)."""
    out: list[DiagnosedRun] = []
    for path, name in sources_of(form, recv_dir, work, settings):
        base = path.parent
        try:
            result = _relative(ingest(path, display_name=name), base)
        except LossForensicsError as exc:
            raise _relative_error(exc, base) from exc
        out += diagnose_result(result, max_points=settings.max_points_per_run)
    return out


def _rel(value: str | None, base: Path) -> str | None:
    if value is None:
        return None
    prefix = str(base) + "/"
    return value.replace(prefix, "")


def _relative(result: IngestResult, base: Path) -> IngestResult:
    warnings = [dataclasses.replace(w, file=_rel(w.file, base),
                                    message=_rel(w.message, base) or "")
                for w in result.warnings]
    return IngestResult(frame=result.frame, warnings=warnings, format=result.format,
                        files=[_rel(str(f), base) or "" for f in result.files])


def _relative_error(exc: LossForensicsError, base: Path) -> LossForensicsError:
    out = type(exc)(_rel(exc.message, base) or "", file=_rel(exc.file, base), line=exc.line,
                    byte=exc.byte)
    return out


def remove_tree(path: Path) -> None:
    shutil.rmtree(path, ignore_errors=True)
