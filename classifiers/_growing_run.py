"""GrowingRun: one run's rows in append-only buffers, with what RunSeries derives from its rows
kept up to date as rows arrive, so the view a tick judges costs O(new rows), not O(run).

RunSeries, given a frame, factorises the metric names, counts rows per (metric, role) to rank
each role's metrics, and cuts each metric's step-sorted curve out of every row; metric_infos
groups every row again. Here each appended batch updates the same things from its own rows:

- per metric, its curve (steps, values, wall times) in growable buffers, extended while the
  new steps are strictly after the last one (the curve RunSeries cuts is then the rows
  themselves); a step logged again or out of order (a resume) marks the curve stale, and the
  next view has RunSeries cut it from the rows once (O(run), once per such event);
- per (metric, role), the row count RunSeries ranks a role's metrics by;
- per metric, its point count, first and last step, first seq and first role (metric_infos);
- per metric, its rows' positions (RunSeries.rows), and its writes in source order
  (RunSeries.writes: nan's every write, resume_discontinuity's restarts): the curve's own
  buffers and blocks while no step came again; from a resume on, the same buffers and blocks
  go on as the writes (appended and updated from the new rows) and the curve is cut anew;
- per metric, the complete blocks of its curve at the judging resolution
  (classifiers.resolution.Blocks: a curve over JUDGED_POINTS points is judged on block
  aggregates), updated from the points after the last complete block, so the curve a
  classifier is handed holds at most JUDGED_POINTS points and costs O(new points) to keep.

`seed(run)` hands these to a RunSeries over the same rows (in the same order), which then skips
deriving them. Rows out of seq order (a chunk numbered before the last one) leave the view to
RunSeries, as for any frame. `touched` counts the rows each append and seed copied or scanned:
the work a tick's view costs, which tests hold to the new rows.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
from lossforensics.classifiers.diagnosis import MetricInfo
from lossforensics.classifiers.frame import ROLE_DTYPE
from lossforensics.classifiers.resolution import Blocks
from lossforensics.classifiers.run import Curve, RunSeries

# Rows a buffer holds before it first grows (doubling after: appends cost O(rows) amortised)
_FIRST_CAPACITY = 1024
_N_ROLES = len(ROLE_DTYPE.categories)
_CURVE_DTYPES = {"step": np.int64, "value": np.float64, "wall_time": np.float64}


class Columns:
    """Growable column buffers (capacity doubles: appending n rows costs O(n) amortised).
    Views are read-only, so nothing judging a tick can write into the next one's rows."""

    def __init__(self, dtypes: Mapping[str, Any]) -> None:
        self.n = 0
        self.cap = _FIRST_CAPACITY
        self.data = {k: np.empty(self.cap, dtype=t) for k, t in dtypes.items()}
        self.copied = 0  # rows moved when the buffers grew

    def append(self, cols: Mapping[str, np.ndarray]) -> None:
        k = len(next(iter(cols.values())))
        if self.n + k > self.cap:
            while self.n + k > self.cap:
                self.cap *= 2
            for name, old in self.data.items():
                new = np.empty(self.cap, dtype=old.dtype)
                new[: self.n] = old[: self.n]
                self.data[name] = new
            self.copied += self.n
        for name, buf in self.data.items():
            buf[self.n : self.n + k] = cols[name] if name in cols else 0
        self.n += k

    def view(self, name: str) -> np.ndarray:
        out = self.data[name][: self.n]
        out.flags.writeable = False
        return out

    def last(self, name: str) -> Any:
        return self.data[name][self.n - 1]


class StringColumn:
    """A string column of the frame grown in arrow chunks, so adding rows does not rebuild the
    old ones. A chunk merges into the one before while that one is no longer (a binary counter):
    O(log n) chunks, each row copied O(log n) times over the run."""

    def __init__(self) -> None:
        self.chunks: list[pa.Array] = []
        self.copied = 0  # rows moved by merges

    def append(self, values: pa.Array) -> None:
        self.chunks.append(values)
        while len(self.chunks) > 1 and len(self.chunks[-2]) <= len(self.chunks[-1]):
            last = self.chunks.pop()
            merged = pa.concat_arrays([self.chunks.pop(), last])
            self.copied += len(merged)
            self.chunks.append(merged)

    def column(self) -> pd.arrays.ArrowStringArray:
        """The rows as the frame's string column (pandas' arrow-backed strings, no copy)."""
        return pd.arrays.ArrowStringArray(pa.chunked_array(self.chunks, type=_STRING))


_STRING = pa.large_string()  # the arrow type of pandas' "string" columns


class GrowingRun:
    """A run's rows as they are appended, and RunSeries' derived views of them kept current."""

    def __init__(self, name: str, extra: Iterable[str]) -> None:
        self.name = name
        self.run_column, self.metric_column = StringColumn(), StringColumn()
        self.rows = Columns(
            {
                "metric": np.int32,
                "role": np.int8,
                "step": np.int64,
                "value": np.float64,
                "wall_time": np.float64,
                "seq": np.int64,
                **dict.fromkeys(extra, np.int64),
            }
        )
        self.in_order = True  # seq never went back: the buffers' order is the frame's order
        self.touched = 0  # rows scanned or copied by appends and seeds (the work meter)
        self._curves: list[Columns | None] = []  # per metric code; None: stale, re-cut at seed
        self._blocks: list[Blocks] = []  # per metric code: its curve's judged blocks
        # per metric code: its writes in source order and their blocks, the curve's own objects
        # until a step comes again
        self._writes: list[Columns] = []
        self._write_blocks: list[Blocks] = []
        self._rows: list[Columns] = []  # per metric code: its rows' positions, in source order
        self._resumed: list[bool] = []  # per metric code: a step came again (writes != curve)
        self._pairs = np.zeros((0, _N_ROLES), dtype=np.int64)  # rows per (metric, role)
        self._first_step = np.zeros(0, dtype=np.int64)
        self._last_step = np.zeros(0, dtype=np.int64)
        self._first_seq = np.zeros(0, dtype=np.int64)
        self._first_role = np.zeros(0, dtype=np.int8)

    @property
    def n(self) -> int:
        return self.rows.n

    def append(self, part: Mapping[str, np.ndarray], names: list[str]) -> None:
        """Rows of this run (metric codes index `names`), in the order they were logged."""
        k = len(part["step"])
        if not k:
            return
        metrics = len(names)
        self.run_column.append(pa.array([self.name], _STRING).take(np.zeros(k, np.intp)))
        self.metric_column.append(pa.array(names, _STRING).take(part["metric"]))
        seq = part["seq"]
        if (self.rows.n and seq[0] < self.rows.last("seq")) or (np.diff(seq) < 0).any():
            self.in_order = False
        start = self.rows.n
        self.rows.append(part)
        self._grow_tallies(metrics)
        codes, roles, steps = part["metric"], part["role"], part["step"]
        self._pairs += np.bincount(
            codes.astype(np.int64) * _N_ROLES + roles, minlength=self._pairs.size
        ).reshape(self._pairs.shape)
        used, first = np.unique(codes, return_index=True)
        fresh = self._first_seq[used] == _NEVER
        self._first_role[used[fresh]] = roles[first[fresh]]
        self._first_step[used[fresh]] = _MAX
        self._last_step[used[fresh]] = _MIN
        np.minimum.at(self._first_step, codes, steps)
        np.maximum.at(self._last_step, codes, steps)
        self._first_seq[used[fresh]] = _MAX
        np.minimum.at(self._first_seq, codes, seq)
        for code in used.tolist():
            mine = codes == code
            self._rows[code].append({"row": start + np.flatnonzero(mine)})
            self._extend_curve(code, mine, part)
        self.touched += k * (1 + len(used))

    def _grow_tallies(self, metrics: int) -> None:
        grow = metrics - len(self._curves)
        if grow <= 0:
            return
        curves = [Columns(_CURVE_DTYPES) for _ in range(grow)]
        blocks = [Blocks() for _ in range(grow)]
        self._curves.extend(curves)
        self._blocks.extend(blocks)
        self._writes.extend(curves)  # the same buffers while the steps keep rising
        self._write_blocks.extend(blocks)
        self._rows.extend(Columns({"row": np.int64}) for _ in range(grow))
        self._resumed.extend([False] * grow)
        self._pairs = np.vstack([self._pairs, np.zeros((grow, _N_ROLES), np.int64)])
        self._first_step = np.r_[self._first_step, np.zeros(grow, np.int64)]
        self._last_step = np.r_[self._last_step, np.zeros(grow, np.int64)]
        self._first_seq = np.r_[self._first_seq, np.full(grow, _NEVER, np.int64)]
        self._first_role = np.r_[self._first_role, np.zeros(grow, np.int8)]

    def _extend_curve(self, code: int, rows: np.ndarray, part: Mapping[str, np.ndarray]) -> None:
        """The metric's new rows join its writes, and its curve while steps keep strictly rising
        after the last one; else the curve goes stale (RunSeries' last-write-wins cut decides
        it at seed) and the buffers and blocks it shared with the writes stay the writes'."""
        steps = part["step"][rows]
        new = {"step": steps, "value": part["value"][rows], "wall_time": part["wall_time"][rows]}
        curve, writes = self._curves[code], self._writes[code]
        if curve is not None:
            rising = len(steps) < 2 or bool(np.all(steps[1:] > steps[:-1]))
            if not rising or (curve.n and steps[0] <= curve.last("step")):
                self._curves[code] = None
                self._blocks[code] = Blocks()  # rebuilt from the re-cut curve
                self._resumed[code] = True
            elif curve is not writes:  # cut anew after a resume, rising since
                curve.append(new)
        writes.append(new)

    def seed(self, run: RunSeries, names: list[str]) -> None:
        """Give `run` (a RunSeries over exactly these rows) the metric codes, role ranking,
        curves and metric infos kept here. Nothing is seeded for rows out of seq order, whose
        frame RunSeries re-sorts."""
        if not self.in_order or len(names) != len(self._curves):
            return
        if self.rows.n == 0 or (self._first_seq == _NEVER).any():
            return  # a metric named but never logged: RunSeries numbers only the logged ones
        codes = self.rows.view("metric")
        run.adopt(
            metric_codes=(codes, np.asarray(names, dtype=object)), by_role=self._by_role(names)
        )
        kept: dict[str, Curve] = {}
        writes: dict[str, Curve] = {}
        for code, name in enumerate(names):
            curve = self._curves[code]
            recut = False
            if curve is None:  # stale: RunSeries cuts it from every row once, kept from here on
                cut = run.step_sorted(name)
                curve = self._curves[code] = Columns(_CURVE_DTYPES)
                curve.append({"step": cut.steps, "value": cut.values, "wall_time": cut.wall_time})
                self.touched += self.rows.n
                # a restart of one or two points, left out for now, may grow into the course
                recut = run.ends_in_aborted_restart(name)
            kept[name] = self._judged(self._blocks[code], name, curve)
            if recut:
                self._curves[code] = None
                self._blocks[code] = Blocks()
            # its rows in source order: its curve until a step came again
            writes[name] = (
                self._judged(self._write_blocks[code], name, self._writes[code])
                if self._resumed[code]
                else kept[name]
            )
        rows = {name: self._rows[code].view("row") for code, name in enumerate(names)}
        run.adopt(curves=kept, rows=rows, writes=writes)
        infos = self.metric_infos(names)
        run.measured("metric_infos", lambda: infos)

    @staticmethod
    def _judged(blocks: Blocks, name: str, curve: Columns) -> Curve:
        """A metric's curve (or writes) as RunSeries.curve (or writes) gives it: the points
        themselves under the judging resolution's cap, else `blocks` brought up to date with
        the new points."""
        series = curve.view("step"), curve.view("value"), curve.view("wall_time")
        blocks.update(*series)
        judged = blocks.judged(*series)
        if judged is None:
            return Curve(name, *series)
        steps, values, wall, peaks = judged
        return Curve(name, steps, values, wall, peaks, blocks.b)

    def _by_role(self, names: list[str]) -> dict[str, list[str]]:
        """RunSeries._by_role from the (metric, role) row counts."""
        out: dict[str, list[tuple[str, int]]] = {}
        for metric, role in zip(*np.nonzero(self._pairs), strict=True):
            role_name = str(ROLE_DTYPE.categories[role])
            out.setdefault(role_name, []).append((names[metric], int(self._pairs[metric, role])))
        return {role: RunSeries._rank(role, items) for role, items in out.items()}

    def metric_infos(self, names: list[str]) -> list[MetricInfo]:
        """diagnose.metric_infos of these rows: one per metric, in order of first appearance."""
        points = self._pairs.sum(axis=1)
        return [
            MetricInfo(
                names[i],
                str(ROLE_DTYPE.categories[self._first_role[i]]),
                int(points[i]),
                int(self._first_step[i]),
                int(self._last_step[i]),
            )
            for i in np.argsort(self._first_seq, kind="stable").tolist()
        ]

    def regrown(self) -> int:
        """Rows moved so far by buffers growing (amortised O(1) a row)."""
        curves = sum(c.copied for c in self._curves if c is not None)
        curves += sum(
            w.copied for w, c in zip(self._writes, self._curves, strict=True) if w is not c
        )
        strings = self.run_column.copied + self.metric_column.copied
        rows = sum(r.copied for r in self._rows)
        return self.rows.copied + curves + strings + rows


_NEVER = np.iinfo(np.int64).min  # first seq of a metric not logged yet
_MAX = np.iinfo(np.int64).max
_MIN = np.iinfo(np.int64).min
