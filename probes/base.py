"""The probe contract: one function per check, registered under its name from
classifiers.labels.PROBES, returning an Outcome that the wrapper turns into a ProbeResult.

The wrapper is what makes every probe safe to point at a live model: it imports torch (or fails
with the install hint), snapshots the model, optimizer and RNG state the caller gave, times the
probe, and restores everything afterwards, even on failure.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from lossforensics.classifiers.errors import ProbeError
from lossforensics.classifiers.labels import PROBES
from lossforensics.probes._torch import require_torch
from lossforensics.probes.result import ProbeResult
from lossforensics.probes.setup import ProbeSetup
from lossforensics.probes.state import preserved


class Outcome(NamedTuple):
    verdict: str
    summary: str
    numbers: dict[str, Any]
    runs: dict[str, dict[str, Any]] | None = None


Judge = Callable[[ProbeResult, str], str]


@dataclass(frozen=True)
class ProbeSpec:
    """A registered probe: what it asks, what its verdict is about, how to run it, and how to
    read its result for a cause worded differently from its own hypothesis."""

    name: str
    question: str
    hypothesis: str
    run: Callable[..., ProbeResult]
    judge: Judge | None = field(default=None)

    def verdict_for(self, result: ProbeResult, cause: str) -> str:
        return result.verdict if self.judge is None else self.judge(result, cause)


REGISTRY: dict[str, ProbeSpec] = {}


def probe(
    name: str, *, question: str, hypothesis: str, judge: Judge | None = None
) -> Callable[[Callable[..., Outcome]], Callable[..., ProbeResult]]:
    """Register `fn(setup, **options) -> Outcome` as the probe `name`."""
    if name not in PROBES:
        raise ValueError(f"{name!r} is not a probe name in lossforensics.classifiers.labels.PROBES")
    if name in REGISTRY:
        raise ValueError(f"probe {name!r} registered twice")

    def wrap(fn: Callable[..., Outcome]) -> Callable[..., ProbeResult]:
        @functools.wraps(fn)
        def run(setup: ProbeSetup, **options: Any) -> ProbeResult:
            torch = require_torch()
            device = setup.torch_device
            cuda = device.type == "cuda"
            if cuda:  # the probe's own peak GPU memory, reported with its numbers
                torch.cuda.reset_peak_memory_stats(device)
            start = time.perf_counter()
            try:
                with preserved(setup.model, setup.optimizer, cuda=cuda):
                    out = fn(setup, **options)
            except ProbeError as exc:
                raise ProbeError(f"probe {name}: {exc.message}") from exc
            except Exception as exc:  # the user's model, data or loss failed inside the probe
                raise ProbeError(f"probe {name} failed: {type(exc).__name__}: {exc}") from exc
            numbers = dict(out.numbers)
            if cuda:
                numbers["cuda_peak_memory_mb"] = torch.cuda.max_memory_allocated(device) / 2**20
            return ProbeResult(
                name,
                out.verdict,
                hypothesis,
                out.summary,
                numbers,
                dict(out.runs or {}),
                device=str(device),
                seconds=time.perf_counter() - start,
            )

        REGISTRY[name] = ProbeSpec(name, question, hypothesis, run, judge)
        return run

    return wrap


def mentions(text: str, *words: str) -> bool:
    """Whether a cause's wording mentions any of `words` (case-insensitive)."""
    low = text.lower()
    return any(w in low for w in words)
