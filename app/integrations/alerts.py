"""Which findings of a growing run to say, and when: the rule shared by `Monitor` (so every
callback) and `watch`.

A live run's diagnosis after each tick is exactly a full diagnosis of the points so far, so it
can flag a short, noisy prefix of a run that a few more points clear (a plateau that resumes
falling, swings that average out). A user watching a run should not be told of a label that
the next points take back, nor have training stopped by one. So:

- **Act-now labels** (`URGENT`: nan, exploding) are said at the first tick that finds them:
  the run is being burnt now, and waiting would cost exactly the steps they exist to save.
- **Course labels** (plateau, overfit, underfit, oscillating, unshuffled,
  distribution_mismatch, lr_decayed_too_early, loss_spikes, metric_mismatch, and any other
  label) describe the shape of the run, and the classifiers judge them on proportions of it
  (the last 40% for a plateau, the first and last fifths for swings, the last 15% for an
  underfit end). One is said once it **persists**: it was found at every tick since it first
  appeared, and the run has meanwhile grown by at least `PERSIST_GROWTH` (a quarter) of the
  points it had then, so those windows have moved by a good part of their own length and
  still say the same. A finding that drops out before that restarts its clock if it returns.
- **At the end** (`final=True`: the Monitor's close, watch's idle exit) every finding of the
  final diagnosis still unsaid is said: that diagnosis is the complete run's, nothing can
  take it back.

A label said and later gone is reported as superseded (once); one never said goes silently.
Stopping (`stop_on`, `--fail-on`) acts on the findings said, so a course label in `stop_on`
stops training only once it persists.
"""

from __future__ import annotations

from collections.abc import Iterable

from lossforensics.classifiers.diagnosis import Diagnosis, Finding
from lossforensics.classifiers.incremental import Superseded

URGENT: frozenset[str] = frozenset({"nan", "exploding"})
# A course label is said once the run grew by this fraction since it first appeared (held at
# every tick in between): the classifiers' windows are proportions of the run.
PERSIST_GROWTH = 0.25


class Alerts:
    """The findings said so far of one growing run (see the module docstring).

    Args:
        urgent: labels said at once.
        growth: how much the run must grow (a fraction of its points when a course label first
            appeared) while the label holds before it is said.
    """

    def __init__(self, *, urgent: Iterable[str] = URGENT, growth: float = PERSIST_GROWTH) -> None:
        self.urgent = frozenset(urgent)
        self.growth = growth
        self.said: dict[str, Finding] = {}
        self.pending: dict[str, int] = {}  # course label -> the run's points when it appeared

    def update(
        self, diagnosis: Diagnosis, points: int, *, final: bool = False
    ) -> tuple[list[Finding], list[Superseded]]:
        """The findings to say now and the said ones superseded, given the diagnosis of the
        run's `points` points (call after each judged tick; `final` at the end)."""
        now = {f.label: f for f in diagnosis.findings}
        self.pending = {label: at for label, at in self.pending.items() if label in now}
        new: list[Finding] = []
        for label, finding in now.items():
            if label in self.said:
                self.said[label] = finding
                continue
            first = self.pending.setdefault(label, points)
            if final or label in self.urgent or points >= first * (1 + self.growth) > first:
                new.append(finding)
                self.said[label] = finding
                del self.pending[label]
        came = tuple(f.label for f in new)
        gone = [Superseded(f, came) for label, f in self.said.items() if label not in now]
        for s in gone:
            del self.said[s.finding.label]
        return new, gone
