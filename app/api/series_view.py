"""A chart's view of a run's series: at most N points per metric, spikes and NaN/inf kept.

`downsample` splits a metric's points (in source order, inside an optional step window) into
buckets of consecutive points and keeps, from each bucket, the point with the lowest and the one
with the highest finite value, plus its first non-finite point, so a one-point spike or a single
NaN survives any zoom level. Everything is whole-array numpy (`reduceat`), no per-point loop.

`ViewCache` keeps the last few runs' metrics as numpy arrays, keyed by the frame file's identity,
so a chart that zooms and pans does not read Parquet at every request.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

MIN_POINTS = 3


@dataclass(frozen=True)
class MetricArrays:
    """One metric of a run, in source order."""

    metric: str
    role: str
    step: np.ndarray
    value: np.ndarray
    wall_time: np.ndarray


def metric_arrays(frame: pd.DataFrame) -> dict[str, MetricArrays]:
    """The frame split by metric, each in source (seq) order."""
    seq = frame["seq"].to_numpy()
    if len(seq) > 1 and not bool(np.all(seq[1:] >= seq[:-1])):
        frame = frame.sort_values("seq", kind="stable")
    codes, uniques = pd.factorize(frame["metric"], use_na_sentinel=False)
    order = np.argsort(codes, kind="stable")
    counts = np.bincount(codes, minlength=len(uniques))
    bounds = np.concatenate([[0], np.cumsum(counts)])
    step = frame["step"].to_numpy(np.int64)
    value = frame["value"].to_numpy(np.float64)
    wall = frame["wall_time"].to_numpy(np.float64)
    role_cat = frame["role"].astype("category")
    role_codes, role_names = role_cat.cat.codes.to_numpy(), role_cat.cat.categories
    out: dict[str, MetricArrays] = {}
    for code, (lo, hi) in enumerate(zip(bounds[:-1], bounds[1:], strict=True)):
        if hi <= lo:
            continue
        idx = order[lo:hi]
        name = str(uniques[code])
        out[name] = MetricArrays(
            name, str(role_names[role_codes[idx[0]]]), step[idx], value[idx], wall[idx]
        )
    return out


FAN = 8  # points per block at the first pyramid level, blocks per block above it
LEVELS = 5  # block sizes 8 .. 32768


@dataclass(frozen=True)
class Items:
    """Blocks of consecutive points (a single point is a block of one): each block's lowest and
    highest finite value with their positions, and its first non-finite position (`NONE` if
    none). The pyramid of a metric is one `Items` a level, each FAN times coarser."""

    size: int
    lo: np.ndarray
    lo_pos: np.ndarray
    hi: np.ndarray
    hi_pos: np.ndarray
    bad: np.ndarray

    def slice(self, a: int, b: int) -> Items:
        return Items(
            self.size,
            self.lo[a:b],
            self.lo_pos[a:b],
            self.hi[a:b],
            self.hi_pos[a:b],
            self.bad[a:b],
        )


NONE = np.iinfo(np.int64).max


def raw_items(value: np.ndarray) -> Items:
    finite = np.isfinite(value)
    pos = np.arange(len(value), dtype=np.int64)
    return Items(
        1,
        np.where(finite, value, np.inf),
        pos,
        np.where(finite, value, -np.inf),
        pos,
        np.where(finite, NONE, pos),
    )


def _coarser(items: Items) -> Items:
    """The next pyramid level: FAN blocks a block (the last block may be partial)."""
    n = len(items.lo)
    rows = -(-n // FAN)
    pad = rows * FAN - n

    def padded(a: np.ndarray, fill: float | int) -> np.ndarray:
        return np.concatenate([a, np.full(pad, fill, dtype=a.dtype)]).reshape(rows, FAN)

    lo, hi = padded(items.lo, np.inf), padded(items.hi, -np.inf)
    r = np.arange(rows)
    i_lo, i_hi = lo.argmin(axis=1), hi.argmax(axis=1)
    return Items(
        items.size * FAN,
        lo[r, i_lo],
        padded(items.lo_pos, 0)[r, i_lo],
        hi[r, i_hi],
        padded(items.hi_pos, 0)[r, i_hi],
        padded(items.bad, NONE).min(axis=1),
    )


@dataclass(frozen=True)
class Pyramid:
    """A metric's points and coarser block summaries; steps sorted or not."""

    levels: list[Items]
    sorted_steps: bool

    @classmethod
    def build(cls, m: MetricArrays) -> Pyramid:
        levels = [raw_items(m.value)]
        while len(levels) <= LEVELS and len(levels[-1].lo) > FAN:
            levels.append(_coarser(levels[-1]))
        steps_sorted = bool(np.all(m.step[1:] >= m.step[:-1])) if len(m.step) > 1 else True
        return cls(levels, steps_sorted)


def window(step: np.ndarray, start: int | None, end: int | None) -> np.ndarray:
    """Indices of the points with start <= step <= end (all points when both are None)."""
    if start is None and end is None:
        return np.arange(len(step))
    mask = np.ones(len(step), dtype=bool)
    if start is not None:
        mask &= step >= start
    if end is not None:
        mask &= step <= end
    return np.flatnonzero(mask)


def _first_per_bucket(positions: np.ndarray, bucket: np.ndarray) -> np.ndarray:
    """The first of `positions` in each bucket they fall in."""
    if len(positions) == 0:
        return positions
    b = bucket[positions]
    keep = np.concatenate([[True], b[1:] != b[:-1]])
    return positions[keep]


def reduce_items(items: Items, start: np.ndarray, buckets: int, first: int, n: int) -> np.ndarray:
    """Positions of each bucket's min, max and first non-finite point; a block falls in the
    bucket of its first point (`start`), buckets spread evenly over the n points from `first`."""
    if len(items.lo) == 0:
        return np.empty(0, dtype=np.int64)
    bucket = ((start - first) * buckets) // max(n, 1)
    cuts = np.flatnonzero(np.concatenate([[True], bucket[1:] != bucket[:-1]]))
    mins = np.minimum.reduceat(items.lo, cuts)
    maxs = np.maximum.reduceat(items.hi, cuts)
    bads = np.minimum.reduceat(items.bad, cuts)
    group = np.cumsum(np.concatenate([[False], bucket[1:] != bucket[:-1]]))
    at_min = _first_per_bucket(np.flatnonzero(items.lo == mins[group]), group)
    at_max = _first_per_bucket(np.flatnonzero(items.hi == maxs[group]), group)
    out = [
        items.lo_pos[at_min][np.isfinite(items.lo[at_min])],
        items.hi_pos[at_max][np.isfinite(items.hi[at_max])],
        bads[bads != NONE],
    ]
    return np.concatenate(out)


def downsample_range(pyramid: Pyramid, first: int, last: int, points: int) -> np.ndarray:
    """Sorted positions (in [first, last)) of at most `points` points: each bucket's min, max and
    first non-finite point, read from the coarsest pyramid level that still has two blocks a
    bucket; the partial blocks at the edges are read point by point."""
    n = last - first
    points = max(points, MIN_POINTS)
    if n <= points:
        return np.arange(first, last)
    raw = pyramid.levels[0]
    level = raw
    for cand in pyramid.levels[1:] if points >= 30 else []:
        if n // cand.size >= 2 * (points // 3) and 2 * cand.size <= n // 4:
            level = cand
    s = level.size
    if s == 1:
        buckets = points // 3
        one = reduce_items(raw.slice(first, last), np.arange(first, last), buckets, first, n)
        return np.unique(one)
    buckets = (points - 6) // 3  # two edge buckets may add 3 points each
    a, b = -(-first // s), last // s
    mid = level.slice(a, b)
    keep = [reduce_items(mid, np.arange(a, b) * s, buckets, a * s, (b - a) * s)]
    for lo, hi in ((first, a * s), (b * s, last)):
        if hi > lo:
            keep.append(reduce_items(raw.slice(lo, hi), np.arange(lo, hi), 1, lo, hi - lo))
    return np.unique(np.concatenate(keep))


def downsample(value: np.ndarray, points: int) -> np.ndarray:
    """Sorted indices of at most `points` values keeping each bucket's min, max and first
    non-finite value (no pyramid: for a one-off array)."""
    n = len(value)
    points = max(points, MIN_POINTS)
    if n <= points:
        return np.arange(n)
    keep = reduce_items(raw_items(value), np.arange(n), points // 3, 0, n)
    return np.unique(keep)


def view_indices(
    m: MetricArrays, pyramid: Pyramid, start: int | None, end: int | None, points: int
) -> tuple[np.ndarray, int]:
    """(indices of the kept points, how many points the window holds)."""
    if start is None and end is None:
        first, last = 0, len(m.step)
    elif pyramid.sorted_steps:
        first = 0 if start is None else int(np.searchsorted(m.step, start, side="left"))
        last = len(m.step) if end is None else int(np.searchsorted(m.step, end, side="right"))
    else:
        inside = window(m.step, start, end)
        return inside[downsample(m.value[inside], points)], len(inside)
    return downsample_range(pyramid, first, max(first, last), points), max(0, last - first)


View = dict[str, tuple[MetricArrays, Pyramid]]


class ViewCache:
    """The last `size` runs' metric arrays, keyed by run id and the frame file's mtime/size."""

    def __init__(self, size: int = 4) -> None:
        self.size = size
        self._items: OrderedDict[str, tuple[tuple[int, int], View]] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, run_id: str, path: Path, read: Callable[[], pd.DataFrame]) -> View:
        st = path.stat()
        key = (st.st_mtime_ns, st.st_size)
        with self._lock:
            hit = self._items.get(run_id)
            if hit is not None and hit[0] == key:
                self._items.move_to_end(run_id)
                return hit[1]
        arrays = metric_arrays(read())
        view = {k: (m, Pyramid.build(m)) for k, m in arrays.items()}
        with self._lock:
            self._items[run_id] = (key, view)
            self._items.move_to_end(run_id)
            while len(self._items) > self.size:
                self._items.popitem(last=False)
        return view
