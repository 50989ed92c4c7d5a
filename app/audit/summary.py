"""The whole audit as one value: runs sorted by severity, counts per label, the causes that
dominate, the hyper-parameter effects, and what discovery could not read. Every output format
(table, JSON, CSV, HTML) renders this, so they never disagree."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field

from lossforensics.audit.sweep import HparamEffect, find_effects
from lossforensics.audit.worker import ERROR, RunAudit
from lossforensics.classifiers.labels import severity_rank
from lossforensics.discover import Problem

# verdicts that are no finding: not repeated among the labels found
_NO_FINDING = ("healthy", "inconclusive")


def severity_key(r: RunAudit) -> tuple:
    """Most severe verdict first, then the most confident, then by name; errors last."""
    return (r.verdict == ERROR, severity_rank(r.verdict), -(r.confidence or 0.0), r.name)


def _by_severity(counts: Counter[str]) -> dict[str, int]:
    """Counts keyed by label, most severe first, 'error' last."""
    return dict(
        sorted(counts.items(), key=lambda kv: (kv[0] == ERROR, severity_rank(kv[0]), kv[0]))
    )


@dataclass
class AuditSummary:
    root: str
    runs: list[RunAudit]
    problems: list[Problem] = field(default_factory=list)
    effects: list[HparamEffect] = field(default_factory=list)
    seconds: float = 0.0

    @classmethod
    def build(
        cls,
        root: str,
        runs: Iterable[RunAudit],
        problems: Iterable[Problem] = (),
        seconds: float = 0.0,
    ) -> AuditSummary:
        ordered = sorted(runs, key=severity_key)
        readable = [r for r in ordered if r.diagnosis is not None]
        effects = find_effects((r.labels, r.hparams) for r in readable)
        return cls(root, ordered, list(problems), effects, seconds)

    @property
    def failed(self) -> list[RunAudit]:
        return [r for r in self.runs if r.diagnosis is None]

    def label_counts(self) -> dict[str, int]:
        """Runs carrying each label (any finding, not only the verdict), most severe first;
        'healthy', 'inconclusive' and 'error' count verdicts."""
        counts: Counter[str] = Counter()
        for r in self.runs:
            if r.diagnosis is None:
                counts[ERROR] += 1
            elif not r.labels:
                counts[r.verdict] += 1  # healthy, or inconclusive when nothing could judge
            else:
                counts.update(set(r.labels))
        return _by_severity(counts)

    def dominant_causes(self, top: int = 8) -> list[tuple[str, str, int]]:
        """(label, top-ranked cause, runs) across the sweep, most frequent first."""
        counts: Counter[tuple[str, str]] = Counter()
        for r in self.runs:
            if r.diagnosis is None:
                continue
            for f in r.diagnosis.findings:
                if f.causes:
                    counts[(f.label, min(f.causes, key=lambda c: c.rank).cause)] += 1
        ranked = sorted(counts.items(), key=lambda kv: (-kv[1], severity_rank(kv[0][0]), kv[0]))
        return [(label, cause, n) for (label, cause), n in ranked[:top]]

    def runs_with(self, labels: Iterable[str]) -> list[RunAudit]:
        """Runs carrying any of `labels` ('error' matches runs that could not be read,
        'inconclusive' runs that no check could judge)."""
        wanted = set(labels)
        return [r for r in self.runs if wanted & {r.verdict, *r.labels}]

    def verdict_counts(self) -> dict[str, int]:
        """Runs by verdict (each run once), most severe first; 'error' for unreadable runs."""
        return _by_severity(Counter(ERROR if r.diagnosis is None else r.verdict for r in self.runs))

    def headline(self) -> str:
        """Runs by verdict (the counts add up to the runs); when some run carries labels beside
        its verdict, the runs with each label follow, so a secondary finding is not lost."""
        total = len(self.runs)
        verdicts = self.verdict_counts()
        line = f"{total:,} run{'s' if total != 1 else ''} by verdict: " + ", ".join(
            f"{n:,} {label}" for label, n in verdicts.items()
        )
        found = {k: n for k, n in self.label_counts().items() if k not in (ERROR, *_NO_FINDING)}
        if any(found.get(k, 0) != verdicts.get(k, 0) for k in found):
            line += "; runs with each label: " + ", ".join(f"{n:,} {k}" for k, n in found.items())
        return line
