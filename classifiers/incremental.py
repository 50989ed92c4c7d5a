"""IncrementalDiagnosis: a run diagnosed while it grows, one `tick()` at a time.

    live = IncrementalDiagnosis("my-run")
    live.log(step, loss=2.31, lr=3e-4)          # or add(metric, steps, values) / add_frame(frame)
    if live.due():                              # cheap: always after a non-finite loss
        tick = live.tick()
        tick.new, tick.superseded, tick.diagnosis

Contract: after every `tick()`, `tick.diagnosis` equals `diagnose()` of the same points (the
tests compare the two on every corpus run). What a tick costs:

- the run's view is kept, not rebuilt (classifiers._growing_run.GrowingRun): points go into
  growable buffers, and each batch updates from its own rows what RunSeries would otherwise
  derive from every row: each metric's step-sorted curve (extended while its steps keep
  rising; a step logged again, as after a resume, has that one curve re-cut once), each
  metric's writes in source order (the curve's buffers until a resume, then their own), the
  (metric, role) counts that rank a role's metrics, the metric infos of the Diagnosis, each
  metric's row positions, and the frame's string columns (arrow chunks). Building the view
  costs O(new points) (`touched` counts the rows; tests hold it to the new points whatever the
  run's length), buffer growth amortised aside (`regrown`);
- the classifiers then judge the run as `diagnose` does, at the judging resolution
  (classifiers.resolution): a curve over JUDGED_POINTS (2**15) points is judged on block
  aggregates of power-of-two blocks of consecutive points (mean, non-finite when a point is;
  highest value; placed at the first non-finite or highest point's step), in diagnose as here.
  Complete blocks never change, so the view keeps them and updates them from the new points
  (merging pairs when the block size doubles): the classifiers are handed at most
  JUDGED_POINTS points a curve (between half of it and all of it once a curve is longer), so
  what they compute costs about the same at 1M points as at 10M.
  The writes in source order (nan's, resume_discontinuity's) are kept the same way, their
  segments read one row a judged point, and resume_discontinuity reads the logged rows of the
  two blocks at the restart it reports: no classifier reads every row of the run.
  Their rules read proportions of the run (the last 40% for a plateau, a trend over a tenth
  of it), so they judge every judged point again each tick: a tick's CPU time follows the
  points judged (between half of JUDGED_POINTS and all of it a curve), not the run, and at 1M
  points, reading included, is about a thirtieth of a full diagnosis of the file
  (benchmarks/watch.py);
- a tick with no new points returns the last diagnosis without judging anything;
- `due()` schedules the judging: at once when a new point is a non-finite or far-risen loss (the
  nan and exploding signals, checked on the new tail only, O(new points)), else when the points
  logged since the last tick have paid for it at `budget_s` a point. A caller that ticks only
  when due spends at most about `budget_s` per logged point on diagnosis however long the run.

Supersession: a finding present at one tick and absent at the next was explained otherwise by
the later points (a jump later seen to be a resume, a plateau that resumed falling); the tick
reports it in `superseded`, with the labels that appeared in its place, so a watcher can say so
instead of staying silent.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from lossforensics.classifiers._growing_run import GrowingRun
from lossforensics.classifiers.base import Classifier
from lossforensics.classifiers.diagnose import diagnose_run
from lossforensics.classifiers.diagnosis import Diagnosis, Finding
from lossforensics.classifiers.frame import COLUMNS, ROLE_DTYPE, validate_frame
from lossforensics.classifiers.roles import infer_role, override_role
from lossforensics.classifiers.run import RunSeries

_LOSS_ROLES = frozenset({"train_loss", "val_loss"})
# A new training loss this many times above the lowest running median so far makes the next
# tick due at once (this only schedules: exploding's own rule decides).
_RISE_ALERT = 3.0
# Points in the running median that sets the level the rise is measured from: wide enough that
# a one- or two-point spike does not lower it, short enough to follow the early fall
_LEVEL_WINDOW = 9


@dataclass(frozen=True)
class Superseded:
    """A finding that later points explained otherwise; `by` are the labels that came instead."""

    finding: Finding
    by: tuple[str, ...]

    def describe(self) -> str:
        instead = f" (now: {', '.join(self.by)})" if self.by else ""
        return f"{self.finding.label} no longer holds given the later points{instead}"


@dataclass(frozen=True)
class Tick:
    """What one tick found: the diagnosis of every point so far, the findings whose label is
    new since the previous tick and the ones superseded."""

    diagnosis: Diagnosis
    new: list[Finding] = field(default_factory=list)
    superseded: list[Superseded] = field(default_factory=list)
    points: int = 0  # points added by this tick
    judged: bool = True  # False: no new points, the previous diagnosis was returned


class IncrementalDiagnosis:
    """One run's points as they arrive; `tick()` diagnoses them all, exactly as `diagnose`.

    Args:
        run: the run's name (the Diagnosis's `run`).
        roles: metric name (or glob) -> role, over the inferred roles of points added by name.
        classifiers: the classifiers to run (default: every registered one).
        source: passed to the Diagnosis (`{"format": ..., "files": [...]}`).
        budget_s: seconds of diagnosis a logged point may pay for, for `due()`.
        clock: a monotonic clock in seconds (tests pass a fake one).
    """

    def __init__(
        self,
        run: str = "run",
        *,
        roles: Mapping[str, str] | None = None,
        classifiers: Iterable[Classifier] | None = None,
        source: dict[str, Any] | None = None,
        warnings: Iterable[Any] | None = None,
        # 2 ms of judging a logged point: well under the callbacks' 10 ms a step budget
        budget_s: float = 0.002,
        clock: Callable[[], float] = time.perf_counter,
    ) -> None:
        self.run = run
        self.roles = dict(roles or {})
        self.classifiers = list(classifiers) if classifiers is not None else None
        self.source = source
        self.warnings = list(warnings or ())
        self.budget_s = budget_s
        self.clock = clock
        self.diagnosis: Diagnosis | None = None
        self._extra = [c for c in COLUMNS if c not in _KNOWN]
        self._run = GrowingRun(run, self._extra)
        self._names: list[str] = []
        self._codes: dict[str, int] = {}
        self._role_of: list[int] = []  # a metric's role code, for points added by name
        self._pending: list[dict[str, np.ndarray]] = []
        self._pending_points = 0
        self._logged_since = 0  # log/add calls since the last tick (steps, for a callback)
        self._alert = False
        self._level_min = np.inf
        self._recent = np.zeros(0)
        self._last_cost = 0.0
        self._next_seq = 0

    # -- adding points -------------------------------------------------------------------

    @property
    def points(self) -> int:
        """Points judged by the last tick plus the ones waiting for the next."""
        return self._run.n + self._pending_points

    @property
    def pending(self) -> int:
        return self._pending_points

    def add(
        self,
        metric: str,
        steps: Iterable[int] | int,
        values: Iterable[float] | float,
        wall_time: Iterable[float] | float | None = None,
        *,
        role: str | None = None,
    ) -> None:
        """Points of one metric, in the order logged. The role is inferred from the name (or
        `roles`) unless given."""
        step = np.atleast_1d(np.asarray(steps, dtype=np.int64))
        value = np.atleast_1d(np.asarray(values, dtype=np.float64))
        if len(step) != len(value):
            raise ValueError(f"{metric}: {len(step)} steps but {len(value)} values")
        wall = (
            np.full(len(step), np.nan)
            if wall_time is None
            else np.broadcast_to(np.asarray(wall_time, dtype=np.float64), step.shape)
        )
        code = self._metric_code(metric, role)
        self._push(
            np.full(len(step), code, dtype=np.int32),
            np.full(len(step), self._role_of[code], dtype=np.int8),
            step,
            value,
            wall,
            None,
            {},
        )

    def log(self, step: int, wall_time: float | None = None, **metrics: float | None) -> None:
        """One logged step of a hand-written loop: `log(100, loss=2.3, lr=3e-4)`. None values
        are not points (a metric not logged at this step)."""
        for name, value in metrics.items():
            if value is not None:
                self.add(name, step, float(value), wall_time)
        self._logged_since += 1

    def add_frame(self, frame: pd.DataFrame) -> None:
        """Rows of a normalised frame of this run, roles kept; `seq` kept too, shifted after the
        points already added when the chunk numbers its rows from 0."""
        frame = validate_frame(frame)
        if not len(frame):
            return
        seq = frame["seq"].to_numpy(np.int64)
        if len(seq) > 1 and not np.all(seq[1:] >= seq[:-1]):
            frame = frame.sort_values("seq", kind="stable")
            seq = frame["seq"].to_numpy(np.int64)
        if len(seq) and seq[0] < self._next_seq:  # a chunk numbered from 0: keep a total order
            seq = seq - seq[0] + self._next_seq
        metric_codes, names = pd.factorize(frame["metric"], sort=False)
        roles = np.asarray(frame["role"].array.codes, dtype=np.int8)
        lookup = np.array([self._metric_code(str(n), None, known=True) for n in names])
        codes = lookup[metric_codes].astype(np.int32)
        first = np.unique(metric_codes, return_index=True)[1]
        for code, row in zip(lookup.tolist(), first.tolist(), strict=True):
            if self._role_of[code] < 0:
                self._role_of[code] = int(roles[row])
        extra = {c: frame[c].to_numpy(np.int64) for c in self._extra if c in frame.columns}
        self._push(
            codes,
            roles,
            frame["step"].to_numpy(np.int64),
            frame["value"].to_numpy(np.float64),
            frame["wall_time"].to_numpy(np.float64),
            seq,
            extra,
        )

    def _metric_code(self, name: str, role: str | None, *, known: bool = False) -> int:
        code = self._codes.get(name)
        if code is None:
            code = self._codes[name] = len(self._names)
            self._names.append(name)
            if known:
                self._role_of.append(-1)  # set from the frame's rows
            else:
                chosen = role or override_role(name, infer_role(name), self.roles)
                self._role_of.append(_ROLE_CODE[chosen])
        return code

    def _push(
        self,
        codes: np.ndarray,
        roles: np.ndarray,
        steps: np.ndarray,
        values: np.ndarray,
        wall: np.ndarray,
        seq: np.ndarray | None,
        extra: dict[str, np.ndarray],
    ) -> None:
        n = len(steps)
        if not n:
            return
        if seq is None:
            seq = np.arange(self._next_seq, self._next_seq + n, dtype=np.int64)
        self._next_seq = max(self._next_seq, int(seq[-1]) + 1)
        self._pending.append(
            {
                "metric": codes,
                "role": roles,
                "step": steps,
                "value": values,
                "wall_time": wall,
                "seq": seq,
                **extra,
            }
        )
        self._pending_points += n
        self._watch_tail(roles, values)

    def _watch_tail(self, roles: np.ndarray, values: np.ndarray) -> None:
        """The nan / exploding signals on the new points only: makes the next tick due now when
        a loss is non-finite, or the training loss is _RISE_ALERT x above the lowest running
        median of its last _LEVEL_WINDOW points, or of all of them before that many (a median,
        so noise does not set it off)."""
        loss = np.isin(roles, _LOSS_CODES)
        if not loss.any():
            return
        if not np.isfinite(values[loss]).all():
            self._alert = True
            return
        train = values[roles == _ROLE_CODE["train_loss"]]
        if not len(train):
            return
        if self._level_min > 0 and train.max() > _RISE_ALERT * self._level_min:
            self._alert = True
        recent = np.concatenate([self._recent, train])
        # the first points set a level too (a run can blow up before _LEVEL_WINDOW points)
        width = min(_LEVEL_WINDOW, len(recent))
        windows = np.lib.stride_tricks.sliding_window_view(recent, width)
        self._level_min = min(self._level_min, float(np.median(windows, axis=1).min()))
        self._recent = recent[-(_LEVEL_WINDOW - 1) :]

    # -- judging -------------------------------------------------------------------------

    def due(self) -> bool:
        """Whether a tick is worth its cost now: a new non-finite or far-risen loss, or enough
        steps logged with log() (else points added) since the last tick to pay for one at
        `budget_s` each."""
        if not self._pending_points:
            return False
        if self._alert or self.diagnosis is None:
            return True
        paid = (self._logged_since or self._pending_points) * self.budget_s
        return paid >= self._last_cost

    def tick(self) -> Tick:
        """Take the pending points in and diagnose the run; the diagnosis equals `diagnose` of
        the same points."""
        added = self._pending_points
        if not added and self.diagnosis is not None:
            return Tick(self.diagnosis, points=0, judged=False)
        start = self.clock()
        for part in self._pending:
            self._run.append(part, self._names)
        self._pending.clear()
        self._pending_points = 0
        self._logged_since = 0
        self._alert = False
        before = self.diagnosis
        after = diagnose_run(
            self.series(),
            source=self.source,
            warnings=self.warnings,
            classifiers=self.classifiers,
        )
        self.diagnosis = after
        self._last_cost = self.clock() - start
        return Tick(after, *_changes(before, after), points=added)

    def frame(self) -> pd.DataFrame:
        """Every point taken in by the ticks so far, as a normalised frame."""
        return validate_frame(self._frame())

    def _frame(self) -> pd.DataFrame:
        """The frame of the buffers' rows, unchecked: every part was validated (add_frame) or
        typed (add) as it came, so the O(rows) checks of validate_frame are not repeated."""
        rows = self._run.rows
        data: dict[str, Any] = {
            "run": self._run.run_column.column(),
            "metric": self._run.metric_column.column(),
            "role": pd.Categorical.from_codes(rows.view("role"), dtype=ROLE_DTYPE),
            "step": rows.view("step"),
            "value": rows.view("value"),
            "wall_time": rows.view("wall_time"),
            "seq": rows.view("seq"),
            **{c: rows.view(c) for c in self._extra},
        }
        return pd.DataFrame({c: data[c] for c in COLUMNS}, copy=False)

    def series(self) -> RunSeries:
        """The run's view for the classifiers, given the metric codes, role ranking, curves and
        metric infos the buffers keep up to date (RunSeries would otherwise derive them from
        every row again)."""
        frame = self._frame()
        run = RunSeries(frame, None, in_order=self._run.in_order)
        run.name = self.run
        if run.frame is frame:  # in seq order: the buffers' rows are the frame's rows
            self._run.seed(run, self._names)
        return run

    @property
    def touched(self) -> int:
        """Rows the view's upkeep has scanned or copied so far, buffers growing aside (see
        `regrown`): what a tick's view costs grows with the points it adds."""
        return self._run.touched

    @property
    def regrown(self) -> int:
        """Rows moved by buffers doubling so far: O(1) a point amortised."""
        return self._run.regrown()


_KNOWN = frozenset({"run", "metric", "role", "step", "value", "wall_time", "seq"})
_ROLE_CODE = {str(r): i for i, r in enumerate(ROLE_DTYPE.categories)}
_LOSS_CODES = np.array([_ROLE_CODE[r] for r in sorted(_LOSS_ROLES)])


def _changes(before: Diagnosis | None, after: Diagnosis) -> tuple[list[Finding], list[Superseded]]:
    """Findings whose label is new, and the earlier findings whose label is gone."""
    old = {f.label: f for f in before.findings} if before else {}
    now = {f.label for f in after.findings}
    new = [f for f in after.findings if f.label not in old]
    came = tuple(f.label for f in new)
    gone = [Superseded(f, came) for label, f in old.items() if label not in now]
    return new, gone
