"""The functions `import lossforensics as lf` exposes: load_run, diagnose, audit.

Each one is a thin door onto the piece that does the work (lossforensics.ingest,
lossforensics.local, lossforensics.classifiers, lossforensics.audit), so a notebook, the CLI
and the service all reach the same code.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lossforensics.ingest import load_run
from lossforensics.ingest.base import IngestResult

if TYPE_CHECKING:
    from lossforensics.audit.summary import AuditSummary
    from lossforensics.display import Diagnoses, Diagnosis

__all__ = ["IngestResult", "audit", "diagnose", "load_run"]


def diagnose(
    source: str | os.PathLike[str] | Any,
    *,
    format: str | None = None,
    roles: Mapping[str, str] | None = None,
    as_list: bool = False,
) -> Diagnosis | Diagnoses:
    """Diagnose a path (a log file, a run folder, a folder of runs) or a normalised frame.

    A frame is the long form of lossforensics.classifiers.frame (one row per point, as
    `load_run(...).frame` returns it). One run gives a `Diagnosis`; several give a
    `Diagnoses` list (always a list with `as_list=True`). Both render as HTML in Jupyter.
    """
    if isinstance(source, str | os.PathLike):
        from lossforensics.local import diagnose_path

        return diagnose_path(Path(source), format=format, roles=roles, as_list=as_list)
    from lossforensics.local import diagnose_frame

    out = diagnose_frame(source)
    return out if as_list or len(out) != 1 else out[0]


def audit(
    folder: str | os.PathLike[str], *, jobs: int | None = None, dask: str | None = None
) -> AuditSummary:
    """Diagnose every run under `folder` (in a process pool, or on a Dask cluster given its
    scheduler address) and return the summary, most severe first."""
    from lossforensics.audit.audit import audit as run

    return run(Path(folder), jobs=jobs, dask=dask)
