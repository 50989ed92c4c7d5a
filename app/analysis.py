"""Read a source and diagnose it, with one crash policy, for every way in: the CLI's
`diagnose`, the audit's workers, the store's pipeline (uploads, samples) and the local API.

    result, diagnoses = diagnose_source("runs/exp7")   # IngestResult, one Diagnosis per run

The policy, the same everywhere:

- the project's typed errors (lossforensics.classifiers.errors: NoLogsFoundError,
  EmptyInputError, UnknownFormatError, ...) pass through unchanged, and so does MemoryError;
- any other exception from a reader (a bug met on hostile bytes) becomes a CorruptInputError
  naming the file, its traceback logged on the `lossforensics.ingest` logger;
- a source that yields no points is an EmptyInputError saying what the reader saw;
- a classifier that raises costs only its own label (`diagnose_all`, not strict): the run's
  other labels still come back.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from lossforensics.classifiers.errors import CorruptInputError, EmptyInputError, LossForensicsError

if TYPE_CHECKING:
    from lossforensics.classifiers.diagnosis import Diagnosis
    from lossforensics.ingest.base import IngestResult

log = logging.getLogger("lossforensics.ingest")


def read_source(
    path: str | os.PathLike[str],
    *,
    format: str | None = None,
    roles: Mapping[str, str] | None = None,
    run: str | None = None,
    display_name: str | None = None,
) -> IngestResult:
    """`ingest.load_run` under the crash policy: typed errors pass through; a reader crash is a
    CorruptInputError naming `display_name` (the name the user knows: an upload's file name,
    '<stdin>') or the path."""
    from lossforensics.ingest import load_run

    try:
        return load_run(Path(path), format=format, roles=roles, run=run)
    except (LossForensicsError, MemoryError):
        raise
    except Exception as exc:
        log.exception("reader failed on %s", path)
        raise CorruptInputError(
            f"unreadable input ({type(exc).__name__}: {exc})",
            file=display_name or os.fspath(path),
        ) from exc


def diagnose_read(result: IngestResult, *, display_name: str | None = None) -> list[Diagnosis]:
    """One Diagnosis per run of a read source (reader warnings ride along in each);
    EmptyInputError when it holds no point, e.g. a TensorBoard file of graphs or images."""
    from lossforensics.classifiers.diagnose import diagnose_all

    if not len(result.frame):
        seen = "; ".join(w.message for w in result.warnings[:5]) or "no scalar values"
        where = display_name or (result.files[0] if result.files else None)
        raise EmptyInputError(
            f"no readable scalars ({result.format or 'unknown format'}): {seen}", file=where
        )
    return diagnose_all(result.frame, source=result.source, warnings=list(result.warnings))


def diagnose_source(
    path: str | os.PathLike[str],
    *,
    format: str | None = None,
    roles: Mapping[str, str] | None = None,
    run: str | None = None,
    display_name: str | None = None,
) -> tuple[IngestResult, list[Diagnosis]]:
    """Read `path` and diagnose every run in it, under the module's one crash policy."""
    shown = display_name or os.fspath(path)
    result = read_source(path, format=format, roles=roles, run=run, display_name=shown)
    return result, diagnose_read(result, display_name=shown)
