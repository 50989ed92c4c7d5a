"""confirm: run the probes a diagnosis points at, on the user's own model, and re-rank its
causes by what they found.

    >>> result = confirm(diagnosis, model_fn=make_model, data=loader,
    ...                  loss_fn=F.cross_entropy, optimizer_fn=lambda p: AdamW(p, lr=3e-3),
    ...                  steps=200, device="cuda")

For each finding, the `top` best-ranked causes that name a probe are probed (each probe runs
once, however many causes name it, up to `max_probes` and an optional time budget). Every cause
of every finding comes back with a verdict: confirmed / refuted / inconclusive from its probe,
or untested (no probe, over the budget, or the probe failed: the reason is given). Within a
finding, confirmed causes move to the top and refuted ones to the bottom; ties keep the
playbook's order.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lossforensics.classifiers.diagnosis import Cause, Diagnosis
from lossforensics.classifiers.errors import ProbeError
from lossforensics.probes._torch import require_torch
from lossforensics.probes.registry import REGISTRY
from lossforensics.probes.result import CONFIRMED, INCONCLUSIVE, REFUTED, ProbeResult, json_safe
from lossforensics.probes.setup import ProbeSetup

UNTESTED = "untested"
_ORDER = {CONFIRMED: 0, INCONCLUSIVE: 1, UNTESTED: 1, REFUTED: 2}


@dataclass(frozen=True)
class CheckedCause:
    """One cause of one finding, with the verdict its probe gave."""

    finding: str
    rank: int
    original_rank: int
    cause: str
    score: float
    probe: str | None
    verdict: str
    summary: str
    checks: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "finding": self.finding,
            "rank": self.rank,
            "original_rank": self.original_rank,
            "cause": self.cause,
            "score": round(float(self.score), 4),
            "probe": self.probe,
            "verdict": self.verdict,
            "summary": self.summary,
            "checks": list(self.checks),
        }


@dataclass(frozen=True)
class CheckedFinding:
    label: str
    confidence: float
    causes: tuple[CheckedCause, ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            "label": self.label,
            "confidence": round(float(self.confidence), 4),
            "causes": [c.to_dict() for c in self.causes],
        }


@dataclass
class Confirmation:
    """What `confirm` found: the findings' causes re-ranked, the probes' results, and what did
    not run and why."""

    run: str
    findings: list[CheckedFinding]
    results: dict[str, ProbeResult]
    not_run: dict[str, str] = field(default_factory=dict)
    log_dir: str = ""
    device: str = "cpu"
    seconds: float = 0.0

    @property
    def causes(self) -> list[CheckedCause]:
        return [c for f in self.findings for c in f.causes]

    def confirmed(self) -> list[CheckedCause]:
        return [c for c in self.causes if c.verdict == CONFIRMED]

    def to_dict(self) -> dict[str, Any]:
        return json_safe(
            {
                "run": self.run,
                "device": self.device,
                "seconds": round(self.seconds, 3),
                "log_dir": self.log_dir,
                "findings": [f.to_dict() for f in self.findings],
                "probes": {name: r.to_dict() for name, r in self.results.items()},
                "not_run": dict(self.not_run),
            }
        )

    def __repr__(self) -> str:
        head = (
            f"Confirmation of run {self.run!r}: {len(self.results)} probe(s) in "
            f"{self.seconds:.1f} s on {self.device}; logs in {self.log_dir}"
        )
        lines = [head]
        if not self.findings:
            lines.append("  (no findings: nothing to confirm)")
        for f in self.findings:
            lines.append(f"{f.label} (confidence {f.confidence:.2f})")
            for c in f.causes:
                tag = f" [{c.probe}]" if c.probe else ""
                lines.append(f"  {c.rank}. {c.verdict:<12} {c.cause}{tag}")
                if c.summary:
                    lines.append(f"     {c.summary}")
        for name, why in self.not_run.items():
            lines.append(f"not run: {name} ({why})")
        return "\n".join(lines)

    __str__ = __repr__


def plan(diagnosis: Diagnosis, top: int = 2) -> list[str]:
    """The probes to run, in order: the `top` best-ranked probed causes of each finding, deduped."""
    wanted: list[str] = []
    for finding in diagnosis.findings:
        probed = [c for c in sorted(finding.causes, key=lambda c: c.rank) if c.probe in REGISTRY]
        for cause in probed[:top]:
            if cause.probe is not None and cause.probe not in wanted:
                wanted.append(cause.probe)
    return wanted


def confirm(
    diagnosis: Diagnosis | Mapping[str, Any],
    model_fn: Callable[[], Any] | None = None,
    data: Iterable[Any] | None = None,
    loss_fn: Callable[[Any, Any], Any] | None = None,
    optimizer_fn: Callable[[Any], Any] | None = None,
    steps: int = 200,
    device: str | None = None,
    *,
    model: Any = None,
    optimizer: Any = None,
    top: int = 2,
    max_probes: int = 6,
    time_budget_s: float | None = None,
    log_dir: str | Path | None = None,
    seed: int = 0,
    options: Mapping[str, Mapping[str, Any]] | None = None,
) -> Confirmation:
    """Run the probes `diagnosis` names on the user's model and re-rank its causes.

    `device` defaults to the device of `model` when given, else the CPU. `options` passes
    keyword arguments to single probes ({"lr_drop": {"factors": (10,)}}).
    The user's `model`/`optimizer`, when given, are inspected and left exactly as they were.
    """
    require_torch()
    diag = _as_diagnosis(diagnosis)
    if data is None or loss_fn is None:
        raise ProbeError(
            "give data (a DataLoader or a list of (x, y) batches) and loss_fn "
            "(e.g. torch.nn.functional.cross_entropy)"
        )
    setup = ProbeSetup(
        model_fn, data, loss_fn, optimizer_fn, steps, device, seed, model, optimizer, log_dir
    )
    start = time.perf_counter()
    results: dict[str, ProbeResult] = {}
    not_run: dict[str, str] = {}
    for name in plan(diag, top):
        if len(results) >= max_probes:
            not_run[name] = f"over the budget of {max_probes} probe(s)"
        elif time_budget_s is not None and time.perf_counter() - start > time_budget_s:
            not_run[name] = f"over the time budget of {time_budget_s:g} s"
        else:
            try:
                results[name] = REGISTRY[name].run(setup, **dict((options or {}).get(name, {})))
            except ProbeError as exc:
                not_run[name] = f"failed: {exc}"
    findings = [
        CheckedFinding(f.label, f.confidence, _rerank(f.label, f.causes, results, not_run))
        for f in diag.findings
    ]
    return Confirmation(
        diag.run,
        findings,
        results,
        not_run,
        str(setup.log_dir),
        str(setup.torch_device),
        time.perf_counter() - start,
    )


def _as_diagnosis(diagnosis: Diagnosis | Mapping[str, Any]) -> Diagnosis:
    if isinstance(diagnosis, Diagnosis):
        return diagnosis
    if isinstance(diagnosis, Mapping):
        try:
            return Diagnosis.from_dict(dict(diagnosis))
        except (KeyError, TypeError, ValueError) as exc:
            raise ProbeError(f"not a Diagnosis dict: {type(exc).__name__}: {exc}") from None
    raise ProbeError(f"confirm needs a Diagnosis (or its dict), got {type(diagnosis).__name__}")


def _rerank(
    label: str, causes: Iterable[Cause], results: dict[str, ProbeResult], not_run: dict[str, str]
) -> tuple[CheckedCause, ...]:
    checked = []
    for c in causes:
        if c.probe in results:
            result = results[c.probe]
            verdict = REGISTRY[c.probe].verdict_for(result, c.cause)
            summary = result.summary
        else:
            verdict = UNTESTED
            summary = (
                "no probe automates this check"
                if c.probe is None
                else f"unknown probe {c.probe!r}"
                if c.probe not in REGISTRY
                else not_run.get(c.probe, "not among the top causes probed")
            )
        checked.append((c, verdict, summary))
    checked.sort(key=lambda t: (_ORDER[t[1]], t[0].rank))
    return tuple(
        CheckedCause(label, i, c.rank, c.cause, c.score, c.probe, v, s, c.checks)
        for i, (c, v, s) in enumerate(checked, start=1)
    )
