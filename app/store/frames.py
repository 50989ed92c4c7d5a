"""One Parquet file per run's frame, written atomically: temp file, fsync, rename, fsync dir.

A reader never sees half a file: either the old name is absent or the whole file is there. Files
with no database row (a crash between the rename and the commit) are orphans; `clean_orphans`
removes them at start.
"""

from __future__ import annotations

import contextlib
import os
import time
import uuid
from collections.abc import Iterable
from pathlib import Path

import pandas as pd
from lossforensics.classifiers.errors import NotFoundError
from lossforensics.classifiers.frame import validate_frame

SUFFIX = ".parquet"
TMP_SUFFIX = ".tmp"


class FrameFiles:
    """The `frames/` folder of the data dir: `<run id>.parquet`."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root)
        self.root.mkdir(parents=True, exist_ok=True)

    def path(self, run_id: str) -> Path:
        return self.root / f"{run_id}{SUFFIX}"

    def write(self, run_id: str, frame: pd.DataFrame) -> Path:
        """Write the frame under its final name only once every byte is on disk."""
        final = self.path(run_id)
        tmp = self.root / f".{run_id}.{uuid.uuid4().hex[:8]}{TMP_SUFFIX}"
        try:
            with open(tmp, "wb") as fh:
                frame.to_parquet(fh, index=False, compression="zstd")
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(tmp, final)
        except BaseException:
            tmp.unlink(missing_ok=True)
            raise
        _fsync_dir(self.root)
        return final

    def read(self, run_id: str) -> pd.DataFrame:
        """The run's frame; NotFoundError when there is none (a run deleted while a request
        was reading it: its row was there a moment ago, its file is gone now)."""
        try:
            return validate_frame(pd.read_parquet(self.path(run_id)))
        except FileNotFoundError:
            raise NotFoundError(f"no run {run_id!r} (deleted while it was read)") from None

    def delete(self, run_id: str) -> None:
        self.path(run_id).unlink(missing_ok=True)

    def ids(self) -> set[str]:
        return {p.name[: -len(SUFFIX)] for p in self.root.glob(f"*{SUFFIX}")}

    def clean_orphans(self, known_ids: Iterable[str], *, grace_seconds: float = 0.0) -> int:
        """Remove temp files and frames with no row, older than the grace period; how many."""
        keep = set(known_ids)
        cutoff = time.time() - grace_seconds
        removed = 0
        for p in self.root.iterdir():
            orphan = p.name.endswith(TMP_SUFFIX) or (
                p.name.endswith(SUFFIX) and p.name[: -len(SUFFIX)] not in keep
            )
            if orphan and _mtime(p) <= cutoff:
                p.unlink(missing_ok=True)
                removed += 1
        return removed


def _mtime(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except FileNotFoundError:
        return float("inf")


def _fsync_dir(path: Path) -> None:
    """Make a rename durable (POSIX); a no-op where directories cannot be opened."""
    with contextlib.suppress(OSError):
        fd = os.open(path, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
