"""One Parquet file per run's frame, written atomically: temp file, fsync, rename, fsync dir.

A reader never sees half a file: either the old name is absent or the whole file is there. Files
with no database row (a crash between the rename and the commit) are orphans; `clean_orphans`
removes them at start. A run grown after it was stored (a live run) has its later points in
Parquet parts beside its file (app/store/parts.py); `read` joins them.
"""

from __future__ import annotations

import contextlib
import time
import uuid
from collections.abc import Iterable
from pathlib import Path

import pandas as pd
import pyarrow.parquet as pq
from lossforensics.classifiers.errors import NotFoundError
from lossforensics.classifiers.frame import validate_frame
from lossforensics.store import parts
from lossforensics.store._durable import write_atomically
from lossforensics.store.parts import PARTS_SUFFIX, AppendPlan, PartsMovedError

SUFFIX = ".parquet"
TMP_SUFFIX = ".tmp"
_READ_TRIES = 8


class FrameFiles:
    """The `frames/` folder of the data dir: `<run id>.parquet`."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root)
        self.root.mkdir(parents=True, exist_ok=True)

    def path(self, run_id: str) -> Path:
        return self.root / f"{run_id}{SUFFIX}"

    def write(self, run_id: str, frame: pd.DataFrame) -> Path:
        """Write the frame under its final name only once every byte is on disk."""
        tmp = self.root / f".{run_id}.{uuid.uuid4().hex[:8]}{TMP_SUFFIX}"
        return write_atomically(
            self.path(run_id), tmp, lambda fh: frame.to_parquet(fh, index=False, compression="zstd")
        )

    def parts_dir(self, run_id: str) -> Path:
        return parts.parts_dir(self.root, run_id)

    def read(self, run_id: str, points: int | None = None) -> pd.DataFrame:
        """The run's frame, its appended parts joined up to `points` rows (None: as far as they
        reach); NotFoundError when there is none (a run deleted while a request was reading it:
        its row was there a moment ago, its file is gone now); PartsMovedError when its parts
        changed under the read (read the row again and retry)."""
        try:
            return read_frame_file(self.path(run_id), points)
        except FileNotFoundError:
            raise NotFoundError(f"no run {run_id!r} (deleted while it was read)") from None

    def append(self, run_id: str, committed: int, batch: pd.DataFrame) -> AppendPlan:
        """Write the batch as the run's next part (rows from `committed` on); the caller holds
        the run's row lock and commits the new count, then removes `plan.leftovers`."""
        try:
            base_rows = pq.read_metadata(self.path(run_id)).num_rows
        except FileNotFoundError:
            raise NotFoundError(f"no run {run_id!r} (deleted while it was appended to)") from None
        return parts.append(base_rows, self.parts_dir(run_id), committed, batch)

    def append_lock(self, run_id: str) -> contextlib.AbstractContextManager[None]:
        """The run's append lock, shared by the worker processes of this host."""
        return parts.append_lock(self.parts_dir(run_id))

    def delete(self, run_id: str) -> None:
        self.path(run_id).unlink(missing_ok=True)
        parts.remove_all(self.parts_dir(run_id))

    def ids(self) -> set[str]:
        return {p.name[: -len(SUFFIX)] for p in self.root.glob(f"*{SUFFIX}")}

    def clean_orphans(self, known_ids: Iterable[str], *, grace_seconds: float = 0.0) -> int:
        """Remove temp files and frames with no row, older than the grace period; how many."""
        keep = set(known_ids)
        cutoff = time.time() - grace_seconds
        removed = 0
        for p in self.root.iterdir():
            if p.name.endswith(PARTS_SUFFIX):
                if p.name[: -len(PARTS_SUFFIX)] not in keep and _mtime(p) <= cutoff:
                    parts.remove_all(p)
                    removed += 1
                else:  # a part write cut short; leftover parts go at the run's next append
                    removed += parts.remove_temps(p, cutoff)
                continue
            orphan = p.name.endswith(TMP_SUFFIX) or (
                p.name.endswith(SUFFIX) and p.name[: -len(SUFFIX)] not in keep
            )
            if orphan and _mtime(p) <= cutoff:
                p.unlink(missing_ok=True)
                removed += 1
        return removed


def read_frame_file(path: Path | str, points: int | None = None) -> pd.DataFrame:
    """A run's frame from its file and the parts appended after it (`<id>.parts/` beside it),
    `points` rows (None: as far as the parts reach, read again if a merge moved them), for a
    reader that has the path but not the store (a render process). FileNotFoundError when the
    run's file is gone; PartsMovedError when `points` is given and the parts moved meanwhile."""
    path = Path(path)
    folder = path.with_suffix(PARTS_SUFFIX)
    for attempt in range(_READ_TRIES):
        try:
            return validate_frame(parts.read_chain(path, folder, points).to_pandas())
        except PartsMovedError:
            if points is not None or attempt == _READ_TRIES - 1:
                raise
    raise AssertionError("unreachable")


def _mtime(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except FileNotFoundError:
        return float("inf")
