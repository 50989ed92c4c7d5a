"""Durable file writes for the store: a file appears under its final name only once every byte
is on disk, and the rename itself is made durable, so a crash leaves the old file or the new
one, never a torn one (a temporary file at worst, which the orphan sweep removes)."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO


def write_atomically(final: Path, tmp: Path, write: Callable[[BinaryIO], None]) -> Path:
    """`write` into `tmp`, fsync it, rename it to `final` and fsync the folder; `tmp` is
    removed when anything fails."""
    try:
        with open(tmp, "wb") as fh:
            write(fh)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, final)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    fsync_dir(final.parent)
    return final


def fsync_dir(path: Path) -> None:
    """Make a rename durable (POSIX); a no-op where directories cannot be opened."""
    with contextlib.suppress(OSError):
        fd = os.open(path, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
