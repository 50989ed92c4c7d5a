"""What one worker does for one run source: read it, diagnose every run in it, note its
hyper-parameters. Runs in a pool process or on a Dask worker, so it takes and returns plain
picklable values and never raises for a bad run: an unreadable source becomes a RunAudit with
its error, and the audit goes on.
"""

from __future__ import annotations

import gc
import os
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from lossforensics.audit.hparams import hparams_for
from lossforensics.classifiers.diagnosis import Cause, Diagnosis
from lossforensics.classifiers.errors import LossForensicsError
from lossforensics.discover import RunSource

ERROR = "error"  # the verdict shown for a run that could not be read


@dataclass
class RunAudit:
    """One run's audit line: its diagnosis, or the error that stopped it."""

    name: str
    source: RunSource
    diagnosis: Diagnosis | None = None
    error: dict[str, Any] | None = None
    hparams: dict[str, float] = field(default_factory=dict)
    preview: pd.DataFrame | None = None  # a thinned frame, for report thumbnails
    seconds: float = 0.0

    @property
    def verdict(self) -> str:
        return ERROR if self.diagnosis is None else self.diagnosis.verdict

    @property
    def labels(self) -> list[str]:
        return [] if self.diagnosis is None else self.diagnosis.labels

    @property
    def confidence(self) -> float | None:
        if self.diagnosis is None or not self.diagnosis.findings:
            return None
        return float(self.diagnosis.findings[0].confidence)

    @property
    def top_cause(self) -> str:
        cause = self._top_cause()
        return "" if cause is None else cause.cause

    @property
    def first_check(self) -> str:
        cause = self._top_cause()
        return cause.checks[0] if cause is not None and cause.checks else ""

    def _top_cause(self) -> Cause | None:
        if self.diagnosis is None or not self.diagnosis.findings:
            return None
        causes = self.diagnosis.findings[0].causes
        return min(causes, key=lambda c: c.rank) if causes else None

    def to_dict(self) -> dict[str, Any]:
        """The Diagnosis JSON with `run` set to the audit name, plus `path` and `hparams`; a
        failed run keeps the same keys with verdict "error" and an `error` object."""
        if self.diagnosis is not None:
            out = self.diagnosis.to_dict()
        else:
            out = {
                "run": self.name,
                "source": {"format": self.source.format, "files": [self.source.path]},
                "metrics": [],
                "verdict": ERROR,
                "findings": [],
                "skipped": [],
                "set_aside": [],
                "warnings": [],
                "error": self.error,
            }
        out["run"] = self.name
        out["path"] = self.source.path
        if self.source.also:
            out["also"] = list(self.source.also)  # the same run in other formats, not read
        out["hparams"] = dict(self.hparams)
        return out


def prepare_worker() -> None:
    """Run once in each pool process before its first task: import the readers and the
    classifiers, build the registry, then move every object alive into the collector's permanent
    generation (`gc.freeze`), so the full collections that hundreds of runs trigger do not walk
    the imported modules' objects again each time (about 0.5 ms a run of 10k points)."""
    from lossforensics.analysis import diagnose_source  # noqa: F401
    from lossforensics.classifiers.registry import all_classifiers

    all_classifiers()
    gc.freeze()


def audit_source(source: RunSource, preview_points: int = 0) -> list[RunAudit]:
    """Read and diagnose one source; one RunAudit per run it holds (a W&B export holds
    several). `preview_points` > 0 keeps a thinned frame per run for plots."""
    from lossforensics.analysis import diagnose_source

    start = time.perf_counter()
    run_dir = source.path if os.path.isdir(source.path) else os.path.dirname(source.path)
    try:  # the one crash policy: a reader's crash is a CorruptInputError naming the file
        result, diagnoses = diagnose_source(source.path, format=source.format)
    except LossForensicsError as exc:
        return [_failed(source, exc.to_dict(), run_dir, start)]
    several = len(diagnoses) > 1
    elapsed = (time.perf_counter() - start) / len(diagnoses)
    out = []
    for d in diagnoses:
        name = f"{source.name}#{d.run}" if several else source.name
        extra = (d.run,) if several else ()
        preview = thin_frame(result.frame, d.run, preview_points) if preview_points > 0 else None
        out.append(
            RunAudit(
                name, source, d, None, hparams_for(source.name, run_dir, extra), preview, elapsed
            )
        )
    return out


def audit_sources(sources: Sequence[RunSource], preview_points: int = 0) -> list[list[RunAudit]]:
    """audit_source over a batch of sources (one pool task), one result list per source."""
    return [audit_source(source, preview_points) for source in sources]


def _failed(source: RunSource, error: dict[str, Any], run_dir: str, start: float) -> RunAudit:
    return RunAudit(
        source.name,
        source,
        None,
        error,
        hparams_for(source.name, run_dir),
        None,
        time.perf_counter() - start,
    )


def thin_frame(frame: pd.DataFrame, run: str, points: int) -> pd.DataFrame:
    """At most ~`points` rows per metric of one run (an even stride), keeping every non-finite
    value: a thumbnail needs the shape and the NaNs, not 10k points."""
    sub = frame[frame["run"].astype(str) == run]
    if sub.empty:
        return sub
    counts = sub.groupby("metric", observed=True)["metric"].transform("size").to_numpy()
    stride = np.maximum(1, np.ceil(counts / points)).astype(np.int64)
    pos = sub.groupby("metric", observed=True).cumcount().to_numpy()
    keep = (pos % stride == 0) | ~np.isfinite(sub["value"].to_numpy())
    return sub[keep].reset_index(drop=True)
