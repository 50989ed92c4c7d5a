"""What the store hands out: a stored run's metadata and diagnosis, and a page of them."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pandas as pd
from lossforensics.classifiers.diagnosis import Diagnosis


@dataclass(frozen=True)
class NewRun:
    """One run about to be stored: its frame (one run only) and its diagnosis."""

    name: str
    frame: pd.DataFrame
    diagnosis: Diagnosis
    format: str | None = None
    files: list[str] = field(default_factory=list)
    origin: str | None = None


@dataclass(frozen=True)
class RunRecord:
    """A stored run as the database holds it."""

    id: str
    project: str
    name: str
    created_at: float
    diagnosed_at: float
    format: str | None
    files: list[str]
    points: int
    verdict: str
    labels: list[str]
    diagnosis: dict[str, Any]
    origin: str | None = None

    def diagnosis_obj(self) -> Diagnosis:
        d = Diagnosis.from_dict(self.diagnosis)
        d.id = self.id
        return d

    def summary(self) -> dict[str, Any]:
        """Everything but the diagnosis body (what a listing returns)."""
        return {
            "id": self.id,
            "name": self.name,
            "project": self.project,
            "created_at": self.created_at,
            "diagnosed_at": self.diagnosed_at,
            "format": self.format,
            "files": list(self.files),
            "points": self.points,
            "verdict": self.verdict,
            "labels": list(self.labels),
            "findings": len(self.diagnosis.get("findings") or []),
            "last_step": last_step(self.diagnosis),
        }

    def to_dict(self) -> dict[str, Any]:
        return {**self.summary(), "diagnosis": {"id": self.id, **self.diagnosis}}


@dataclass(frozen=True)
class RunPage:
    items: list[RunRecord]
    total: int
    limit: int
    offset: int


def last_step(diagnosis: dict[str, Any]) -> int | None:
    """The last step any metric reached, from a stored diagnosis body."""
    steps = [m.get("last_step") for m in diagnosis.get("metrics") or []]
    known = [int(s) for s in steps if s is not None]
    return max(known) if known else None


def labels_of(diagnosis: Diagnosis) -> list[str]:
    """The labels a run is filed under: its findings' labels, or its verdict ('healthy')."""
    labels = sorted({f.label for f in diagnosis.findings})
    return labels or [diagnosis.verdict]
