"""resume_discontinuity: the step counter jumps back (or repeats) and the loss jumps there.

Symptom: a run resumed from a checkpoint without its optimizer, scheduler or sampler state:
the log repeats steps, and the loss right after the restart sits well away from where it was.
Signal read: the primary train loss in source order (`seq`), not step order. A restart is a row
whose step is at or below the previous row's (exact repeats of the previous step and value, an
epoch metric written twice, are dropped first). At each restart the level of the next k points
is compared with two references: the k points just before the restart (where training was) and
the points logged earlier at the same steps (where the checkpoint was). A faithful resume
matches the second; a counter reset that kept training matches the first; only a loss that
matches neither is a discontinuity, so the jump is the smaller of the two differences.
Rule: some restart's jump is at least `min_z` standard errors (of a difference of two k-point
medians, from the step-sorted curve's noise) and `min_rel` of the curve's robust range. More
restarts than `max_restarts` or 5% of the points means interleaved writers (ranks,
processes), not resumes: no finding.
Confidence: 0.5 at the thresholds, rising with the jump in standard errors, capped at 0.95.
Evidence: restarts, resume_step, resumed_from_step, loss_jump (signed, in standard errors),
loss_jump_rel (share of the robust range), loss_after, loss_reference (the closer of the two
references), reference ('before_restart' | 'same_steps_earlier'), lr_jump (bool: the LR
differs by more than 2x across the restart, e.g. the scheduler restarted).
Known false positives: two different runs appended to one log under one name (a restart to
step 0 with a different model); a restart exactly at an LR milestone.
"""

from __future__ import annotations

import numpy as np

from classifiers.base import Classifier
from classifiers.diagnosis import Finding, Span
from classifiers.run import RunSeries
from classifiers.signals import TINY, noise_level, robust_range


def source_order(run: RunSeries, role: str) -> tuple[np.ndarray, np.ndarray]:
    """The role's primary metric as (steps, values) in source order, exact repeats dropped."""
    name = run.primary(role)
    if name is None:
        return np.array([], np.int64), np.array([])
    f = run.frame
    mask = ((f["metric"] == name) & (f["role"] == role)).to_numpy(bool)
    s = f["step"].to_numpy(np.int64)[mask]  # two columns, not a copy of the whole frame
    y = f["value"].to_numpy(np.float64)[mask]
    keep = np.ones(len(s), bool)
    keep[1:] = (s[1:] != s[:-1]) | ~((y[1:] == y[:-1]) | (np.isnan(y[1:]) & np.isnan(y[:-1])))
    return s[keep], y[keep]


def _median(a: np.ndarray) -> float:
    a = a[np.isfinite(a)]
    return float(np.median(a)) if len(a) else float("nan")


class ResumeDiscontinuity(Classifier):
    label = "resume_discontinuity"
    needs = frozenset({"train_loss"})
    min_points = 8

    def __init__(self, *, min_z: float = 6.0, min_rel: float = 0.1,
                 max_restarts: int = 50) -> None:
        self.min_z = min_z
        self.min_rel = min_rel
        self.max_restarts = max_restarts

    def measure(self, run: RunSeries) -> dict | None:
        s, y = source_order(run, "train_loss")
        restarts = np.flatnonzero(s[1:] <= s[:-1]) + 1
        if len(restarts) == 0 or len(restarts) > max(self.max_restarts, 0.05 * len(s)):
            return None
        curve = run.curve("train_loss")
        fin = curve.values[curve.finite]
        noise, span = max(noise_level(fin), TINY), max(robust_range(fin), TINY)
        k = int(np.clip(len(s) // 100, 3, 50))
        lx, ly = source_order(run, "lr")
        best = None
        for r in restarts:  # one pass per restart (at most max_restarts), never per point
            after = _median(y[r:r + k])
            before = _median(y[max(0, r - k):r])
            hi = int(np.max(s[r:r + k]))  # the after-window can hold a further restart
            old = _median(y[:r][(s[:r] >= s[r]) & (s[:r] <= max(hi, s[r]))])
            refs = np.array([before, old])
            jumps = np.where(np.isfinite(refs), after - refs, np.inf)
            if not np.isfinite(jumps).any():
                continue
            pick = int(np.argmin(np.abs(jumps)))
            if best is None or abs(jumps[pick]) > abs(best["jump"]):
                best = {"r": int(r), "jump": float(jumps[pick]), "ref": float(refs[pick]),
                        "pick": pick, "after": after, "hi": hi}
        if best is None:
            return None
        r = best["r"]
        return {
            "restarts": int(len(restarts)), "resume_step": int(s[r]),
            "resumed_from_step": int(s[r - 1]), "end_step": int(best["hi"]),
            # in standard errors of a difference of two k-point medians
            "loss_jump": best["jump"] / (1.25 * noise * np.sqrt(2.0 / k)),
            "loss_jump_rel": best["jump"] / span,
            "loss_reference": best["ref"], "loss_after": best["after"],
            "reference": ("before_restart", "same_steps_earlier")[best["pick"]],
            "lr_jump": _lr_jump(lx, ly, int(s[r])),
        }

    def judge(self, m: dict) -> Finding | None:
        if abs(m["loss_jump"]) < self.min_z or abs(m["loss_jump_rel"]) < self.min_rel:
            return None
        conf = 0.5 + 0.15 * np.log2(abs(m["loss_jump"]) / self.min_z)
        way = "up" if m["loss_jump"] > 0 else "down"
        summary = (f"The step counter went back from {m['resumed_from_step']} to "
                   f"{m['resume_step']} and the loss jumped {way} there "
                   f"({m['loss_after']:.4g} against {m['loss_reference']:.4g} "
                   + ("just before it, " if m["reference"] == "before_restart"
                      else "logged earlier at the same steps, ")
                   + f"{abs(m['loss_jump']):.0f} standard errors)"
                   + (", with the learning rate restarting too." if m["lr_jump"] else "."))
        evidence = {k: v for k, v in m.items() if k != "end_step"}
        return Finding(self.label, float(np.clip(conf, 0.5, 0.95)),
                       Span(m["resume_step"], m["end_step"]), evidence, summary)

    def detect(self, run: RunSeries) -> Finding | None:
        m = self.measure(run)
        return None if m is None else self.judge(m)


def _lr_jump(lx: np.ndarray, ly: np.ndarray, after_step: int) -> bool:
    """Whether the LR logged around the restart changes by more than 2x across it."""
    back = np.flatnonzero(lx[1:] <= lx[:-1]) + 1
    if len(back) == 0:
        return False
    r = back[np.argmin(np.abs(lx[back] - after_step))]
    a, b = ly[r - 1], ly[r]
    return bool(np.isfinite(a) and np.isfinite(b) and max(a, b) > 2 * max(min(a, b), TINY))
