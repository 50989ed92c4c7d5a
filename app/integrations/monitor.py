"""Monitor: a run diagnosed while it trains, for hand-written loops and under every callback.

    from lossforensics.integrations import Monitor

    monitor = Monitor("my-run", stop_on={"nan", "exploding"}, output="diagnosis.json")
    for step, batch in enumerate(loader):
        loss = train_step(batch)
        if monitor.log(step, loss=loss.item(), lr=sched.get_last_lr()[0], grad_norm=gn):
            break                        # a stop_on label appeared (or raise_on_stop=True)
    monitor.close()                      # last tick, writes the final diagnosis JSON

Each `log` adds the step's points to an IncrementalDiagnosis (the one `watch` and the service
use) and ticks it only when due: at once when a new loss is non-finite or far above its best,
else when the steps logged since the last tick have paid for one at `budget_s` each, so the
overhead stays near `budget_s` a logged step however long the run (a step that logs nothing
costs nothing). Findings are said by `alerts.Alerts`' rule: nan and exploding at once, a course
label (plateau, overfit, ...) only once it persists while the run grows by a quarter (a label
a few more points take back is never said), and at `close()` whatever the final diagnosis
still holds. Each is warned once (LossForensicsWarning: its summary and first check); a finding
said and later explained otherwise is warned as superseded. A finding said whose label is in
`stop_on` makes `log` return True (the callbacks set their framework's stop flag;
`raise_on_stop=True` raises TrainingStopped instead). `post=URL` sends the points, a batch a
tick, to a live run of that name in a lossforensics service; a failed post is warned once and
training goes on.
"""

from __future__ import annotations

import math
import time
import warnings
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from lossforensics.classifiers.diagnosis import Diagnosis, Finding
from lossforensics.classifiers.incremental import IncrementalDiagnosis, Tick
from lossforensics.integrations.alerts import Alerts

STOP_DEFAULT: frozenset[str] = frozenset()


class LossForensicsWarning(UserWarning):
    """A finding about the run being trained (one warning per new finding)."""


class TrainingStopped(RuntimeError):
    """Raised by `Monitor.log` with raise_on_stop=True when a stop_on label appears."""

    def __init__(self, finding: Finding) -> None:
        super().__init__(f"stopping: {finding.label}: {finding.summary}")
        self.finding = finding


class Monitor:
    """Diagnoses a training run from the points it logs (see the module docstring).

    Args:
        run: the run's name (in the diagnosis, and the live run's name in a service).
        stop_on: labels that stop training ({"nan", "exploding"}).
        output: where `close()` writes the final diagnosis JSON (None: nowhere).
        post: a lossforensics service URL to send the points to (token: its bearer token).
        raise_on_stop: raise TrainingStopped instead of returning True.
        warn: warn on each new or superseded finding.
        budget_s: diagnosis time a logged step may pay for (amortised overhead per step).
        roles: metric name (or glob) -> role, over the inferred ones.
    """

    def __init__(
        self,
        run: str = "run",
        *,
        stop_on: Iterable[str] = STOP_DEFAULT,
        output: str | Path | None = None,
        post: str | None = None,
        token: str | None = None,
        raise_on_stop: bool = False,
        warn: bool = True,
        budget_s: float = 0.004,
        roles: dict[str, str] | None = None,
        clock: Callable[[], float] = time.perf_counter,
    ) -> None:
        self.stop_on = frozenset(stop_on)
        self.output = Path(output) if output is not None else None
        self.raise_on_stop = raise_on_stop
        self.warn = warn
        self.live = IncrementalDiagnosis(run, roles=roles, budget_s=budget_s, clock=clock)
        self.alerts = Alerts()
        self.stopped_by: Finding | None = None
        self._post = _Poster(post, token, run) if post else None
        self._closed = False

    @property
    def diagnosis(self) -> Diagnosis | None:
        """The diagnosis at the last tick (None before the first)."""
        return self.live.diagnosis

    @property
    def should_stop(self) -> bool:
        return self.stopped_by is not None

    def log(self, step: int, *, wall_time: float | None = None, **metrics: Any) -> bool:
        """One logged step: `log(step, loss=..., val_loss=..., lr=..., grad_norm=...)`; any
        other name is a metric too (its role inferred from the name). Values that are None or
        not numbers are left out. Returns True when training should stop."""
        points = {k: x for k, v in metrics.items() if (x := as_number(v)) is not None}
        if points:
            self.live.log(
                int(step), wall_time=time.time() if wall_time is None else wall_time, **points
            )
            if self._post is not None:
                self._post.add(int(step), points)
            if self.live.due():
                self.check()
        return self.should_stop

    def check(self, *, final: bool = False) -> Tick:
        """Tick now (the callbacks call this at evaluation ends); warns and stops as `log`.
        `final`: the run has ended, every finding still held is said."""
        tick = self.live.tick()
        if self._post is not None and tick.points:
            self._post.flush()
        if not tick.judged and not final:
            return tick
        new, superseded = self.alerts.update(tick.diagnosis, self.live.points, final=final)
        for f in new:
            if self.warn:
                warnings.warn(_message(self.live.run, f), LossForensicsWarning, stacklevel=3)
            if f.label in self.stop_on and self.stopped_by is None:
                self.stopped_by = f
        for s in superseded:
            if self.warn:
                warnings.warn(
                    f"lossforensics [{self.live.run}]: {s.describe()}",
                    LossForensicsWarning,
                    stacklevel=3,
                )
        if self.stopped_by is not None and self.raise_on_stop:
            raise TrainingStopped(self.stopped_by)
        return tick

    def close(self) -> Diagnosis | None:
        """The last tick; writes the final diagnosis JSON to `output`. Returns the diagnosis."""
        if not self._closed:
            self._closed = True
            if self.live.points:
                raise_on_stop, self.raise_on_stop = self.raise_on_stop, False
                self.check(final=True)
                self.raise_on_stop = raise_on_stop
            if self.output is not None and self.live.diagnosis is not None:
                self.output.parent.mkdir(parents=True, exist_ok=True)
                tmp = self.output.with_suffix(self.output.suffix + ".tmp")
                tmp.write_text(self.live.diagnosis.to_json(indent=2))
                tmp.replace(self.output)
        return self.live.diagnosis

    def __enter__(self) -> Monitor:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def as_number(value: Any) -> float | None:
    """A float from a Python/numpy number or a one-element tensor; None otherwise."""
    if value is None or isinstance(value, bool | str):
        return None
    item = getattr(value, "item", None)
    if item is not None and getattr(value, "numel", lambda: 1)() == 1:
        value = item()
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


def _message(run: str, f: Finding) -> str:
    check = next((c.checks[0] for c in f.causes if c.checks), None)
    span = f" (steps {f.span.start_step}-{f.span.end_step})" if f.span else ""
    text = f"lossforensics [{run}]: {f.label}{span}: {f.summary}"
    return text + (f" First check: {check}" if check else "")


class _Poster:
    """Sends a run's points to a service's live run, a batch a tick."""

    def __init__(self, url: str, token: str | None, run: str) -> None:
        self.url, self.token, self.run = url, token, run
        self.rows: list[dict[str, Any]] = []
        self.client: Any = None
        self.run_id: str | None = None
        self.failed = False

    def add(self, step: int, points: dict[str, float]) -> None:
        self.rows.extend(
            {"metric": k, "step": step, "value": v if math.isfinite(v) else str(v)}
            for k, v in points.items()
        )

    def flush(self) -> None:
        rows, self.rows = self.rows, []
        if self.failed or not rows:
            return
        try:
            if self.client is None:
                from lossforensics.client import Client

                self.client = Client(self.url, token=self.token)
                self.run_id = self.client.create_live_run(self.run).id
            self.client.append(self.run_id, rows)
        except Exception as exc:  # the service is optional: training goes on without it
            self.failed = True
            warnings.warn(
                f"lossforensics: could not post points to {self.url} ({exc}); not trying again",
                LossForensicsWarning,
                stacklevel=4,
            )
