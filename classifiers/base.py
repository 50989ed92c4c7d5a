"""The classifier contract: one label, one small class, declared needs, `detect(run)`.

    class Overfit(Classifier):
        label = "overfit"
        needs = frozenset({"train_loss", "val_loss"})
        min_points = 5

        def __init__(self, *, min_rise: float = 0.05) -> None:   # keyword-only tunables
            self.min_rise = min_rise

        def detect(self, run: RunSeries) -> Finding | None: ...

`skip_reason(run)` says why a run cannot be judged (missing roles, too few finite points); the
diagnosis lists it under `skipped`. `detect` returns a Finding with evidence, never a bare bool;
causes are attached later by the playbook. When `detect` found nothing, `set_aside(run)` may
name a sign of the label that the check saw and judged benign, in one sentence saying why (a
NaN at the first evaluation only): the diagnosis lists it under `set_aside`, so a verdict is
never silent on what a user sees in the log.
"""

from __future__ import annotations

from typing import ClassVar

from lossforensics.classifiers.diagnosis import Finding
from lossforensics.classifiers.run import RunSeries

_ROLE_WORDS = {
    "train_loss": "training loss",
    "val_loss": "validation loss",
    "lr": "learning rate",
    "grad_norm": "gradient norm",
    "train_score": "training metric",
    "val_score": "validation metric",
    "throughput": "throughput",
}


class Classifier:
    label: ClassVar[str]
    needs: ClassVar[frozenset[str]] = frozenset({"train_loss"})
    # points a label needs in each role unless it says otherwise: fewer show no shape to judge
    min_points: ClassVar[int] = 8
    # Count (and judge) each needed role at its finest logging (RunSeries.detailed): spikes,
    # swings and per-epoch cycles live in a `_step` series, not in its `_epoch` mean.
    per_step: ClassVar[bool] = False

    def skip_reason(self, run: RunSeries) -> str | None:
        """None when the run can be judged, else a sentence saying what is missing."""
        missing = sorted(r for r in self.needs if not run.has(r))
        if missing:
            return "no " + " and no ".join(_ROLE_WORDS.get(r, r) for r in missing) + " logged"
        for role in sorted(self.needs):
            curve = run.detailed(role) if self.per_step else run.curve(role)
            n = 0 if curve is None else len(curve)
            if n < self.min_points:
                finest = " at its finest logging" if self.per_step else ""
                return (
                    f"{_ROLE_WORDS.get(role, role)} has {n} point(s){finest}; "
                    f"{self.label} needs at least {self.min_points}"
                )
        return None

    def detect(self, run: RunSeries) -> Finding | None:  # pragma: no cover - abstract
        raise NotImplementedError

    def set_aside(self, run: RunSeries) -> str | None:
        """Called when `detect` found nothing: a sign of this label the check judged benign,
        and why, in one sentence; None when there was none (most checks have no such sign)."""
        return None

    def __repr__(self) -> str:
        params = ", ".join(f"{k}={v!r}" for k, v in sorted(vars(self).items()))
        return f"{type(self).__name__}({params})"
