"""resume_discontinuity: the step counter jumps back (or repeats) and the loss jumps there.

Symptom: a run resumed from a checkpoint without its optimizer, scheduler or sampler state:
the log repeats steps, and the loss right after the restart sits well away from where it was.
Signal read: the primary train loss's rows of that role in source order (`seq`), not step order,
at the judging resolution (RunSeries.writes: kept with the run, so a live tick reads at most
JUDGED_POINTS points whatever the run's length). A restart is a point whose segment (the frame's
`segment` column) differs from the previous point's, or whose step is at or below the previous
point's (exact repeats of the previous step and value, an epoch metric written twice, are
dropped first). Past JUDGED_POINTS points a point is a block of logged points (its mean, at the
step of its first non-finite or else highest point, in the segment of its last point; the LR
alike): a restart is seen where a block's step is at or below the previous block's or its
segment differs, and its steps, and whether it replays earlier pairs, are read from the logged
rows of a few blocks around it; a restart that goes back fewer points than about two blocks hold
is not seen. At each restart the level of the next k points (k = 5% of the points, 1 to 50) is
compared with the k points just before it (where training was when it stopped), less the change
the curve was already making over the k points before those (with fewer than 2k points before
it, k times the slope of those there), so a steady descent across the restart is not a jump; a
restart that replays earlier (step, value) pairs exactly is the same log written twice. A
counter reset that kept training shows no jump; a resume without its optimizer state, from a
stale checkpoint, or with the weights not restored does. The points logged earlier at the same
steps are a second reading, kept as evidence: a resumed loss that matches them points at a stale
checkpoint (at the run's first step, where the earlier run was untrained, at a start from
scratch: weights not restored, or a new run appended to the log), one above them at lost
optimizer state.
Rule: some restart's jump up is at least `min_z` standard errors (of that combination of k-point
medians, from the trend-free noise of the step-sorted curve, or past JUDGED_POINTS of the block
means the medians are taken of) and `min_rel` of the curve's robust range or of the loss level
before the restart, whichever is smaller. Only a rise counts: every resume failure (lost optimizer,
scheduler or sampler state, a stale checkpoint, weights not restored) leaves the loss worse than
where it stopped; one that fell at a counter reset kept training (a second `fit()` after few logged
epochs, where the trend before the restart cannot be measured). A schedule restarted with the
counter (the LR moved by `_LR_JUMP`, 2x, or more across the restart) is a resume too when the steps
logged again sit that far from what the earlier run logged at them (`replay_gap`): the resumed run
is not in the state that produced them, though the loss did not jump against the last point before
the restart; not when the counter went back to the run's first step (the earlier run's untrained
start sits there, far from any trained model). A counter that goes back with no jump, no schedule
restart or no replay gap (an epoch field reset each session) is not a finding. More restarts than
both `max_restarts` (50) and 5% of the points means interleaved writers (ranks, processes), not
resumes: no finding. Nor do points at fewer than `_MIN_DISTINCT_STEPS` (3) distinct steps (a
counter that never moves: every point of a pasted line of bar states at step 0). Nor is a
restart between segments that log different metrics (some only before it, some only after:
`metrics_changed`): a second phase with its own loss terms, or another model
appended to the log, not a resume. Nor is a restart that begins a complete run appended to the
log: the counter back at the log's first step, the loss there at least halfway back from where
the earlier run stopped to its untrained start at those steps (a model trained from scratch
again, not one that kept its weights), and the earlier segment as far along as the
one it starts (a run that reached as far as its successor was not interrupted, so nothing was
resumed: two fits, or a sweep's trials, written to one file). An interrupted run started again
from scratch and taken further than it had reached is still a resume (its weights not restored).
Confidence: 0.5 at the thresholds, rising with the jump in standard errors, capped at 0.95.
Evidence: metrics_changed, restarts, resume_step, resumed_from_step, loss_jump (signed, in standard
errors: the largest rise among the restarts), loss_jump_rel (share of the robust range or of the
level before, whichever is smaller), loss_before, loss_after, loss_same_steps_earlier (NaN when
those steps were never logged before), matches_earlier_run (bool: the resumed loss is within 2
standard errors of it), lr_jump (bool: the LR differs by more than 2x across the restart, e.g. the
scheduler restarted), replay_gap and replay_gap_rel (the resumed loss against the earlier run's at
the same steps, in standard errors and relative), first_step (the run's first logged step).
Known false positives: a run appended to a log whose earlier run was stopped before reaching
as far (indistinguishable from an interrupted run started again without its weights); a restart
exactly at an LR milestone.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from lossforensics.classifiers._align import detrended_noise, finite_curve
from lossforensics.classifiers.base import Classifier
from lossforensics.classifiers.diagnosis import Finding, Span
from lossforensics.classifiers.run import RunSeries
from lossforensics.classifiers.signals import TINY, robust_range

# a log whose points sit at fewer distinct steps than this (every bar state of a pasted line at
# step 0) has no counter that moves: its "restarts" are points the reader could not place
_MIN_DISTINCT_STEPS = 3
# more restarts than 5% of the points (and than max_restarts) is interleaved writers (ranks,
# processes), not resumes
_MAX_RESTART_SHARE = 0.05
# an LR that changes by 2x or more across a restart restarted its schedule (ReduceLROnPlateau's
# common factor of 0.5 undone, a warmup or cosine begun again); smaller moves are the schedule
_LR_JUMP = 2.0
# k, the points compared on each side of a restart, is 1/20 (5%) of the points: enough to
# out-vote noise, few enough that a short epoch log still compares the points at the restart
_WINDOW_DIVISOR = 20
# ... and at most 50 points: further from the restart the loss has moved on for its own reasons
_WINDOW_MAX = 50
# the standard error of a median is about 1.25 (sqrt(pi/2)) times that of a mean
_MEDIAN_SE_FACTOR = 1.25
# a detrended jump (after - 2 before + prior) has sqrt(6) standard errors where a plain
# difference of two medians has sqrt(2): sqrt(3) times as many
_DETRENDED_SE_FACTOR = 3.0
# confidence is 0.5 at `min_z` and gains 0.15 for every doubling of the jump beyond it
_CONFIDENCE_PER_DOUBLING = 0.15
# capped below certainty: two different runs appended under one name can look the same
_CONFIDENCE_CAP = 0.95
# a metric logged this often on one side of a restart is part of what that side logs (a single
# final evaluation is not)
_PHASE_MIN_WRITES = 2


class Written(NamedTuple):
    """A role's primary metric in source order at the judging resolution, exact repeats
    dropped: each point's step, value and segment, and its position among the writes."""

    metric: str | None
    role: str
    steps: np.ndarray
    values: np.ndarray
    segments: np.ndarray
    at: np.ndarray  # positions in run.writes(metric, role)
    block: int  # logged points a point stands for


def source_order(run: RunSeries, role: str) -> Written:
    """The role's primary metric, its rows of that role, as written (RunSeries.writes: kept
    with the run, at most JUDGED_POINTS points), exact repeats of the previous point dropped.
    Computed once per run and role (the skip counts them, the measurement reads them)."""
    return run.measured(("source_order", role), lambda: _source_order(run, role))


def _source_order(run: RunSeries, role: str) -> Written:
    name = run.primary(role)
    if name is None:
        none = np.array([], np.int64)
        return Written(None, role, none, np.array([]), none, none, 1)
    w = run.writes(name, role)
    s, y, seg = w.steps, w.values, run.write_segments(name, role)
    at = np.arange(len(s))
    repeat = s[1:] == s[:-1]  # exact repeats are rare: the values are compared only then
    if repeat.any():
        repeat &= (y[1:] == y[:-1]) | (np.isnan(y[1:]) & np.isnan(y[:-1]))
        keep = np.r_[True, ~repeat]
        s, y, seg, at = s[keep], y[keep], seg[keep], at[keep]
    return Written(name, role, s, y, seg, at, w.block)


def _median(a: np.ndarray) -> float:
    a = a[np.isfinite(a)]
    return float(np.median(a)) if len(a) else float("nan")


class ResumeDiscontinuity(Classifier):
    label = "resume_discontinuity"
    needs = frozenset({"train_loss"})
    min_points = 4  # distinct steps: a short epoch log restarted twice has few

    def __init__(
        self,
        *,
        # a jump of 4 standard errors: the trend-free noise alone makes one rarely
        min_z: float = 4.0,
        # ... and 10% of the robust range or of the level: a tiny but certain jump is harmless
        min_rel: float = 0.1,
        # more than 50 restarts is interleaved writers, not resumes (with _MAX_RESTART_SHARE)
        max_restarts: int = 50,
    ) -> None:
        self.min_z = min_z
        self.min_rel = min_rel
        self.max_restarts = max_restarts

    def skip_reason(self, run: RunSeries) -> str | None:
        """Points are counted as written, every session's: the step-sorted curve keeps only
        the run's course since its last restart, and the restarts are what this reads."""
        if not run.has("train_loss"):
            return super().skip_reason(run)
        n = len(source_order(run, "train_loss").steps)
        if n < self.min_points:
            return (
                f"training loss has {n} point(s) as written; {self.label} needs at least "
                f"{self.min_points}"
            )
        return None

    def measure(self, run: RunSeries) -> dict | None:
        loss = source_order(run, "train_loss")
        s, y, seg = loss.steps, loss.values, loss.segments
        # a restart: the step counter goes back, or the reader marked a new segment (a
        # `segment`/`phase` key) while the counter kept going
        restarts = np.flatnonzero((s[1:] <= s[:-1]) | (seg[1:] != seg[:-1])) + 1
        if len(restarts) == 0 or len(restarts) > max(
            self.max_restarts, _MAX_RESTART_SHARE * len(s)
        ):
            return None
        if len(np.unique(s)) < _MIN_DISTINCT_STEPS:
            return None  # a counter that never moves: no course on either side of a restart
        _, fin = finite_curve(run, "train_loss")  # step-sorted, reduced
        noise, span = max(_noise(loss, fin), TINY), max(robust_range(fin), TINY)
        k = int(
            np.clip(len(s) // _WINDOW_DIVISOR, 1, _WINDOW_MAX)
        )  # short epoch logs: the points at the restart
        se2 = _MEDIAN_SE_FACTOR * noise * np.sqrt(2.0 / k)  # of a difference of two k-point medians
        rows = [_at_restart(s, y, int(r), k, se2) for r in restarts]  # at most max_restarts
        fresh = _appended_runs(s, restarts, rows)
        rows = [row for row, new_run in zip(rows, fresh, strict=True) if not new_run]
        restarts = restarts[~fresh]
        if len(restarts) == 0:
            return None
        if loss.block > 1:  # the steps and a replay that blocks blur, from the logged rows
            for row, r, since in zip(rows, restarts, np.r_[0, restarts[:-1]], strict=True):
                row["step"], row["from_step"], replayed = _logged_restart(
                    run, loss, int(r), int(since)
                )
                row["jump"] = 0.0 if replayed else row["jump"]
        jumps = np.array([row["jump"] for row in rows])
        nth = int(np.argmax(jumps))  # the largest rise: a loss that fell there kept training
        best = rows[nth]
        se = se2 * (np.sqrt(_DETRENDED_SE_FACTOR) if best["detrended"] else 1.0)
        lr = source_order(run, "lr")
        lx, ly = lr.steps, lr.values
        at = int(restarts[nth])
        return {
            "metrics_changed": _metrics_changed(run, int(seg[at - 1]), int(seg[at])),
            "restarts": int(len(restarts)),
            "resume_step": best["step"],
            "resumed_from_step": best["from_step"],
            "end_step": best["hi"],
            "loss_jump": best["jump"] / se,
            "loss_jump_rel": best["jump"] / max(min(span, abs(best["before"])), TINY),
            "loss_before": best["before"],
            "loss_after": best["after"],
            "loss_same_steps_earlier": best["old"],
            "matches_earlier_run": bool(abs(best["after"] - best["old"]) <= 2 * se),
            "lr_jump": _lr_jump(lx, ly, nth, len(restarts), best["from_step"], best["step"]),
            # the resumed loss against the earlier run's at the same steps: a resume that
            # restored its state logs those steps again about as before
            "replay_gap": (best["after"] - best["old"]) / se2,
            "first_step": int(np.min(s)),
            "replay_gap_rel": (best["after"] - best["old"])
            / max(min(span, abs(best["before"])), TINY),
        }

    def jumped(self, m: dict) -> bool:
        return m["loss_jump"] >= self.min_z and m["loss_jump_rel"] >= self.min_rel

    def replayed_apart(self, m: dict) -> bool:
        """The scheduler restarted at the restart and the steps logged again sit `min_z`
        standard errors and `min_rel` away from what the earlier run logged at them: the
        resumed run is not in the state that produced them (a fresh optimizer or scheduler),
        although the loss did not jump against the last point before the restart. Not when the
        counter went back to the run's first step: the earlier run logged its untrained start
        there, which any trained model sits far from, whatever state it kept."""
        gap = float(m.get("replay_gap", np.nan))
        rel = float(m.get("replay_gap_rel", np.nan))
        return bool(
            m["lr_jump"]
            and m["resume_step"] > m.get("first_step", -np.inf)
            and np.isfinite(gap)
            and abs(gap) >= self.min_z
            and abs(rel) >= self.min_rel
        )

    def judge(self, m: dict) -> Finding | None:
        if not (self.jumped(m) or self.replayed_apart(m)) or m.get("metrics_changed"):
            return None
        z = m["loss_jump"] if self.jumped(m) else m["replay_gap"]
        conf = 0.5 + _CONFIDENCE_PER_DOUBLING * np.log2(abs(z) / self.min_z)
        way = "up" if m["loss_jump"] > 0 else "down"
        went = (
            f"The step counter went back from {m['resumed_from_step']} to {m['resume_step']}"
            if m["resume_step"] <= m["resumed_from_step"]
            else f"A new segment of the run began at step {m['resume_step']}"
        )
        summary = (
            f"{went} and the loss jumped {way} there "
            f"({m['loss_before']:.4g} -> {m['loss_after']:.4g}, "
            f"{abs(m['loss_jump']):.0f} standard errors)"
            + _earlier_match(m)
            + ("; the learning rate restarted too." if m["lr_jump"] else ".")
        )
        evidence = {k: v for k, v in m.items() if k != "end_step"}
        return Finding(
            self.label,
            float(np.clip(conf, 0.5, _CONFIDENCE_CAP)),
            Span(m["resume_step"], m["end_step"]),
            evidence,
            summary,
        )

    def detect(self, run: RunSeries) -> Finding | None:
        m = self.measure(run)
        return None if m is None else self.judge(m)


def _appended_runs(s: np.ndarray, restarts: np.ndarray, rows: list[dict]) -> np.ndarray:
    """Which restarts begin a complete run appended to the log: the counter went back to the
    log's first step, the loss there is at least halfway back from where the earlier run
    stopped to its untrained start at those steps (a model trained from scratch again, not one
    that kept its weights; a NaN there, steps never logged before, says neither), and the
    segment before reached at least as far as the one it starts (nothing was interrupted and
    resumed: each segment is a run of its own)."""
    bounds = np.r_[0, restarts, len(s)]
    ends = np.array([s[a:b].max() for a, b in zip(bounds[:-1], bounds[1:], strict=True)])
    # at least halfway from where the earlier run stopped back to its start at those steps
    untrained = np.array([2 * row["after"] >= row["old"] + row["before"] for row in rows])
    return (s[restarts] <= s.min()) & (ends[:-1] >= ends[1:]) & untrained


def _earlier_match(m: dict) -> str:
    """What a resumed loss that matches the earlier run's at the same steps says: a stale
    checkpoint mid-run; at the run's first step, where the earlier run was untrained, a start
    from scratch (weights not restored, or a new run appended to the same log)."""
    if not m["matches_earlier_run"]:
        return ""
    if m["resume_step"] <= m["first_step"]:
        return (
            "; it matches the earlier run's untrained start at those steps: training began "
            "again from scratch (weights not restored, or a new run appended to the same log)"
        )
    return "; it matches what the earlier run logged at those steps (a stale checkpoint)"


def _metrics_changed(run: RunSeries, before: int, after: int) -> bool:
    """Whether the segments on either side of a restart log different metrics: some logged
    (twice or more) only before it and some only after it. A resume logs what the run logged;
    a second phase with its own loss terms (`Divers`, `Entropy` gone, `Sal` new) or another
    model appended to the log is no resume. The same segment on both sides: nothing to compare."""
    if before == after:
        return False
    codes, names = run.metric_codes()
    seg = run.segments()
    logged = [
        np.bincount(codes[(seg == part) & (codes >= 0)], minlength=len(names)) >= _PHASE_MIN_WRITES
        for part in (before, after)
    ]
    return bool((logged[0] & ~logged[1]).any() and (logged[1] & ~logged[0]).any())


def _noise(loss: Written, fin: np.ndarray) -> float:
    """The noise of one point the k-point medians are taken of: the step-sorted reduced
    curve's trend-free noise; on writes judged in blocks, that of the block means themselves
    (a block mean is quieter than a point by sqrt(block))."""
    if loss.block == 1:
        return detrended_noise(fin)
    return detrended_noise(loss.values[np.isfinite(loss.values)])


def _logged_restart(run: RunSeries, loss: Written, r: int, since: int) -> tuple[int, int, bool]:
    """Point r of writes judged in blocks is a restart (`since`: the restart before it, or 0);
    what blocks blur, from the logged rows of a few blocks: the steps it went between (the
    first restart among the logged points of its block and the one before; the blocks' own
    when none is there), and whether the next block's worth of logged points replays (step,
    value) pairs logged at those steps since the restart before (the same log written twice)."""
    b, name, role = loss.block, str(loss.metric), loss.role
    first = (int(loss.at[r]) - 1) * b
    s, y, seg = run.logged(name, first, first + 2 * b, role)
    same = (s[1:] == s[:-1]) & ((y[1:] == y[:-1]) | (np.isnan(y[1:]) & np.isnan(y[:-1])))
    kept = np.flatnonzero(np.r_[True, ~same])  # exact repeats dropped, as in source_order
    ks, kseg = s[kept], seg[kept]
    back = np.flatnonzero((ks[1:] <= ks[:-1]) | (kseg[1:] != kseg[:-1]))
    if len(back) == 0:
        return int(loss.steps[r]), int(loss.steps[r - 1]), False
    at = first + int(kept[back[0] + 1])  # the restart's position among the writes
    after_s, after_y, _ = run.logged(name, at, at + b, role)
    # the logged points at those steps before it lie in the blocks around those steps
    steps = loss.steps[since:r]
    lo = since + max(int(np.searchsorted(steps, after_s.min())) - 1, 0)
    hi = since + min(int(np.searchsorted(steps, after_s.max(), side="right")) + 1, len(steps))
    replayed = False
    if lo < hi:
        start, stop = int(loss.at[lo]) * b, min((int(loss.at[hi - 1]) + 1) * b, at)
        es, ey, _ = run.logged(name, start, stop, role)
        with np.errstate(invalid="ignore"):  # as in _at_restart
            replayed = bool(np.all(np.isin(after_s + 1j * after_y, es + 1j * ey)))
    return int(ks[back[0] + 1]), int(ks[back[0]]), replayed


def _at_restart(s: np.ndarray, y: np.ndarray, r: int, k: int, se2: float) -> dict:
    """The loss level of the k points after restart r against the k before it, less the change
    the curve was already making (the k points before those, when that change is beyond 2
    standard errors `se2`), so a steady descent across the restart is not a jump. A restart
    that replays earlier (step, value) pairs exactly (the same log written twice) has none."""
    after, before = _median(y[r : r + k]), _median(y[max(0, r - k) : r])
    if r >= 2 * k:
        prior = _median(y[max(0, r - 2 * k) : max(0, r - k)])
    elif r >= 2:
        # fewer than 2k points before the restart (a short epoch log resumed early): the change
        # over k points from the slope of the points that are there
        prior = before - k * float(y[r - 1] - y[0]) / (r - 1)
    else:
        prior = float("nan")
    hi = int(np.max(s[r : r + k]))
    earlier = (s[:r] >= s[r]) & (s[:r] <= hi)
    old = _median(y[:r][earlier])
    with np.errstate(invalid="ignore"):  # inf * 1j; NaN never matches, as it should not
        replay = bool(
            np.all(np.isin(s[r : r + k] + 1j * y[r : r + k], s[:r][earlier] + 1j * y[:r][earlier]))
        )
    trending = bool(np.isfinite(prior) and abs(before - prior) > 2 * se2)
    jump = after - before - (before - prior if trending else 0.0)
    # a loss no higher after the restart than before it is no jump up, however much faster it
    # fell before (a slowing descent continued across a counter reset: `fit()` called again)
    jump = min(jump, after - before) if after <= before else jump
    return {
        "step": int(s[r]),
        "from_step": int(s[r - 1]),
        "hi": hi,
        "before": before,
        "after": after,
        "old": old,
        "detrended": trending,
        "jump": 0.0 if replay or not np.isfinite(jump) else float(jump),
    }


def _lr_jump(
    lx: np.ndarray, ly: np.ndarray, nth: int, restarts: int, from_step: int, to_step: int
) -> bool:
    """Whether the LR logged around the loss's `nth` of `restarts` restarts (the counter going
    back from `from_step` to `to_step`) changes by more than 2x across it. Several appended runs
    all restart at step 0, so the step alone does not say which restart it is: when the LR
    restarts as often as the loss, the same one in order; otherwise the one going back between
    the closest pair of steps."""
    back = np.flatnonzero(lx[1:] <= lx[:-1]) + 1
    if len(back) == 0:
        return False
    if len(back) == restarts:
        r = back[nth]
    else:
        r = back[np.argmin(np.abs(lx[back - 1] - from_step) + np.abs(lx[back] - to_step))]
    a, b = ly[r - 1], ly[r]
    return bool(np.isfinite(a) and np.isfinite(b) and max(a, b) >= _LR_JUMP * max(min(a, b), TINY))
