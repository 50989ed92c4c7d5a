"""A grown run's points as Parquet parts appended after its frame file, merged now and then.

    frames/<run id>.parquet                          the run as stored first (rows [0, B))
    frames/<run id>.parts/<start>-<end>.parquet      rows [start, end) appended later

An append writes one part file (temp + fsync + rename), so it costs the batch, not the run. The
run's row in SQL says how many points are committed (P); the parts that count are the chain
that covers [B, P) from B on, taking at each start the part that reaches furthest without passing
P. Anything else in the folder is left over: a part whose commit never came (end past P), or
parts a merge replaced (its inputs, removed after the merge's commit).

Merging keeps the chain short: an append that finds the last parts no larger than itself (plus
the batch) writes them and the batch as one part instead (a binary counter: a point is rewritten
about log2(run / batch) times over the run's life, and the chain holds about that many parts),
and any append merges when the chain reaches MAX_PARTS. Appends run under the run's row lock
(RunStore.append_points), so one writer plans at a time; readers take no lock: a part removed
under them, or a chain they cannot complete with the P they read, makes RunStore read the row
and the folder again (PartsMovedError).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
from lossforensics.classifiers.frame import validate_frame
from lossforensics.store._durable import write_atomically

try:
    import fcntl
except ImportError:  # Windows: no flock; appends rely on the store's stale-count check
    fcntl = None  # type: ignore[assignment]

PARTS_SUFFIX = ".parts"
_LOCK = ".append.lock"
_SUFFIX = ".parquet"
_TMP = ".tmp"
MAX_PARTS = 24  # a chain this long is merged into one part at the next append
_GROWTH = 1  # merge the last part when it holds at most this many times the points after it


class PartsMovedError(Exception):
    """The parts read from changed meanwhile (a merge, another append): read the row again."""


@dataclass(frozen=True)
class Part:
    start: int
    end: int
    path: Path

    @property
    def points(self) -> int:
        return self.end - self.start


@dataclass(frozen=True)
class AppendPlan:
    """What one append wrote, and what may be removed once its commit is done."""

    written: Path
    merged: int  # points of earlier parts rewritten into the written one
    leftovers: tuple[Path, ...]


def parts_dir(root: Path, run_id: str) -> Path:
    return root / f"{run_id}{PARTS_SUFFIX}"


def list_parts(folder: Path) -> list[Part]:
    """Every part file in the folder (committed or not), by start then end."""
    try:
        names = os.listdir(folder)
    except FileNotFoundError:
        return []
    found = []
    for name in names:
        if not name.endswith(_SUFFIX) or name.startswith("."):
            continue
        start, _, end = name[: -len(_SUFFIX)].partition("-")
        if start.isdigit() and end.isdigit():
            found.append(Part(int(start), int(end), folder / name))
    return sorted(found, key=lambda p: (p.start, p.end))


def chain(parts: list[Part], base: int, points: int) -> list[Part] | None:
    """The parts that cover [base, points), or None when they do not (yet) reach it."""
    reach: dict[int, Part] = {}
    for p in parts:
        if p.end <= points and p.end > p.start:
            reach[p.start] = p  # sorted by end: the furthest part from each start wins
    out, pos = [], base
    while pos < points:
        nxt = reach.get(pos)
        if nxt is None:
            return None
        out.append(nxt)
        pos = nxt.end
    return out


def _reach(parts: list[Part], base: int) -> int:
    """How far the furthest-reaching parts go from `base` without a gap."""
    furthest: dict[int, int] = {}
    for p in parts:
        furthest[p.start] = max(furthest.get(p.start, p.start), p.end)
    pos = base
    while furthest.get(pos, pos) > pos:
        pos = furthest[pos]
    return pos


def read_chain(base: Path, folder: Path, points: int | None) -> pa.Table:
    """The base file's rows then the chain's, `points` rows in all (None: as far as the parts
    reach). FileNotFoundError for a missing base; PartsMovedError when the chain is broken."""
    table = pq.read_table(base)
    parts = list_parts(folder)
    if not parts:
        return table
    if points is None:
        points = _reach(parts, table.num_rows)
    if points <= table.num_rows:
        return table.slice(0, points) if points < table.num_rows else table
    links = chain(parts, table.num_rows, points)
    if links is None:
        raise PartsMovedError(str(folder))
    try:
        tables = [table, *(pq.read_table(p.path) for p in links)]
    except FileNotFoundError:
        raise PartsMovedError(str(folder)) from None
    names = tables[-1].schema.names
    if tables[0].schema.names != names:  # a file stored before a column existed (`segment`)
        frame = validate_frame(tables[0].to_pandas())
        tables[0] = pa.Table.from_pandas(frame, preserve_index=False).select(names)
    return pa.concat_tables(tables, promote_options="permissive")


def append(base_rows: int, folder: Path, committed: int, batch: pd.DataFrame) -> AppendPlan:
    """Write the batch (rows [committed, committed + len(batch))) as a part, merged with the last
    parts of the chain when the policy above says so. Call with the run's row locked."""
    folder.mkdir(exist_ok=True)
    parts = list_parts(folder)
    links = chain(parts, base_rows, committed)
    if links is None:
        raise PartsMovedError(f"{folder}: the stored parts do not reach {committed} points")
    merge: list[Part] = []
    total = len(batch)
    while links and (links[-1].points <= _GROWTH * total or len(links) >= MAX_PARTS):
        merge.insert(0, links.pop())
        total += merge[0].points
    start = merge[0].start if merge else committed
    table = pa.Table.from_pandas(batch, preserve_index=False)
    if merge:
        earlier = [pq.read_table(p.path) for p in merge]
        table = pa.concat_tables([*earlier, table], promote_options="permissive")
    written = _write(folder, f"{start:012d}-{committed + len(batch):012d}{_SUFFIX}", table)
    keep = {p.path for p in links} | {written}
    leftovers = tuple(p.path for p in parts if p.path not in keep)
    return AppendPlan(written, sum(p.points for p in merge), leftovers)


def remove(paths: tuple[Path, ...]) -> None:
    for path in paths:
        path.unlink(missing_ok=True)


@contextlib.contextmanager
def append_lock(folder: Path) -> Iterator[None]:
    """Hold the run's append lock (an flock on `.append.lock` in its parts folder): the worker
    processes of one host take a run's batches one at a time, so none judges a batch over
    points another is about to change. Across hosts (or where flock is missing) appends stay
    correct without it: the store refuses a batch judged over stale points and it is redone."""
    if fcntl is None:
        yield
        return
    folder.mkdir(exist_ok=True)
    with open(folder / _LOCK, "a+b") as fh:
        fcntl.flock(fh.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh.fileno(), fcntl.LOCK_UN)


def remove_temps(folder: Path, cutoff: float) -> int:
    """Remove the temp files of part writes cut short (modified before `cutoff`); how many."""
    removed = 0
    for path in folder.glob(f".*{_TMP}"):
        try:
            if path.stat().st_mtime <= cutoff:
                path.unlink()
                removed += 1
        except FileNotFoundError:
            continue
    return removed


def remove_all(folder: Path) -> None:
    shutil.rmtree(folder, ignore_errors=True)


def _write(folder: Path, name: str, table: pa.Table) -> Path:
    tmp = folder / f".{name}.{uuid.uuid4().hex[:8]}{_TMP}"
    return write_atomically(
        folder / name, tmp, lambda fh: pq.write_table(table, fh, compression="zstd")
    )
