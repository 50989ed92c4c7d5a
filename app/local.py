"""`diagnose_path`: what the service does with an upload, done locally, no server.

    >>> from lossforensics import diagnose_path
    >>> d = diagnose_path("runs/exp7")        # one run  -> lossforensics.display.Diagnosis
    >>> ds = diagnose_path("sweep/")          # several  -> lossforensics.display.Diagnoses (a list)

Return type, precisely: when the path holds exactly one run, a `Diagnosis` (renders as HTML
with its plot in Jupyter); when it holds several (a W&B export with 8 runs, a sweep folder), a
`Diagnoses` list with one `Diagnosis` per run, sorted by run name. `as_list=True` always returns
a `Diagnoses`, which is what code that must handle both should use.

A path that is itself a run (a file, a TensorBoard or MLflow run directory) is read with
`ingest.load_run`; a folder of runs is walked with `discover` first. Errors are the
project's typed errors; in a folder of runs, a run that cannot be read is skipped with a Python
warning naming it, and the others are still returned.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Mapping
from pathlib import Path

import pandas as pd
from lossforensics.classifiers.errors import LossForensicsError, NoLogsFoundError
from lossforensics.discover import Discovery, discover_runs
from lossforensics.display import Diagnoses, Diagnosis

PLOT_SIZE = (900, 420)
PLOT_POINTS = 4000  # points per metric kept for the inline plot


def diagnose_path(
    path: str | os.PathLike[str],
    *,
    format: str | None = None,
    roles: Mapping[str, str] | None = None,
    as_list: bool = False,
) -> Diagnosis | Diagnoses:
    """Read the logs at `path`, diagnose every run, return Diagnosis objects (see module doc
    for when it is one `Diagnosis` and when a `Diagnoses` list)."""
    p = Path(path).expanduser()
    found = discover_runs(p) if p.is_dir() and format is None and roles is None else None
    if found is None or _is_single_run(found, p):
        out = _diagnose_one(p, format=format, roles=roles)
    elif not found.sources:
        raise NoLogsFoundError("no training logs found", file=str(p))
    else:
        out = Diagnoses()
        for source in found.sources:
            try:
                got = _diagnose_one(
                    Path(source.path), format=source.format, roles=None, name=source.name
                )
            except LossForensicsError as exc:
                warnings.warn(f"skipped {source.name}: {exc}", stacklevel=2)
                continue
            out.extend(got)
        out = Diagnoses(sorted(out, key=lambda d: d.run))
    if as_list or len(out) != 1:
        return out
    return out[0]


def _is_single_run(found: Discovery, p: Path) -> bool:
    return len(found.sources) == 1 and Path(found.sources[0].path) == p


def _diagnose_one(
    p: Path, *, format: str | None, roles: Mapping[str, str] | None, name: str | None = None
) -> Diagnoses:
    from lossforensics.analysis import diagnose_source

    result, diagnoses = diagnose_source(p, format=format, roles=roles)
    return _wrap(result.frame, diagnoses, name)


def diagnose_frame(frame: pd.DataFrame) -> Diagnoses:
    """Diagnose a normalised frame already in memory (one Diagnosis per run, with its plot)."""
    from lossforensics.classifiers.diagnose import diagnose_all
    from lossforensics.classifiers.frame import validate_frame

    frame = validate_frame(frame)
    return _wrap(frame, diagnose_all(frame, source={"format": "frame"}), None)


def _wrap(full: pd.DataFrame, diagnoses: list, name: str | None) -> Diagnoses:
    from lossforensics.audit.worker import thin_frame

    several = len(diagnoses) > 1
    out = Diagnoses()
    for d in diagnoses:
        frame = thin_frame(full, d.run, PLOT_POINTS)
        wrapped = Diagnosis.wrap(d, _plotter(frame))
        if name is not None:
            wrapped.run = f"{name}#{d.run}" if several else name
        out.append(wrapped)
    return out


def _plotter(frame: pd.DataFrame):
    def plot(diagnosis: Diagnosis) -> bytes | None:
        from lossforensics.report.plot import plot_run

        return plot_run(frame, diagnosis, size=PLOT_SIZE)

    return plot
