"""What every reader returns: the frame, the warnings (with a location), and where it came from."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import pandas as pd
from lossforensics.classifiers.frame import concat_frames


@dataclass(frozen=True)
class ReadWarning:
    """Something a reader skipped or repaired, and where: file, 1-based line, 0-based byte."""

    message: str
    file: str | None = None
    line: int | None = None
    byte: int | None = None

    def __str__(self) -> str:
        parts = [p for p in (self.file,) if p]
        if self.line is not None:
            parts.append(f"line {self.line}")
        if self.byte is not None:
            parts.append(f"byte {self.byte}")
        return f"{', '.join(parts)}: {self.message}" if parts else self.message

    def to_dict(self) -> dict[str, Any]:
        return {"message": self.message, "file": self.file, "line": self.line, "byte": self.byte}


@dataclass
class IngestResult:
    """A normalised frame (possibly several runs) plus what could not be read."""

    frame: pd.DataFrame
    warnings: list[ReadWarning] = field(default_factory=list)
    format: str | None = None
    files: list[str] = field(default_factory=list)
    detail: str | None = None  # what the reader recognised, when the format alone does not say

    @property
    def source(self) -> dict[str, Any]:
        out: dict[str, Any] = {"format": self.format, "files": list(self.files)}
        if self.detail:
            out["detail"] = self.detail
        return out

    @property
    def runs(self) -> list[str]:
        return list(pd.unique(self.frame["run"].astype(str)))

    @classmethod
    def joined(cls, parts: Sequence[IngestResult], *, format: str, detail: str) -> IngestResult:
        """One run read from its parts (a training file and a validation one): their frames,
        warnings and files together."""
        return cls(
            concat_frames([r.frame for r in parts]),
            [w for r in parts for w in r.warnings],
            format=format,
            files=[f for r in parts for f in r.files],
            detail=detail,
        )
