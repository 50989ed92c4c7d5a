"""The Diagnosis JSON, as dataclasses: what the CLI, the API and the client all emit.

    {"run", "source": {"format", "files"}, "metrics": [...], "verdict",
     "findings": [{"label", "confidence", "span": {"start_step", "end_step"}, "evidence",
                   "summary", "causes": [{"rank", "cause", "score", "checks", "probe"}]}],
     "skipped": [{"label", "reason"}], "set_aside": [{"label", "reason"}], "warnings": [str]}

`verdict` is the first finding's label (the most severe of those with a confidence of at least
one half, unless classifiers.explains.LEADS puts a cause first), `"healthy"` when the checks that
could judge the run found nothing, or `"inconclusive"` when no check could judge how the loss went
(too few points, no loss logged; `skipped` says why and a warning says so): never `"healthy"` by
default.
classifiers.labels.VERDICTS lists every value. A finding another one explains is not in
`findings`: it sits in the explaining finding's evidence under `explains`. `set_aside` lists the
signs a check saw and judged benign, each with why (a NaN at the first evaluation only, a step
up in a loss that was redefined): a verdict is never silent on a NaN or a jump a user can see
in the log.

`to_dict()` gives exactly that shape with JSON-safe values (non-finite evidence becomes null);
`from_dict()` reads it back. A service-side `id` may ride along (the API sets it; the core does
not).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import Any

from lossforensics.classifiers.numbers import round_sig

# confidences and cause scores are written with 4 decimals: finer than any threshold, and stable
# across platforms' last-bit float differences
SCORE_DECIMALS = 4


def _json_safe(value: Any) -> Any:
    """numpy scalars -> Python; NaN/inf -> None; containers recursively."""
    if isinstance(value, dict):
        return {str(k): _json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_json_safe(v) for v in value]
    if type(value).__module__ == "numpy" and hasattr(value, "item"):
        value = value.item()  # a numpy scalar
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def _rounded(value: Any) -> Any:
    """Evidence floats to meaningful digits (19.999999999999996 -> 20.0), recursively."""
    if isinstance(value, dict):
        return {k: _rounded(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_rounded(v) for v in value]
    return round_sig(value) if isinstance(value, float) else value


@dataclass(frozen=True)
class Span:
    start_step: int
    end_step: int

    def to_dict(self) -> dict[str, int]:
        return {"start_step": int(self.start_step), "end_step": int(self.end_step)}


@dataclass(frozen=True)
class Cause:
    rank: int
    cause: str
    score: float
    checks: tuple[str, ...]
    probe: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "rank": self.rank,
            "cause": self.cause,
            "score": round(float(self.score), SCORE_DECIMALS),
            "checks": list(self.checks),
            "probe": self.probe,
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Cause:
        return cls(
            int(d["rank"]),
            str(d["cause"]),
            float(d["score"]),
            tuple(d.get("checks", ())),
            d.get("probe"),
        )


@dataclass(frozen=True)
class Finding:
    label: str
    confidence: float
    span: Span | None
    evidence: dict[str, Any]
    summary: str
    causes: tuple[Cause, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "label": self.label,
            "confidence": round(float(self.confidence), SCORE_DECIMALS),
            "span": None if self.span is None else self.span.to_dict(),
            "evidence": _rounded(_json_safe(dict(self.evidence))),
            "summary": self.summary,
            "causes": [c.to_dict() for c in self.causes],
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Finding:
        span = d.get("span")
        return cls(
            str(d["label"]),
            float(d["confidence"]),
            None if span is None else Span(int(span["start_step"]), int(span["end_step"])),
            dict(d.get("evidence") or {}),
            str(d.get("summary", "")),
            tuple(Cause.from_dict(c) for c in d.get("causes", ())),
        )


@dataclass(frozen=True)
class LabelNote:
    """A label and a sentence about it: the shape of `skipped` and `set_aside` entries."""

    label: str
    reason: str

    def to_dict(self) -> dict[str, str]:
        return {"label": self.label, "reason": self.reason}


@dataclass(frozen=True)
class Skipped(LabelNote):
    """A label its check could not judge on this run, and why (Classifier.skip_reason)."""


@dataclass(frozen=True)
class SetAside(LabelNote):
    """A sign of `label` that its check saw and judged benign, and why (Classifier.set_aside)."""


@dataclass(frozen=True)
class MetricInfo:
    metric: str
    role: str
    points: int
    first_step: int | None
    last_step: int | None

    def to_dict(self) -> dict[str, Any]:
        return {
            "metric": self.metric,
            "role": self.role,
            "points": int(self.points),
            "first_step": None if self.first_step is None else int(self.first_step),
            "last_step": None if self.last_step is None else int(self.last_step),
        }


@dataclass
class Diagnosis:
    run: str
    verdict: str
    findings: list[Finding] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)
    metrics: list[MetricInfo] = field(default_factory=list)
    source: dict[str, Any] = field(default_factory=lambda: {"format": None, "files": []})
    warnings: list[str] = field(default_factory=list)
    set_aside: list[SetAside] = field(default_factory=list)
    id: str | None = None

    @property
    def labels(self) -> list[str]:
        return [f.label for f in self.findings]

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        if self.id is not None:
            out["id"] = self.id
        out.update(
            {
                "run": self.run,
                "source": _json_safe(self.source),
                "metrics": [m.to_dict() for m in self.metrics],
                "verdict": self.verdict,
                "findings": [f.to_dict() for f in self.findings],
                "skipped": [s.to_dict() for s in self.skipped],
                "set_aside": [s.to_dict() for s in self.set_aside],
                "warnings": [str(w) for w in self.warnings],
            }
        )
        return out

    def to_json(self, **kwargs: Any) -> str:
        return json.dumps(self.to_dict(), **kwargs)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Diagnosis:
        return cls(
            run=str(d["run"]),
            verdict=str(d["verdict"]),
            findings=[Finding.from_dict(f) for f in d.get("findings", ())],
            skipped=[Skipped(s["label"], s["reason"]) for s in d.get("skipped", ())],
            metrics=[
                MetricInfo(
                    m["metric"], m["role"], m["points"], m.get("first_step"), m.get("last_step")
                )
                for m in d.get("metrics", ())
            ],
            source=dict(d.get("source") or {"format": None, "files": []}),
            warnings=[str(w) for w in d.get("warnings", ())],
            set_aside=[SetAside(s["label"], s["reason"]) for s in d.get("set_aside", ())],
            id=d.get("id"),
        )
