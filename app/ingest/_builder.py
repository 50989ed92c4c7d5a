"""Accumulates long-form points chunk by chunk, so a reader's memory is bounded by the points it
keeps, not by the file size; then builds the normalised frame in one vectorised call.

Every frame built here gets its `segment` column from `_segments.restart_segments`: a metric's
step going back, or a change of the session label a reader passes with the points.

The read limits (`_limits.current()`) are enforced here as points and names arrive: past the
points limit or with a name over its length limit, LimitExceededError, before any more is read."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import numpy as np
import pandas as pd
from lossforensics.classifiers.errors import LimitExceededError
from lossforensics.classifiers.frame import Coded, empty_frame, make_frame
from lossforensics.classifiers.roles import override_role
from lossforensics.ingest._limits import check_name, current
from lossforensics.ingest._segments import restart_segments
from lossforensics.ingest.base import ReadWarning


class Interner:
    """Maps names to small integer codes (metric and run columns are stored as codes); a new
    name longer than the limit for its `kind` ('metric' or 'run') is refused."""

    def __init__(self, kind: str = "metric") -> None:
        self.kind = kind
        self.names: list[str] = []
        self._codes: dict[str, int] = {}

    def code(self, name: str) -> int:
        got = self._codes.get(name)
        if got is None:
            check_name(name, self.kind)
            got = self._codes[name] = len(self.names)
            self.names.append(name)
        return got

    def codes(self, names: Iterable[str]) -> np.ndarray:
        return np.fromiter((self.code(n) for n in names), dtype=np.int32)


class FrameBuilder:
    """Collects (run, metric, step, value, wall_time) arrays and optional session labels; `seq`
    is the order of `add` calls and, within one call, the order of the arrays."""

    def __init__(self) -> None:
        self.runs = Interner("run")
        self.metrics = Interner("metric")
        self._parts: list[tuple[np.ndarray, ...]] = []
        self._labels: list[np.ndarray] = []
        self._label_index: dict[object, int] = {}
        self.points = 0
        self.max_points = current().max_points
        self.restarts = 0

    def label_codes(self, values: pd.Series | np.ndarray) -> np.ndarray:
        """Session labels (a `segment`/`phase` value per point) as codes stable across `add`
        calls; -1 where a point has none (missing, NaN, a bool)."""
        cells = pd.Series(values, dtype=object)
        try:
            codes, uniques = pd.factorize(cells, use_na_sentinel=True)
        except TypeError:  # unhashable cells (a list in JSON): by their text
            codes, uniques = pd.factorize(cells.astype(str), use_na_sentinel=True)
        lookup = np.array(
            [
                -1
                if isinstance(u, bool) or (isinstance(u, float) and not np.isfinite(u))
                else self._label_index.setdefault(
                    int(u) if isinstance(u, float) and u.is_integer() else u,
                    len(self._label_index),
                )
                for u in uniques
            ]
            + [-1],
            dtype=np.int64,
        )
        return lookup[codes]  # the sentinel -1 picks the trailing -1

    def named_runs(self, values: pd.Series, key: str, fallback: int) -> np.ndarray:
        """Run codes from a `run`/`experiment`/`trial` cell per point: text is the run's name,
        a number `<key>-<number>`; a missing cell (or a bool) is the `fallback` run."""
        cells = pd.Series(values, dtype=object).reset_index(drop=True)
        codes, uniques = pd.factorize(cells.astype(str).where(cells.notna()), use_na_sentinel=True)
        lookup = np.full(len(uniques) + 1, fallback, dtype=np.int32)
        found, first = np.unique(codes, return_index=True)
        for code, value in zip(found.tolist(), cells.iloc[first].tolist(), strict=True):
            if code < 0 or isinstance(value, bool):
                continue
            if isinstance(value, float) and value.is_integer():
                value = int(value)
            text = value.strip() if isinstance(value, str) else f"{key}-{value}"
            lookup[code] = self.runs.code(text) if text else fallback
        return lookup[codes]  # the sentinel -1 picks the trailing fallback

    def add(
        self,
        run_codes: np.ndarray | int,
        metric_codes: np.ndarray,
        steps: np.ndarray,
        values: np.ndarray,
        wall: np.ndarray | None = None,
        labels: np.ndarray | None = None,
    ) -> None:
        """`labels`: each point's session label code (`label_codes`), -1 for none."""
        n = len(steps)
        if n == 0:
            return
        check_points(self.points + n, self.max_points)
        runs = (
            np.full(n, run_codes, dtype=np.int32)
            if np.isscalar(run_codes)
            else np.asarray(run_codes, dtype=np.int32)
        )
        wall = np.full(n, np.nan) if wall is None else np.asarray(wall, dtype=np.float64)
        self._parts.append(
            (
                runs,
                np.asarray(metric_codes, dtype=np.int32),
                np.asarray(steps, dtype=np.int64),
                np.asarray(values, dtype=np.float64),
                wall,
            )
        )
        if labels is not None or self._labels:
            if not self._labels and self.points:  # points added before any label: none
                self._labels.append(np.full(self.points, -1, dtype=np.int64))
            self._labels.append(
                np.full(n, -1, dtype=np.int64) if labels is None else np.asarray(labels, np.int64)
            )
        self.points += n

    def added_steps(self) -> np.ndarray:
        """The steps of every point added so far, in the order added."""
        if not self._parts:
            return np.zeros(0, dtype=np.int64)
        return np.concatenate([part[2] for part in self._parts])

    def replace_steps(self, steps: np.ndarray) -> None:
        """Give every point added so far a new step, in the order added (a reader that knows
        its step axis only once the whole file is read)."""
        at = 0
        for i, part in enumerate(self._parts):
            n = len(part[2])
            self._parts[i] = (*part[:2], np.asarray(steps[at : at + n], dtype=np.int64), *part[3:])
            at += n

    def build(
        self,
        roles: Mapping[str, str] | None = None,
        splits: Mapping[str, str] | None = None,
        default_roles: Mapping[str, str] | None = None,
        order: str = "source",
        warns: Warnings | None = None,
    ) -> pd.DataFrame:
        """The frame. `default_roles` are the reader's own role choices (e.g. W&B __MAX ->
        other); the caller's `roles` win over them. `order='wall_time'` renumbers `seq` by time
        (stable), for stores whose file order is not the logging order; segments follow `seq`.
        `warns` gets a line when the runs hold restarts."""
        if not self._parts:
            return empty_frame()
        runs, metrics, steps, values, wall = (
            np.concatenate(c) for c in zip(*self._parts, strict=True)
        )
        seq = np.arange(len(steps), dtype=np.int64)
        if order == "wall_time":
            seq = np.empty_like(seq)
            seq[np.lexsort((np.arange(len(steps)), wall, runs))] = np.arange(len(steps))
        merged = merge_roles(self.metrics.names, roles, default_roles)
        labels = np.concatenate(self._labels) if self._labels else None
        # source order: seq is the order given, which restart_segments reads without a sort
        segment = restart_segments(
            runs, metrics, steps, seq if order == "wall_time" else None, labels
        )
        if order == "wall_time":  # the rows taken in `seq` order (a permutation), as built
            at = np.argsort(seq)
            runs, metrics, steps, values, wall, seq, segment = (
                a[at] for a in (runs, metrics, steps, values, wall, seq, segment)
            )
        self.restarts = _count_restarts(runs, segment)
        if self.restarts and warns is not None:
            warns.add(
                f"the log holds {self.restarts} restart(s) (a step that goes back, or a new "
                "segment/phase value): each starts a segment of its run, in the order logged"
            )
        # codes + names: the frame's string columns and roles come from the few distinct names,
        # not from a Python string per point
        return make_frame(
            Coded(runs, self.runs.names),
            Coded(metrics, self.metrics.names),
            steps,
            values,
            wall,
            seq,
            roles=merged,
            splits=splits,
            segment=segment,
            copy=False,  # every array here is this call's own
        )


def _count_restarts(runs: np.ndarray, segment: np.ndarray) -> int:
    """Segment starts after the first, over all runs."""
    later = segment > 0  # segments count up from 0 in each run: distinct (run, segment > 0)
    return len(np.unique(runs[later].astype(np.int64) * (int(segment.max()) + 1) + segment[later]))


def check_points(points: int, limit: int | None = None) -> None:
    """LimitExceededError once `points` read are over the limit (the current one by default)."""
    limit = current().max_points if limit is None else limit
    if points > limit:
        raise LimitExceededError(
            f"more than {limit} points in the logs (the limit on points read); "
            "split the upload or raise the limit"
        )


def merge_roles(
    metrics: Iterable[str],
    roles: Mapping[str, str] | None,
    default_roles: Mapping[str, str] | None,
) -> dict[str, str] | None:
    """The caller's overrides, plus the reader's defaults for metrics no override matches."""
    if not default_roles:
        return dict(roles) if roles else None
    merged = dict(roles or {})
    for metric in metrics:
        if metric in default_roles and override_role(metric, "", roles) == "":
            merged[metric] = default_roles[metric]
    return merged


class Warnings:
    """A reader's warnings, with a cap per kind so a file with 10^6 bad lines stays readable."""

    def __init__(self, file: str, cap: int = 20) -> None:
        self.file = file
        self.cap = cap
        self.items: list[ReadWarning] = []
        self._counts: dict[str, int] = {}

    def add(
        self,
        message: str,
        *,
        line: int | None = None,
        byte: int | None = None,
        kind: str | None = None,
    ) -> None:
        key = kind or message
        seen = self._counts.get(key, 0)
        self._counts[key] = seen + 1
        if seen < self.cap:
            self.items.append(ReadWarning(message, self.file, line, byte))

    def finish(self) -> list[ReadWarning]:
        """The warnings, plus one line per kind that went over the cap."""
        out = list(self.items)
        for kind, n in self._counts.items():
            if n > self.cap:
                out.append(ReadWarning(f"{n - self.cap} more like '{kind}' not shown", self.file))
        return out
