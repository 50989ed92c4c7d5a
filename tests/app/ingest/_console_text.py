"""Console text read as a pasted log, and what the tests of one style ask of the frame: each
metric's role, and one metric's steps and values in the order printed."""

from __future__ import annotations

import io

from lossforensics.ingest.base import IngestResult
from lossforensics.ingest.console import read_stream


def read_text(text: str, name: str = "pasted") -> IngestResult:
    return read_stream(io.BytesIO(text.encode()), name=name)


def roles_of(result: IngestResult) -> dict[str, str]:
    frame = result.frame
    return dict(zip(frame["metric"], frame["role"].astype(str), strict=False))


def series_of(result: IngestResult, metric: str) -> tuple[list[int], list[float]]:
    frame = result.frame
    part = frame[frame["metric"] == metric].sort_values("seq")
    return part["step"].tolist(), part["value"].tolist()
