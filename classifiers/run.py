"""RunSeries: one run's view of the normalised frame, by role. What every classifier reads.

A role can hold several metrics (`loss` and `loss_cls`; Keras `batch_loss` and `epoch_loss`;
six `eval_gN_loss` sets). `primary(role)` picks the one a person would plot first: a canonical
name, else the non-component metric with the most points. `curve()` gives it as step-sorted
arrays of the run's course (a session that restarted the counter supersedes what earlier ones
logged from its first step on, unless the sessions carried on one course, `carried_on`; a
repeated step keeps its last write), at the judging
resolution (classifiers.resolution: a curve over JUDGED_POINTS points is judged on block means,
each block's highest value in `peaks`); `writes()` keeps the source order, at the same
resolution, for the classifiers that need restarts and repeats (nan, resume_discontinuity), with
`write_segments()` the session of each write and `logged()` the writes a block stands for.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
from lossforensics.classifiers._adversarial import adversarial_rank
from lossforensics.classifiers.frame import coded_strings
from lossforensics.classifiers.resolution import aggregate, block_size
from lossforensics.classifiers.roles import names_test_split
from lossforensics.classifiers.signals.reduce import finite_points
from lossforensics.classifiers.signals.smoothing import smooth, smoothing_frac

_SPACES = re.compile(r"\s+")
_CANONICAL = {
    "train_loss": (
        "loss",
        "train/loss",
        "train_loss",
        "total_loss",
        "train/total_loss",
        "total",
        "training_loss",
        "train/epoch_loss",
        "epoch_loss",
        "loss_epoch",
        "train_loss_epoch",
        "train_loss_step",
    ),
    "val_loss": (
        "val_loss",
        "val/loss",
        "eval_loss",
        "eval/loss",
        "validation/epoch_loss",
        "validation_loss",
        "valid_loss",
        "valid/loss",
        "test_loss",
        "test/loss",
    ),
    "lr": (
        "lr",
        "learning_rate",
        "train/lr",
        "train/learning_rate",
        "lr-adam",
        "lr-adamw",
        "lr-sgd",
        # Ultralytics' weights with decay: group 1 in every version (YOLOv8 `lr/pg*`, v5
        # `x/lr*`); the biases' group (0 in recent versions, 2 in old YOLOv5) warms down from
        # `warmup_bias_lr` (0.1) while the weights' rises from 0
        "lr/pg1",
        "x/lr1",
    ),
    "grad_norm": ("grad_norm", "train/grad_norm", "gradient_norm", "grad_norm/total"),
}


def is_canonical(role: str, metric: str) -> bool:
    """Whether `metric` is one of the names a person reads first for `role` (`loss`, `Total
    Loss`, `val_loss`, ...), as `RunSeries.primary` ranks them: the total, not a part."""
    return _SPACES.sub("_", metric.lower().strip()) in _CANONICAL.get(role, ())


# Names that are a part of the loss (a component) or a within-epoch running mean: never primary
# when something better exists.
# (detection losses: YOLO's box/cls/dfl/obj/seg/pose parts, detectron2's rpn/reg parts; a
# knowledge-distillation term beside the task loss: `KD Loss`, `distill_loss`)
_SECONDARY = re.compile(
    r"(^|[/_])(batch_|loss_[a-z]|[a-z]+_loss_[a-z])|"
    r"(box|obj|cls|rpn|reg|aux|dfl|seg|pose|kobj|mask|distil)|\bkd\b|(^|_)kd_"
)
# a restart that logged fewer points than this and stopped (an aborted rerun) starts no course:
# two epochs of a new attempt leave every check too few points to judge, the run before it not
_ABORTED_POINTS = 3
# sessions carry on one course when each later one's training loss starts (its first finite
# point) at most 5% above where the one before stopped (its last): a resume that lost state, or
# a new run from the untrained loss, starts well above
_CARRIED_ON_RISE = 0.05
# ... and falls there by no more than twice the largest step of the last 5 of the one before
_CARRIED_ON_STEPS = 5
# The same quantity logged at two granularities (Lightning: `train_loss_step`, `train_loss_epoch`)
_GRANULARITY = re.compile(r"[_/](step|epoch)$")


@dataclass(frozen=True)
class Curve:
    """One metric as step-sorted arrays (or, from `writes()`, in source order); non-finite
    values are kept. At the judging resolution a point stands for `block` consecutive logged
    points: its value their mean (non-finite when one of them is), `peaks` their highest value
    (None when each point is one logged point), its step and wall time those of its first
    non-finite point, else of its highest (classifiers.resolution)."""

    metric: str
    steps: np.ndarray  # int64, strictly increasing
    values: np.ndarray  # float64
    wall_time: np.ndarray  # float64
    peaks: np.ndarray | None = None  # float64, the block maxima
    block: int = 1  # logged points a point stands for

    def __len__(self) -> int:
        return len(self.steps)

    @property
    def finite(self) -> np.ndarray:
        return np.isfinite(self.values)


class RunSeries:
    """One run's rows, indexed by role. Cheap to build; curves are computed once and cached."""

    def __init__(
        self, frame: pd.DataFrame, run: str | None = None, *, in_order: bool = False
    ) -> None:
        """`in_order`: the caller knows the rows are in seq order (else it is checked)."""
        if run is not None:
            mine = (frame["run"] == run).to_numpy(dtype=bool)
            frame = frame if mine.all() else frame[mine]
        if not in_order:
            seq = frame["seq"].to_numpy()
            in_order = len(seq) < 2 or bool(np.all(seq[1:] >= seq[:-1]))
        self.frame = frame if in_order else frame.sort_values("seq", kind="stable")
        self.name = (
            run if run is not None else (str(self.frame["run"].iloc[0]) if len(self.frame) else "")
        )
        self._curves: dict[str, Curve] = {}
        self._measured: dict[Hashable, Any] = {}

    def measured(self, key: Hashable, compute: Callable[[], Any]) -> Any:
        """A measurement several classifiers share (plateau's stall statistics, which underfit
        also reads), computed the first time one asks and kept with this run: the run is the one
        place shared measurements live, so nothing outlives it or leaks between runs."""
        if key not in self._measured:
            self._measured[key] = compute()
        return self._measured[key]

    def adopt(
        self,
        *,
        metric_codes: tuple[np.ndarray, np.ndarray] | None = None,
        by_role: dict[str, list[str]] | None = None,
        curves: dict[str, Curve] | None = None,
        rows: dict[str, np.ndarray] | None = None,
        writes: dict[str, Curve] | None = None,
    ) -> None:
        """Take parts of the view that something keeping the same rows up to date already has
        (IncrementalDiagnosis's growing run): the metric codes and names (`metric_codes()`), the
        role ranking (what `metrics(role)` lists), and by metric name the curves, row positions
        and writes as `curve()`, `rows()` and `writes()` give them. They must be what this run
        would compute from its own rows; the rest is computed as usual."""
        if metric_codes is not None:
            self.__dict__["_metric_codes"] = metric_codes  # the cached_property's slot
        if by_role is not None:
            self.__dict__["_by_role"] = by_role
        if curves:
            self._curves.update(curves)
        for key, parts in (("rows", rows), ("writes", writes)):
            self._measured.update(((key, metric), part) for metric, part in (parts or {}).items())

    def smoothed(
        self, role: str, frac: float | None = None, *, per_step: bool = False
    ) -> tuple[np.ndarray, np.ndarray]:
        """The role's finite points as a person sees them through the noise (signals.smooth:
        bucket medians, a rolling median over `frac` of the run; by default SMOOTH_FRAC, none on
        a curve under SMOOTH_MIN_POINTS points), from the primary curve or, with `per_step`, the
        finest logging (`detailed`); empty arrays when the role is absent. Computed the first
        time one asks and kept with this run, read-only: exploding, plateau, underfit and
        loss_spikes all read the training loss's."""
        curve = self.detailed(role) if per_step else self.curve(role)
        if curve is None:
            return np.array([]), np.array([])
        x, y = finite_points(curve.steps, curve.values)
        if frac is None:
            frac = smoothing_frac(len(y))

        def compute() -> tuple[np.ndarray, np.ndarray]:
            xs, level = smooth(x, y, frac=frac)
            # copies (at most smooth's max_points each), read-only: shared, nobody may edit them,
            # and the curve's own arrays stay as they were
            xs, level = np.array(xs), np.array(level)
            xs.flags.writeable = level.flags.writeable = False
            return xs, level

        # keyed by the metric read: the primary often is the finest logging, smoothed once
        return self.measured(("smoothed", curve.metric, float(frac)), compute)

    @cached_property
    def _segment_column(self) -> np.ndarray:
        """Each row's segment (its session of the run), taken out of the frame once per run."""
        return self.frame["segment"].to_numpy(np.int64)

    @cached_property
    def _metric_codes(self) -> tuple[np.ndarray, np.ndarray]:
        """Each row's metric as an integer code, and the names the codes stand for: pd.factorize's
        (first appearance), from arrow's dictionary encoding when the column is one arrow chunk
        with no missing name (pandas' factorize of an arrow column costs ~2x)."""
        strings = _arrow_strings(self.frame["metric"])
        known = None if strings is None else coded_strings(strings)
        if known is not None:  # the frame's builder numbered them already
            return known
        if strings is not None and strings.num_chunks == 1 and strings.null_count == 0:
            encoded = pc.dictionary_encode(strings.chunk(0))
            codes = encoded.indices.to_numpy().astype(np.intp)
            return codes, np.asarray(encoded.dictionary.to_pylist(), dtype=object)
        codes, names = pd.factorize(self.frame["metric"], sort=False)
        return codes, np.asarray(names, dtype=object)

    @cached_property
    def _columns(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """step, value and wall_time as arrays, taken out of the frame once per run."""
        return (
            self.frame["step"].to_numpy(np.int64),
            self.frame["value"].to_numpy(np.float64),
            self.frame["wall_time"].to_numpy(np.float64),
        )

    def segments(self) -> np.ndarray:
        """Each row's segment (its session of the run), in row order. Computed once per run."""
        return self._segment_column

    def metric_codes(self) -> tuple[np.ndarray, np.ndarray]:
        """Each row's metric as an integer code (-1 for a missing name) and the names the codes
        stand for, in order of first appearance. Computed once per run."""
        return self._metric_codes

    @cached_property
    def _by_role(self) -> dict[str, list[str]]:
        codes, names = self._metric_codes
        column = self.frame["role"]  # a Categorical already in a valid frame: not rebuilt (~50 us)
        roles = (
            column.array
            if isinstance(column.dtype, pd.CategoricalDtype)
            else pd.Categorical(column)
        )
        n_roles = max(len(roles.categories), 1)
        keys = codes.astype(np.int64) * n_roles + roles.codes
        if len(keys) and keys.min() >= 0:  # counted in one pass (np.unique sorts: ~5x slower)
            counts = np.bincount(keys)
            pairs = np.flatnonzero(counts)
            counts = counts[pairs]
        else:  # missing names or roles (a frame not validated)
            pairs, counts = np.unique(keys, return_counts=True)
        out: dict[str, list[tuple[str, int]]] = {}
        for pair, n in zip(pairs.tolist(), counts.tolist(), strict=True):
            metric, role = divmod(pair, n_roles)
            out.setdefault(str(roles.categories[role]), []).append((str(names[metric]), n))
        return {role: self._vary_first(self._rank(role, items)) for role, items in out.items()}

    def _vary_first(self, ranked: list[str]) -> list[str]:
        """`ranked` with the metrics whose every finite value is the same moved last: a loss
        logged as exactly 0 throughout (YOLO's box loss on a set without boxes) says nothing
        of training, whatever its name; beside one that moves it is never the primary."""
        if len(ranked) < 2:
            return ranked
        values = self._columns[1]

        def constant(metric: str) -> bool:
            v = values[self.rows(metric)]
            v = v[np.isfinite(v)]
            return len(v) >= 2 and bool(v.min() == v.max())

        flat = [m for m in ranked if constant(m)]
        if not flat or len(flat) == len(ranked):
            return ranked
        return [m for m in ranked if m not in flat] + flat

    @staticmethod
    def _rank(role: str, items: list[tuple[str, int]]) -> list[str]:
        canonical = _CANONICAL.get(role, ())

        def key(item: tuple[str, int]) -> tuple[int, int, int, int, int, str]:
            metric, n = item
            low = metric.lower()
            # a printed name spaces its words (`Total Loss`, `Val Loss`): the canonical name
            spelled = _SPACES.sub("_", low.strip())
            canon = canonical.index(spelled) if spelled in canonical else len(canonical)
            # beside a validation split, the held-out set a run is tuned on: read first
            test = int(names_test_split(metric))
            # a GAN's discriminator loss last, its generator's after a term against a target
            game = adversarial_rank(metric)
            return (canon, game, int(bool(_SECONDARY.search(low))), test, -n, metric)

        return [m for m, _ in sorted(items, key=key)]

    def metrics(self, role: str) -> list[str]:
        """Metric names with this role, the primary first."""
        return list(self._by_role.get(role, ()))

    def roles(self) -> list[str]:
        """The roles some metric of this run has."""
        return list(self._by_role)

    def has(self, role: str) -> bool:
        return role in self._by_role

    def primary(self, role: str) -> str | None:
        names = self._by_role.get(role)
        return names[0] if names else None

    def rows(self, metric: str) -> np.ndarray:
        """Positions of one metric's rows, in source order (from the metric codes: no string
        comparison over the frame). Kept with the run, read-only: the curve, nan's check for
        overwritten rows and resume_discontinuity's source order read the same rows."""

        def compute() -> np.ndarray:
            codes, names = self._metric_codes
            which = np.flatnonzero(names == metric)
            rows = np.flatnonzero(codes == which[0]) if len(which) else np.array([], np.intp)
            rows.flags.writeable = False
            return rows

        return self.measured(("rows", metric), compute)

    def writes(self, metric: str, role: str | None = None) -> Curve:
        """One metric's rows as logged, in source order: unlike curve(), steps may repeat or go
        back (a restarted session's rows, which the step-sorted curve overwrites, are kept). At
        the judging resolution, as curves are; kept with the run. With `role`, only its rows
        of that role (a metric logged under two roles; else the same writes)."""

        def compute() -> Curve:
            rows = self._write_rows(metric, role)
            steps, values, wall = self._columns
            logged = steps[rows]
            whole = len(rows) == len(self.rows(metric))
            if whole and (len(logged) < 2 or bool(np.all(logged[1:] > logged[:-1]))):
                return self._judged(metric)  # never overwritten: the writes are the curve
            return at_resolution(Curve(metric, logged, values[rows], wall[rows]))

        if role is None or self._sole_role(metric, role):
            return self.measured(("writes", metric), compute)  # what a growing run adopts
        return self.measured(("writes", metric, role), compute)

    def write_segments(self, metric: str, role: str | None = None) -> np.ndarray:
        """The segment of each point of `writes(metric, role)`: a block's is its last logged
        point's, so a session that begins inside a block begins, at this resolution, at that
        block. Reads one row a point (JUDGED_POINTS at most), not the metric's rows."""

        def compute() -> np.ndarray:
            rows = self._write_rows(metric, role)
            block = self.writes(metric, role).block
            last = np.minimum(np.arange(block, len(rows) + block, block), len(rows)) - 1
            segments = self._segment_column[rows[last]]
            segments.flags.writeable = False
            return segments

        if role is not None and self._sole_role(metric, role):
            role = None
        return self.measured(("write_segments", metric, role), compute)

    def logged(
        self, metric: str, start: int, stop: int, role: str | None = None
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Steps, values and segments of the writes `start` to `stop` (positions among
        `writes(metric, role)`'s logged points, before blocks): what a few blocks stand for,
        read from those rows only."""
        rows = self._write_rows(metric, role)[max(start, 0) : max(stop, 0)]
        steps, values, _ = self._columns
        return steps[rows], values[rows], self._segment_column[rows]

    def _sole_role(self, metric: str, role: str) -> bool:
        """Whether every row of `metric` has `role` (from the role ranking: no row read)."""
        return all(metric not in names for r, names in self._by_role.items() if r != role)

    def _write_rows(self, metric: str, role: str | None) -> np.ndarray:
        """Positions of the metric's rows (with `role`, of that role only), in source order."""
        rows = self.rows(metric)
        if role is None or self._sole_role(metric, role):
            return rows
        return self.measured(
            ("rows", metric, role),
            lambda: rows[(self.frame["role"].iloc[rows] == role).to_numpy(bool)],
        )

    def raw(self, metric: str) -> pd.DataFrame:
        """One metric's rows in source order (step, value, wall_time, seq)."""
        rows = self.rows(metric)
        steps, values, wall = self._columns
        seq = self.frame["seq"].to_numpy(np.int64)
        return pd.DataFrame(
            {"step": steps[rows], "value": values[rows], "wall_time": wall[rows], "seq": seq[rows]}
        )

    def curve(self, role: str, metric: str | None = None) -> Curve | None:
        """The role's primary metric (or `metric`) as a step-sorted curve at the judging
        resolution (block aggregates over JUDGED_POINTS points); None if absent."""
        name = metric or self.primary(role)
        return None if name is None else self._judged(name)

    def _judged(self, metric: str) -> Curve:
        if metric not in self._curves:
            self._curves[metric] = at_resolution(self.step_sorted(metric))
        return self._curves[metric]

    def step_sorted(self, metric: str) -> Curve:
        """The run's course in one metric, step-sorted: the curve before the judging resolution
        (not kept with the run). A session that restarted the step counter at step s took the
        run back there, so what earlier sessions logged from s on is of a course it abandoned
        and is left out (an aborted restart shorter than the session before it must not leave
        that session's later points on its tail); a step logged again keeps its last write.
        Unless the sessions carried on one course (`carried_on`): then each session's steps
        are counted on from the one before. A session that logged nothing but (step, value)
        pairs an earlier one logged already is that log written twice (a rerun's rows appended
        again, byte for byte: `_replays`), and is left out, as is a restart that logged one or
        two points and stopped (`_lone_restarts`): they start no course to judge."""
        rows = self.rows(metric)
        all_steps, all_values, all_wall = self._columns
        steps, values, wall = all_steps[rows], all_values[rows], all_wall[rows]
        segments = self._segment_column[rows]
        if len(segments) and segments[0] != segments[-1]:  # sessions (codes rise as logged)
            kept = ~(_replays(steps, values, segments) | _lone_restarts(steps, segments))
            rows, steps, values, wall = rows[kept], steps[kept], values[kept], wall[kept]
        carried = self.carried_on
        if carried is not None:
            steps = steps + carried[self._segment_column[rows]]
        if len(steps) > 1 and not np.all(steps[1:] > steps[:-1]):
            keep = _not_superseded(steps, self._segment_column[rows])
            steps, values, wall = steps[keep], values[keep], wall[keep]
        if len(steps) > 1 and not np.all(steps[1:] > steps[:-1]):
            # last write wins for a repeated step: a resumed run overwrites what it re-logs
            _, first_from_end = np.unique(steps[::-1], return_index=True)
            keep = len(steps) - 1 - first_from_end  # sorted by step
            steps, values, wall = steps[keep], values[keep], wall[keep]
        return Curve(metric, steps, values, wall)

    def ends_in_aborted_restart(self, metric: str) -> bool:
        """Whether the metric's last session is a restart `step_sorted` leaves out for now (one
        or two points, at a step already reached): on a live run it may yet grow into a course
        of its own, so a curve cut now must be cut again (IncrementalDiagnosis)."""
        rows = self.rows(metric)
        if len(rows) < 2:
            return False
        return bool(_lone_restarts(self._columns[0][rows], self._segment_column[rows])[-1])

    @cached_property
    def carried_on(self) -> np.ndarray | None:
        """Per segment, the steps added to its points when the run's sessions carried on one
        course: every later session restarted the step counter at the run's first step or
        before, and its positive training loss went on from where the session before stopped
        (`_carries_on`: Keras `fit()` called again, a CSVLogger appending each call from
        epoch 0). A resume goes back to a checkpoint's step, a new run starts again from the
        untrained loss: then None, and a later session supersedes (`step_sorted`)."""
        seg = self._segment_column
        name = self.primary("train_loss")
        if name is None or len(seg) == 0 or seg.min() == seg.max():
            return None
        rows = self.rows(name)
        steps, values, _ = self._columns
        s, y, g = steps[rows], values[rows], seg[rows]
        sessions = np.unique(seg)
        if not np.array_equal(np.unique(g), sessions):
            return None  # a session without a training loss: nothing says it carried on
        offsets = np.zeros(int(sessions[-1]) + 1, np.int64)
        start = int(s[g == sessions[0]].min())
        for prev, k in zip(sessions[:-1], sessions[1:], strict=True):
            a, b = s[g == prev], s[g == k]
            before, after = _finite_at(y[g == prev], -1), _finite_at(y[g == k], 0)
            if int(b.min()) > start or not (before > 0 and after > 0):
                return None
            if not _carries_on(y[g == prev], before, after):
                return None
            gap = int(np.median(np.diff(a))) if len(a) > 1 else 1
            offsets[k] = int(a.max()) + offsets[prev] + max(gap, 1) - int(b.min())
        return offsets

    def detailed(self, role: str) -> Curve | None:
        """The primary quantity at its finest logging: of the role's metrics that name the same
        thing as the primary but for a `_step`/`_epoch` suffix, the one with the most points.
        Spikes, swings and per-epoch cycles live in the per-step series."""
        named = (self.curve(role, m) for m in self.granularities(role))
        curves = [c for c in named if c is not None]
        return max(curves, key=len) if curves else None

    def granularities(self, role: str) -> list[str]:
        """The role's metrics that name the same quantity as its primary but for a `_step` or
        `_epoch` suffix, the primary first (only the primary when it is logged one way)."""
        primary = self.primary(role)
        if primary is None:
            return []
        stem = _GRANULARITY.sub("", primary.lower())
        return [m for m in self.metrics(role) if _GRANULARITY.sub("", m.lower()) == stem]

    def finest_view(self) -> RunSeries | None:
        """This run with each role's primary at its finest logging (`detailed`): a Lightning
        log's `train_loss_step` in place of its `train_loss_epoch`, where the finer series has
        more points. None when no role has a finer series. Read where the primary is too short
        to judge: a run of a few epochs has a handful of epoch means but many logged steps, and
        the step series holds the same quantity. Computed once per run."""

        def compute() -> RunSeries | None:
            order: dict[str, list[str]] = {}
            for role, names in self._by_role.items():
                if len(self.granularities(role)) < 2:
                    continue
                finest, primary = self.detailed(role), self.curve(role)
                if finest is not None and primary is not None and len(finest) > len(primary):
                    order[role] = [finest.metric, *(n for n in names if n != finest.metric)]
            if not order:
                return None
            view = RunSeries(self.frame, in_order=True)
            view.__dict__["_by_role"] = {**self._by_role, **order}  # `_by_role`, ranked anew
            return view

        return self.measured(("finest_view",), compute)


def _replays(steps: np.ndarray, values: np.ndarray, segments: np.ndarray) -> np.ndarray:
    """The rows of each session (after the first) whose every (step, value) pair an earlier
    session logged already: the same log written twice, not a course of its own."""
    out = np.zeros(len(steps), bool)
    for k in np.unique(segments)[1:]:
        mine = segments == k
        before = segments < k
        first = int(np.argmax(mine))
        # most restarts log something new at their first step: rejected in one vectorised pass
        if not np.any((steps[before] == steps[first]) & (values[before] == values[first])):
            continue
        seen = set(zip(steps[before].tolist(), values[before].tolist(), strict=True))
        pairs = set(zip(steps[mine].tolist(), values[mine].tolist(), strict=True))
        out[mine] = pairs <= seen
    return out


def _lone_restarts(steps: np.ndarray, segments: np.ndarray) -> np.ndarray:
    """The writes of each session (after the first) that holds under `_ABORTED_POINTS` writes,
    starting at a step some earlier write reached already: a restart aborted after its first
    logs. Superseding the course before it would leave the run one or two points to judge."""
    out = np.zeros(len(steps), bool)
    if len(steps) < 2:
        return out
    starts = np.flatnonzero(np.r_[True, segments[1:] != segments[:-1]])
    sizes = np.diff(np.r_[starts, len(steps)])
    reached = np.maximum.accumulate(steps)
    for i in np.flatnonzero(sizes[1:] < _ABORTED_POINTS) + 1:
        at, end = int(starts[i]), int(starts[i]) + int(sizes[i])
        out[at:end] = steps[at] <= reached[at - 1]
    return out


def _carries_on(previous: np.ndarray, before: float, after: float) -> bool:
    """A training loss that starts a session at `after` carries on from `before`, where the
    session before (`previous`) stopped: at most `_CARRIED_ON_RISE` above it, and below it by
    no more than twice the largest step the previous session's last points took (log terms),
    plus that 5%: one more epoch of the same descent, not another run's level."""
    recent = previous[np.isfinite(previous) & (previous > 0)][-_CARRIED_ON_STEPS - 1 :]
    largest = float(np.max(np.abs(np.diff(np.log(recent))))) if len(recent) > 1 else 0.0
    fall = float(np.log(before / after))
    return -np.log1p(_CARRIED_ON_RISE) <= fall <= 2 * largest + np.log1p(_CARRIED_ON_RISE)


def _finite_at(y: np.ndarray, end: int) -> float:
    """The first (`end` 0) or last (`end` -1) finite value, NaN when there is none."""
    y = y[np.isfinite(y)]
    return float(y[end]) if len(y) else float("nan")


def _not_superseded(steps: np.ndarray, segments: np.ndarray) -> np.ndarray:
    """Which writes (in source order) no later session superseded: a write is superseded when
    a later session began at its step or before it."""
    if segments[-1] == segments[0]:
        return np.ones(len(steps), dtype=bool)
    starts = np.flatnonzero(np.r_[True, segments[1:] != segments[:-1]])
    # per session, the lowest step any later session began at (no later session: none)
    began = steps[starts]
    later = np.r_[np.minimum.accumulate(began[::-1])[::-1][1:], np.iinfo(np.int64).max]
    return steps < np.repeat(later, np.diff(np.r_[starts, len(steps)]))


def at_resolution(curve: Curve) -> Curve:
    """The curve as the classifiers judge it: itself up to JUDGED_POINTS points, else its
    block aggregates (classifiers.resolution)."""
    b = block_size(len(curve))
    if b == 1:
        return curve
    steps, values, wall, peaks = aggregate(curve.steps, curve.values, curve.wall_time, b)
    return Curve(curve.metric, steps, values, wall, peaks, b)


def split_runs(frame: pd.DataFrame) -> list[RunSeries]:
    """One RunSeries per run, in order of first appearance. A frame of one run (what a reader
    of one file gives) is taken whole after one comparison, without finding its names."""
    runs = frame["run"]
    if len(runs) and _all_equal(runs):
        return [RunSeries(frame)]
    names = pd.unique(runs.astype(str))
    return [RunSeries(frame, name) for name in names]


def _all_equal(column: pd.Series) -> bool:
    """Whether every value of a non-empty string column is its first (a missing one is not):
    on an arrow column by arrow's own comparison (pandas' costs ~6x, on 20k rows ~0.3 ms)."""
    strings = _arrow_strings(column)
    if strings is None:
        return bool((column == column.iat[0]).to_numpy(dtype=bool, na_value=False).all())
    known = coded_strings(strings)
    if known is not None:  # the names a built frame's rows use: all equal when there is one
        return len(known[1]) == 1
    if strings.null_count:
        return False
    return bool(pc.all(pc.equal(strings, strings[0])).as_py())


def _arrow_strings(column: pd.Series) -> pa.ChunkedArray | None:
    """The arrow array behind a pyarrow-backed string column; None for any other storage."""
    dtype = column.dtype
    if isinstance(dtype, pd.StringDtype) and dtype.storage == "pyarrow":
        return column.array.__arrow_array__()
    return None
