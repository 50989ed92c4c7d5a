"""From a path on disk to stored, diagnosed runs; and re-diagnosing what is stored.

Shared by the HTTP API (uploads), `serve --with-samples` and `lossforensics rediagnose`, so the
three paths ingest, split, limit and diagnose a run the same way.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
from lossforensics.analysis import diagnose_read, read_source
from lossforensics.classifiers.diagnosis import Diagnosis
from lossforensics.classifiers.errors import EmptyInputError, LimitExceededError, LossForensicsError
from lossforensics.ingest.base import IngestResult
from lossforensics.store.records import NewRun, RunRecord
from lossforensics.store.runs import RunStore

log = logging.getLogger("lossforensics.store")


@dataclass(frozen=True)
class DiagnosedRun:
    """One run of an ingested source with its diagnosis, ready to store or return."""

    name: str
    frame: pd.DataFrame
    diagnosis: Diagnosis
    result: IngestResult


def ingest(path: Path, *, display_name: str | None = None) -> IngestResult:
    """`analysis.read_source` (the one crash policy), errors naming `display_name` or the file's
    name, never the server's temporary path."""
    return read_source(path, display_name=display_name or path.name)


def split_runs(result: IngestResult, *, max_points: int) -> list[tuple[str, pd.DataFrame]]:
    """The result's frame cut into one frame per run, each checked against the points limit."""
    frame = result.frame
    runs = frame["run"].astype(str)
    names = pd.unique(runs)
    out = []
    for name in names:
        part = frame[runs == name] if len(names) > 1 else frame
        if len(part) > max_points:
            raise LimitExceededError(
                f"run {name!r} has {len(part)} points; the limit is {max_points}",
                file=result.files[0] if result.files else None,
            )
        out.append((str(name), part.reset_index(drop=True)))
    return out


def diagnose_result(result: IngestResult, *, max_points: int) -> list[DiagnosedRun]:
    """Diagnose every run of an ingested source (one Diagnosis per run)."""
    parts = split_runs(result, max_points=max_points)  # limits first, before any analysis
    if not parts:
        raise EmptyInputError(
            "no points found in the logs", file=result.files[0] if result.files else None
        )
    diags = diagnose_read(result)
    return [DiagnosedRun(name, part, _one(diags, name), result) for name, part in parts]


def _one(diags: Sequence[Diagnosis], name: str) -> Diagnosis:
    """The diagnosis of run `name` among those returned for a one-run frame."""
    return next((d for d in diags if d.run == name), diags[0])


def to_new_runs(diagnosed: Sequence[DiagnosedRun], *, origin: str | None = None) -> list[NewRun]:
    out = []
    for i, d in enumerate(diagnosed):
        run_origin = None if origin is None else (origin if i == 0 else f"{origin}#{d.name}")
        out.append(
            NewRun(
                name=d.name,
                frame=d.frame,
                diagnosis=d.diagnosis,
                format=d.result.format,
                files=list(d.result.files),
                origin=run_origin,
            )
        )
    return out


def rediagnose(store: RunStore, project: str, run_id: str) -> RunRecord:
    """Diagnose a stored run again from its stored frame (the classifiers may have changed)."""
    from lossforensics.classifiers.diagnose import diagnose_all

    record = store.get(project, run_id)
    frame = store.frame(project, run_id)
    old = record.diagnosis
    diags = diagnose_all(frame, source=old.get("source"), warnings=list(old.get("warnings", [])))
    return store.replace_diagnosis(project, run_id, _one(diags, record.name))


def rediagnose_all(store: RunStore) -> list[tuple[RunRecord, str]]:
    """Every stored run diagnosed again; (new record, previous verdict) each."""
    out = []
    for project, run_id in store.iter_ids():
        before = store.get(project, run_id).verdict
        out.append((rediagnose(store, project, run_id), before))
    return out


def load_samples(
    store: RunStore, samples_dir: Path, projects: Sequence[str], *, max_points: int
) -> list[RunRecord]:
    """Store every run under `samples_dir/<name>/` in each project, once: a sample already stored
    (same origin) is skipped, so loading at every start is idempotent. A sample that cannot be
    read is logged and skipped, never fatal."""
    stored: list[RunRecord] = []
    if not samples_dir.is_dir():
        log.warning("no sample runs at %s", samples_dir)
        return stored
    for sample in sorted(p for p in samples_dir.iterdir() if p.is_dir()):
        origin = f"sample:{sample.name}"
        todo = [p for p in projects if not store.has_origin(p, origin)]
        if not todo:
            continue
        try:
            diagnosed = diagnose_result(ingest(sample), max_points=max_points)
        except LossForensicsError as exc:
            log.warning("sample %s skipped: %s", sample.name, exc)
            continue
        for project in todo:
            try:
                stored += store.add(project, to_new_runs(diagnosed, origin=origin))
            except Exception as exc:  # a concurrent worker stored it first (unique origin)
                if not store.has_origin(project, origin):
                    raise
                log.info("sample %s already stored by another worker (%s)", sample.name, exc)
    return stored
