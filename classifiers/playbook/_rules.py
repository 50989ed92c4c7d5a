"""One candidate cause and the small evidence readers the catalog files use to weigh it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

# The debugging hierarchy, most likely first: ties in score go to the earlier tier.
TIERS: tuple[str, ...] = ("data", "model", "procedure", "hyperparameters")

Evidence = dict[str, Any]


def _no_change(_: Evidence) -> float:
    return 0.0


@dataclass(frozen=True)
class Rule:
    """A candidate cause: prior score, tier, first checks, probe, and an evidence weigher."""

    cause: str
    tier: str
    prior: float
    checks: tuple[str, ...]
    probe: str | None = None
    weigh: Callable[[Evidence], float] = field(default=_no_change)

    def __post_init__(self) -> None:
        if self.tier not in TIERS:
            raise ValueError(f"unknown tier {self.tier!r} for cause {self.cause!r}")

    def score(self, evidence: Evidence) -> float:
        return float(min(1.0, max(0.0, self.prior + self.weigh(evidence))))


def flag(ev: Evidence, key: str) -> bool:
    """A boolean evidence value (missing or null reads as False)."""
    return bool(ev.get(key) or False)


def num(ev: Evidence, key: str, default: float = float("nan")) -> float:
    """A numeric evidence value, NaN when missing or not a number."""
    value = ev.get(key)
    try:
        return float(value) if value is not None else default
    except (TypeError, ValueError):
        return default


def above(ev: Evidence, key: str, threshold: float) -> bool:
    return num(ev, key) > threshold  # NaN compares False: missing evidence moves nothing


def below(ev: Evidence, key: str, threshold: float) -> bool:
    return num(ev, key) < threshold
