"""One scoring for every labelled set: the one `../shared/tools/score_sets.py` applies to the
kept-apart sets, plus the missed-alarm count and the expected calibration error.

A run's truth is a list of labels, the first its primary label. Its outcome is what
`lossforensics diagnose PATH --json` says about it: every diagnosis of the file (a W&B export
holds several runs), or nothing when it could not be read (a crash).

- predicted set: the finding labels plus the verdicts, minus `healthy` when anything else is
  there; a crash predicts nothing;
- per label, over the labels in the truth or the prediction of any run: precision, recall and
  F1 over runs (a truth of several labels drops `healthy`); macro-F1 is their mean;
- verdict = primary: the first true label is one of the verdicts;
- healthy false alarm: a run labelled only `healthy` whose predicted set is not `{healthy}`;
- missed alarms: runs whose verdict is `healthy` or `inconclusive` although a loss curve holds
  a NaN/inf or its level rises to 3x or more of its lowest level before (must be 0; levels
  and the floor are defined in `loss_alarm`). Of those, `missed_alarms_set_aside` counts the
  runs whose diagnosis names the sign under `set_aside` with a reason (a NaN by the `nan`
  check, a rise by `exploding` or `loss_spikes`): judged and explained, not overlooked. They
  stay in the missed count, which takes no reason on trust;
- ECE: every (run, label) pair over the fixed labels, confidence = the highest confidence of a
  finding with that label (0 without one), outcome = the label is in the truth; 10 equal-width
  bins, the gap between mean confidence and hit rate weighted by the bin's share of pairs.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np

HEALTHY = "healthy"
INCONCLUSIVE = "inconclusive"
ECE_BINS = 10
RISE_ALARM = 3.0  # a loss level at 3x its lowest earlier level must never be called healthy
RISE_WINDOW = 5  # fewest points in a level (a running median): one outlier is not a rise
RISE_SCALE = 0.2  # of the starting level: a rise that stays below it is noise at the floor
NONFINITE_ALARM = "non-finite loss"  # loss_alarm's reason for a NaN/inf
# the checks whose set-aside reason answers each alarm: a NaN is the nan check's to judge, a rise
# is a blow-up's or a spike's
ANSWERS_NONFINITE = frozenset({"nan"})
ANSWERS_RISE = frozenset({"exploding", "loss_spikes"})


@dataclass
class Outcome:
    """What the tool said about one labelled run (the fields score_sets.py keeps, and more)."""

    key: str
    truth: list[str]
    status: str = "crash"  # ok | crash
    err: str = ""
    pred: list[str] = field(default_factory=list)
    verdicts: list[str | None] = field(default_factory=list)
    confidence: dict[str, float] = field(default_factory=dict)  # label -> highest confidence
    alarm: str = ""  # why the logs alone demand a finding ('' when they do not)
    set_aside: list[str] = field(default_factory=list)  # labels the diagnosis set aside

    def to_dict(self) -> dict:
        return {
            "key": self.key,
            "truth": list(self.truth),
            "status": self.status,
            "err": self.err,
            "pred": list(self.pred),
            "verdicts": list(self.verdicts),
            "confidence": {k: round(v, 4) for k, v in sorted(self.confidence.items())},
            "alarm": self.alarm,
            "set_aside": list(self.set_aside),
        }


def truth_of(entry: dict) -> list[str]:
    """The truth list of a labels.json entry ('labels' or 'label', a list or one string)."""
    truth = [x for x in (entry.get("labels") or entry.get("label") or []) if isinstance(x, str)]
    if isinstance(entry.get("label"), str):
        truth = [entry["label"]]
    return truth


def predicted_set(diagnoses: Iterable[dict]) -> tuple[list[str], list[str | None]]:
    """(sorted predicted labels, verdicts) of Diagnosis JSON objects, formed as score_sets.py
    forms them."""
    pred: set[str] = set()
    verdicts: list[str | None] = []
    for d in diagnoses:
        verdict = d.get("verdict")
        verdicts.append(verdict)
        if isinstance(verdict, str):
            pred.add(verdict)
        pred |= {
            f["label"] for f in d.get("findings") or [] if isinstance(f, dict) and "label" in f
        }
    if len(pred) > 1:
        pred.discard(HEALTHY)
    return sorted(pred or {HEALTHY}), verdicts


def _true_set(truth: Sequence[str]) -> set[str]:
    t = set(truth)
    return t - {HEALTHY} if len(t) > 1 else t


def score(outcomes: Sequence[Outcome], labels: Sequence[str]) -> dict:
    """Every figure for one set. The keys score_sets.py prints hold the same values;
    `labels` are the fixed pathology labels the ECE pairs range over."""
    truth_sets = [_true_set(o.truth) for o in outcomes]
    used = sorted({x for t, o in zip(truth_sets, outcomes, strict=True) for x in t | set(o.pred)})
    per: dict[str, dict] = {}
    for lab in used:
        pairs = list(zip(truth_sets, outcomes, strict=True))
        tp = sum(1 for t, o in pairs if lab in t and lab in o.pred)
        fp = sum(1 for t, o in pairs if lab not in t and lab in o.pred)
        fn = sum(1 for t, o in pairs if lab in t and lab not in o.pred)
        p = tp / (tp + fp) if tp + fp else 0.0
        rc = tp / (tp + fn) if tp + fn else 0.0
        f1 = 2 * p * rc / (p + rc) if p + rc else 0.0
        per[lab] = {"tp": tp, "fp": fp, "fn": fn, "precision": p, "recall": rc, "f1": f1}
    healthy = [o for t, o in zip(truth_sets, outcomes, strict=True) if t == {HEALTHY}]
    prim = [bool(o.truth) and o.truth[0] in (o.verdicts or []) for o in outcomes]
    false_alarms = sum(1 for o in healthy if set(o.pred) != {HEALTHY})
    missed = [o for o in outcomes if o.alarm and quiet(o)]
    conf, hit = ece_pairs(outcomes, labels)
    return {
        "runs": len(outcomes),
        "macro_f1": sum(v["f1"] for v in per.values()) / len(per) if per else 0.0,
        "verdict_is_primary": sum(prim) / len(prim) if prim else 0.0,
        "healthy_runs": len(healthy),
        "healthy_false_alarms": false_alarms,
        "healthy_false_alarm_rate": false_alarms / len(healthy) if healthy else None,
        "missed_alarms": len(missed),
        "missed_alarm_runs": [o.key for o in missed],
        "missed_alarms_set_aside": sum(answered(o) for o in missed),
        "missed_alarm_runs_set_aside": [o.key for o in missed if answered(o)],
        "inconclusive": sum(INCONCLUSIVE in o.verdicts for o in outcomes),
        "ece": ece(conf, hit),
        "crashes": sum(o.status == "crash" for o in outcomes),
        "timeouts": 0,  # in one process there is no per-run timeout
        "labels": per,
    }


def quiet(o: Outcome) -> bool:
    """The tool said nothing is wrong, or that it cannot tell: every verdict healthy or
    inconclusive (a crash is counted as a crash, not here)."""
    return o.status == "ok" and all(v in (HEALTHY, INCONCLUSIVE) for v in o.verdicts)


def answered(o: Outcome) -> bool:
    """The diagnosis set the alarm's sign aside with a reason from the check that judges it."""
    wanted = ANSWERS_NONFINITE if o.alarm == NONFINITE_ALARM else ANSWERS_RISE
    return bool(wanted & set(o.set_aside))


def ece_pairs(outcomes: Sequence[Outcome], labels: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    """(confidence, outcome) of every (run, label) pair: 0 where no finding has the label."""
    conf = [o.confidence.get(lab, 0.0) for o in outcomes for lab in labels]
    hit = [lab in _true_set(o.truth) for o in outcomes for lab in labels]
    return np.asarray(conf, dtype=float), np.asarray(hit, dtype=float)


def reliability(
    conf: np.ndarray, hit: np.ndarray, bins: int = ECE_BINS
) -> list[tuple[float, float, int]]:
    """(mean confidence, hit rate, pairs) per equal-width bin of [0, 1]; empty bins left out."""
    idx = np.minimum((np.asarray(conf) * bins).astype(int), bins - 1)
    out = []
    for b in range(bins):
        m = idx == b
        if m.any():
            out.append((float(conf[m].mean()), float(hit[m].mean()), int(m.sum())))
    return out


def ece(conf: np.ndarray, hit: np.ndarray, bins: int = ECE_BINS) -> float | None:
    """Expected calibration error over equal-width bins (None without pairs)."""
    if not len(conf):
        return None
    rows = reliability(conf, hit, bins)
    return float(sum(n * abs(c - h) for c, h, n in rows) / len(conf))


def loss_alarm(curves: Iterable[np.ndarray]) -> str:
    """Why a run's loss curves (values in logged order) demand a finding: a NaN/inf, or a
    sustained rise of its level to RISE_ALARM times the lowest level before it. A level is a
    running median over a twentieth of the curve (at least RISE_WINDOW points), so the noise of
    per-step losses near a converged floor is not a rise; and a rise counts only once it reaches
    RISE_SCALE of the starting level (the highest level of its first tenth): 1e-3 -> 4e-3 after
    starting at 2.0 is noise at the floor, not a divergence."""
    for y in curves:
        y = np.asarray(y, dtype=float)
        if len(y) and not np.isfinite(y).all():
            return NONFINITE_ALARM
        width = max(RISE_WINDOW, len(y) // 20)
        if len(y) <= width:
            continue
        level = np.median(np.lib.stride_tricks.sliding_window_view(y, width), axis=1)
        start = np.max(np.abs(level[: max(1, len(level) // 10)]))
        low = np.minimum.accumulate(np.where(level > 0, level, np.inf))[:-1]
        ratio = np.where(np.isfinite(low), level[1:] / low, 0.0)
        ratio[level[1:] < RISE_SCALE * start] = 0.0
        if ratio.max() >= RISE_ALARM:
            return f"loss level rose {ratio.max():.1f}x above its earlier low"
    return ""
