"""What a probe returns: the verdict on the cause it tests and the numbers behind it."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np


def json_safe(value: Any) -> Any:
    """Plain JSON values: numpy scalars -> Python, NaN/inf -> None, containers recursively."""
    if isinstance(value, dict):
        return {str(k): json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_safe(v) for v in value]
    if isinstance(value, np.ndarray):
        return json_safe(value.tolist())
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


CONFIRMED = "confirmed"
REFUTED = "refuted"
INCONCLUSIVE = "inconclusive"
VERDICTS: tuple[str, ...] = (CONFIRMED, REFUTED, INCONCLUSIVE)


@dataclass(frozen=True)
class ProbeResult:
    """One probe's answer.

    `hypothesis` is the cause the verdict is about (e.g. "the learning rate is too high");
    `numbers` the measurements behind it (JSON-safe after `to_dict`); `runs` names the JSONL
    logs the probe wrote, with the labels the classifiers gave each of them.
    """

    probe: str
    verdict: str
    hypothesis: str
    summary: str
    numbers: dict[str, Any] = field(default_factory=dict)
    runs: dict[str, dict[str, Any]] = field(default_factory=dict)
    device: str = "cpu"
    seconds: float = 0.0

    def __post_init__(self) -> None:
        if self.verdict not in VERDICTS:
            raise ValueError(f"verdict must be one of {VERDICTS}, got {self.verdict!r}")

    def to_dict(self) -> dict[str, Any]:
        return {
            "probe": self.probe,
            "verdict": self.verdict,
            "hypothesis": self.hypothesis,
            "summary": self.summary,
            "numbers": json_safe(dict(self.numbers)),
            "runs": json_safe(dict(self.runs)),
            "device": self.device,
            "seconds": round(float(self.seconds), 3),
        }

    def __repr__(self) -> str:
        return f"<{self.probe}: {self.verdict} - {self.summary}>"
