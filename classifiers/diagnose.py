"""diagnose(frame) -> Diagnosis: every applicable classifier on one run, findings ordered, causes
attached.

    diagnosis = diagnose(frame)                  # a frame holding exactly one run
    diagnoses = diagnose_all(frame)              # one Diagnosis per run, in order of appearance

For each registered classifier: `skip_reason(run)` decides whether it can judge the run, else
`detect(run)` may return a Finding. A run whose primary series is too short for a classifier
but that logs the same quantity more finely (Lightning's `train_loss_step` beside a few
`train_loss_epoch` means) is judged on the finer series (RunSeries.finest_view), and the
finding's evidence says so under `read_finer` (finer metric -> the primary it stood in for);
otherwise the reason goes to `skipped`. A check that found nothing but saw a sign of its label
and judged it benign (Classifier.set_aside) says so under `set_aside`, unless a finding already
accounts for that sign (explains.ACCOUNTED_SIGNS: jumps beside an oscillating finding are its
swings). Findings are ordered by severity (classifiers.labels.SEVERITY) then confidence; a
finding another one explains (classifiers.explains.EXPLAINS: an LR cut explains the plateau
after it) becomes evidence of that one, and a cause moves before a more severe consequence it
leads (LEADS: a blow-up before the NaN that ended it). Last, findings whose calibrated
confidence is under `LIKELY` (one half: more often wrong than right) move after the others:
they are listed, but a doubtful severe label does not take the verdict from a likely one. The
verdict is the first finding's label, else "healthy" when a check that reads the loss's course
could judge the run, else "inconclusive" (too few points, no loss logged: the reasons are in
`skipped`). The playbook ranks each finding's causes from its evidence.

A classifier that raises is a bug in that classifier, not a property of the run: by default it
costs only its own label (listed in `skipped` with the exception, the traceback logged on the
`lossforensics.classifiers` logger) and the other labels still reach the user, so the service
and the audit never fail a whole run over one bug. `strict=True` re-raises (the evaluation and
the tests use it, so a bug cannot hide there).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence
from dataclasses import replace
from typing import Any

import numpy as np
import pandas as pd
from lossforensics.classifiers.base import Classifier
from lossforensics.classifiers.calibration import calibrate
from lossforensics.classifiers.diagnosis import Diagnosis, Finding, MetricInfo, SetAside, Skipped
from lossforensics.classifiers.errors import InputError
from lossforensics.classifiers.explains import apply_explains, apply_leads, unaccounted
from lossforensics.classifiers.frame import validate_frame
from lossforensics.classifiers.labels import HEALTHY, INCONCLUSIVE, severity_rank
from lossforensics.classifiers.playbook import attach_causes
from lossforensics.classifiers.registry import all_classifiers
from lossforensics.classifiers.run import RunSeries, split_runs

log = logging.getLogger("lossforensics.classifiers")

# Checks that judge single points (is any value finite), not the loss's course: a run only they
# could judge is `inconclusive` when they find nothing.
POINT_CHECKS = frozenset({"nan"})
# A finding's (calibrated) confidence at which its label is as likely right as wrong: findings
# below it follow every finding at or above it, whatever their severity
LIKELY = 0.5
# an error naming the runs of a multi-run frame lists the first 5: enough to recognise them
_RUNS_NAMED = 5


def diagnose(
    frame: pd.DataFrame,
    *,
    source: dict[str, Any] | None = None,
    warnings: Sequence[Any] | None = None,
    classifiers: Iterable[Classifier] | None = None,
    strict: bool = False,
) -> Diagnosis:
    """Diagnose a frame that holds one run (InputError when it holds several)."""
    frame = validate_frame(frame)
    runs = split_runs(frame)
    if len(runs) > 1:
        names = [r.name for r in runs]
        shown = ", ".join(map(repr, names[:_RUNS_NAMED])) + (
            ", ..." if len(names) > _RUNS_NAMED else ""
        )
        raise InputError(
            f"the frame holds {len(names)} runs ({shown}); "
            "use diagnose_all() to get one diagnosis per run"
        )
    run = runs[0] if runs else RunSeries(frame)
    return diagnose_run(
        run, source=source, warnings=warnings, classifiers=classifiers, strict=strict
    )


def diagnose_all(
    frame: pd.DataFrame,
    *,
    source: dict[str, Any] | None = None,
    warnings: Sequence[Any] | None = None,
    classifiers: Iterable[Classifier] | None = None,
    strict: bool = False,
) -> list[Diagnosis]:
    """One Diagnosis per run in the frame, in order of first appearance."""
    frame = validate_frame(frame)
    chosen = list(classifiers) if classifiers is not None else None
    return [
        diagnose_run(run, source=source, warnings=warnings, classifiers=chosen, strict=strict)
        for run in split_runs(frame)
    ]


def _read_finer(finding: Finding, run: RunSeries, finer: RunSeries) -> Finding:
    """Say in the evidence which finer series the finding read, in place of which primary."""
    swapped = {
        finer.primary(role): run.primary(role)
        for role in run.roles()
        if finer.primary(role) != run.primary(role)
    }
    return replace(finding, evidence={**finding.evidence, "read_finer": swapped})


def diagnose_run(
    run: RunSeries,
    *,
    source: dict[str, Any] | None = None,
    warnings: Sequence[Any] | None = None,
    classifiers: Iterable[Classifier] | None = None,
    strict: bool = False,
) -> Diagnosis:
    """Run every classifier on one RunSeries and assemble its Diagnosis."""
    findings: list[Finding] = []
    skipped: list[Skipped] = []
    set_aside: list[SetAside] = []
    chosen = list(classifiers) if classifiers is not None else all_classifiers()
    for clf in chosen:
        view = run
        reason = clf.skip_reason(run)
        if reason is not None:
            # a finer series helps a series too short, not a role the run does not log
            finer = run.finest_view() if all(run.has(r) for r in clf.needs) else None
            if finer is None or clf.skip_reason(finer) is not None:
                skipped.append(Skipped(clf.label, reason))
                continue
            view = finer
        try:
            finding = clf.detect(view)
            why = clf.set_aside(view) if finding is None else None
        except Exception as exc:
            if strict:
                raise
            log.exception("classifier %s failed on run %r", clf.label, run.name)
            skipped.append(
                Skipped(
                    clf.label,
                    f"classifier error ({type(exc).__name__}: "
                    f"{exc}); a bug in lossforensics, logged; the other "
                    "labels are unaffected",
                )
            )
            continue
        if why is not None:
            set_aside.append(SetAside(clf.label, why))
        if finding is not None:
            if view is not run:
                finding = _read_finer(finding, run, view)
            findings.append(calibrate(attach_causes(finding)))
    # one problem, one finding: its cause; a cause leads the consequence it stands beside; a
    # doubtful finding leads no likely one
    findings = likely_first(apply_leads(apply_explains(order_findings(findings))))
    notes = [str(w) for w in (warnings or ())]
    if run.carried_on is not None:
        sessions = len(np.unique(run.segments()))
        notes.append(
            f"the log's {sessions} sessions each started the step counter again and carried on "
            "training from where the one before stopped (fit() called again): read as one "
            "course, each session's steps counted on from the one before; the steps the "
            "findings name are on that count"
        )
    skipped_labels = {s.label for s in skipped}
    judged = len(chosen) - len(skipped)
    course_judged = [c.label for c in chosen if c.label not in skipped_labels | POINT_CHECKS]
    verdict = findings[0].label if findings else HEALTHY
    if not findings and not course_judged:
        # no finding is evidence of health only where a check could read the loss's course
        verdict = INCONCLUSIVE
        notes.append(
            f"inconclusive: no check could judge how the loss went ({judged} of {len(chosen)} "
            "could run, none of them on its course; the reasons are under 'skipped')"
        )
    elif not findings and judged < len(chosen) / 2:
        # "healthy" is the absence of findings: say when that absence means little
        notes.append(
            f"only {judged} of {len(chosen)} checks could judge this run (see "
            "'skipped'): 'healthy' means nothing was found, not that the run was shown "
            "to be fine"
        )
    return Diagnosis(
        run=run.name,
        verdict=verdict,
        findings=findings,
        skipped=sorted(skipped, key=lambda s: severity_rank(s.label)),
        metrics=run.measured("metric_infos", lambda: metric_infos(run)),
        source=dict(source) if source else {"format": None, "files": []},
        warnings=notes,
        set_aside=sorted(unaccounted(set_aside, findings), key=lambda s: severity_rank(s.label)),
    )


def likely_first(findings: list[Finding]) -> list[Finding]:
    """`findings` (ordered) with those under `LIKELY` confidence moved after the rest, each group
    in its order: a calibrated confidence under one half says the label is more often wrong than
    right, so a severe but doubtful finding (a 0.3 overfit read from a val loss drifting within
    its noise) is listed, but the verdict is the most severe label the run more likely has."""
    return [f for f in findings if f.confidence >= LIKELY] + [
        f for f in findings if f.confidence < LIKELY
    ]


def order_findings(findings: Iterable[Finding]) -> list[Finding]:
    """Most severe first; within a label's severity, most confident first."""
    return sorted(findings, key=lambda f: (severity_rank(f.label), -f.confidence, f.label))


# metric codes below 2**15 fit int16, which numpy's stable argsort sorts by radix
_INT16_CODES = 2**15
# up to this many metrics, each one's rows (RunSeries.rows: kept with the run, and the
# classifiers have read most of them already) give its count and steps, ~4x cheaper than
# sorting every row by metric; past it, one row scan per metric costs more than the sort
_BY_ROWS_MAX_METRICS = 16


def metric_infos(run: RunSeries) -> list[MetricInfo]:
    """One MetricInfo per metric, in order of first appearance (primary metrics included).
    Grouped with numpy on the run's metric codes (a pandas groupby costs ~5 ms a run)."""
    frame = run.frame
    if not len(frame):
        return []
    codes, names = run.metric_codes()
    roles = frame["role"].array
    role_codes = np.asarray(getattr(roles, "codes", [-1]))
    if codes.min() < 0 or role_codes.min() < 0:
        return _metric_infos_grouped(frame)  # missing names or roles: pandas' NA rules
    if len(names) <= _BY_ROWS_MAX_METRICS:
        return _metric_infos_by_rows(run, names, role_codes, roles.categories)
    # rows by metric, in frame order within each (small integers: numpy's radix sort)
    order = np.argsort(
        codes.astype(np.int16) if len(names) < _INT16_CODES else codes, kind="stable"
    )
    starts = np.flatnonzero(np.r_[True, np.diff(codes[order]) != 0])
    steps = frame["step"].to_numpy(np.int64)[order]
    seqs = frame["seq"].to_numpy(np.int64)[order]
    points = np.diff(np.r_[starts, len(order)])
    first_step = np.minimum.reduceat(steps, starts)
    last_step = np.maximum.reduceat(steps, starts)
    first_seq = np.minimum.reduceat(seqs, starts)
    role = np.asarray(roles.categories, dtype=object)[role_codes[order[starts]]]
    metric = names[codes[order[starts]]]
    return [
        MetricInfo(
            str(metric[i]), str(role[i]), int(points[i]), int(first_step[i]), int(last_step[i])
        )
        for i in np.argsort(first_seq, kind="stable").tolist()
    ]


def _metric_infos_by_rows(
    run: RunSeries, names: np.ndarray, role_codes: np.ndarray, categories: pd.Index
) -> list[MetricInfo]:
    """metric_infos from each metric's rows (in frame order, which is seq order: a metric's
    first row holds its first seq and its first role)."""
    steps = run.frame["step"].to_numpy(np.int64)
    seqs = run.frame["seq"].to_numpy(np.int64)
    infos, first_seq = [], []
    for name in names.tolist():
        rows = run.rows(name)
        at = steps[rows]
        role = categories[role_codes[rows[0]]]
        infos.append(MetricInfo(str(name), str(role), len(rows), int(at.min()), int(at.max())))
        first_seq.append(seqs[rows[0]])
    return [infos[i] for i in np.argsort(first_seq, kind="stable").tolist()]


def _metric_infos_grouped(frame: pd.DataFrame) -> list[MetricInfo]:
    """metric_infos through a pandas groupby (frames with missing metric names or roles)."""
    g = frame.groupby("metric", sort=False, observed=True)
    table = pd.DataFrame(
        {
            "role": g["role"].first().astype(str),
            "points": g.size(),
            "first_step": g["step"].min(),
            "last_step": g["step"].max(),
            "first_seq": g["seq"].min(),
        }
    ).sort_values("first_seq", kind="stable")
    columns = (table[c].tolist() for c in ("role", "points", "first_step", "last_step"))
    return [
        MetricInfo(str(m), str(role), int(points), int(first), int(last))
        for m, role, points, first, last in zip(table.index, *columns, strict=True)
    ]
