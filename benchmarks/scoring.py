"""Scoring a labeller against multi-label truth: per-label precision/recall/F1, macro-F1, the
false-alarm rate on healthy runs, agreement and a confusion table.

A run's truth is a list of labels (the first is its primary label); its prediction is the set of
labels found (the empty set means `healthy`). Both are normalised so that `healthy` stands for
"no pathology".

Agreement (one rule for the corpus and the real runs): a run agrees when
  - its truth is `healthy` and nothing was found, or
  - its primary label was found AND the verdict (the most severe label found, by
    classifiers.labels.SEVERITY) is one of its true labels — the headline answer is not a
    more severe label it does not have.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from lossforensics.classifiers.labels import HEALTHY, severity_rank


def normalise(labels: Iterable[str]) -> set[str]:
    """A label set where `healthy` means "no pathology" and never sits beside one."""
    s = {str(x) for x in labels}
    s.discard(HEALTHY)
    return s or {HEALTHY}


@dataclass(frozen=True)
class Scored:
    name: str
    truth: tuple[str, ...]  # as labelled; the first is the primary label
    predicted: frozenset[str]  # normalised: {"healthy"} when nothing was found

    @property
    def true_set(self) -> set[str]:
        return normalise(self.truth)

    @property
    def verdict(self) -> str:
        found = sorted(self.predicted - {HEALTHY}, key=severity_rank)
        return found[0] if found else HEALTHY

    @property
    def agrees(self) -> bool:
        truth = self.true_set
        if truth == {HEALTHY}:
            return self.predicted == {HEALTHY}
        primary = (
            next(t for t in self.truth if t != HEALTHY)
            if any(t != HEALTHY for t in self.truth)
            else HEALTHY
        )
        return primary in self.predicted and self.verdict in truth

    @property
    def exact(self) -> bool:
        return self.true_set == set(self.predicted)


def per_label(scored: Sequence[Scored]) -> dict[str, dict[str, float]]:
    """precision, recall, f1, support (true count), predicted count, tp per label seen."""
    labels = sorted(
        {lab for s in scored for lab in s.true_set | set(s.predicted)},
        key=lambda x: (x != HEALTHY, severity_rank(x), x),
    )
    out: dict[str, dict[str, float]] = {}
    for lab in labels:
        tp = sum(lab in s.true_set and lab in s.predicted for s in scored)
        fp = sum(lab not in s.true_set and lab in s.predicted for s in scored)
        fn = sum(lab in s.true_set and lab not in s.predicted for s in scored)
        p = tp / (tp + fp) if tp + fp else 0.0
        r = tp / (tp + fn) if tp + fn else 0.0
        f1 = 2 * p * r / (p + r) if p + r else 0.0
        out[lab] = {
            "precision": p,
            "recall": r,
            "f1": f1,
            "support": tp + fn,
            "predicted": tp + fp,
            "tp": tp,
        }
    return out


def macro_f1(table: dict[str, dict[str, float]]) -> float:
    """Mean F1 over the labels with support (labels never true are left out)."""
    f1s = [row["f1"] for row in table.values() if row["support"] > 0]
    return sum(f1s) / len(f1s) if f1s else 0.0


def false_alarm_rate(scored: Sequence[Scored]) -> float | None:
    """Share of truly healthy runs with any finding (None without healthy runs)."""
    healthy = [s for s in scored if s.true_set == {HEALTHY}]
    if not healthy:
        return None
    return sum(s.predicted != {HEALTHY} for s in healthy) / len(healthy)


def confusion(scored: Sequence[Scored]) -> dict[str, dict[str, int]]:
    """For each true label: how often each label was predicted on the runs carrying it."""
    table: dict[str, dict[str, int]] = {}
    for s in scored:
        for t in s.true_set:
            row = table.setdefault(t, {})
            for p in s.predicted:
                row[p] = row.get(p, 0) + 1
    return table


def summary(scored: Sequence[Scored]) -> dict:
    """Every figure for one set of runs, JSON-ready."""
    table = per_label(scored)
    n = len(scored)
    return {
        "runs": n,
        "per_label": table,
        "macro_f1": macro_f1(table),
        "worst_label": min(
            ((lab, r["f1"]) for lab, r in table.items() if r["support"]),
            key=lambda x: x[1],
            default=(None, None),
        ),
        "false_alarm_rate": false_alarm_rate(scored),
        "agreement": sum(s.agrees for s in scored) / n if n else None,
        "exact_match": sum(s.exact for s in scored) / n if n else None,
        "confusion": confusion(scored),
    }
