"""Disk space: telling a full disk from other I/O errors, and how much room is left.

A write that meets a full disk (ENOSPC, or EDQUOT on a quota) becomes StorageFullError, which
the API answers with 507 and a message that says so; the writer has already removed its partial
file (temp names, work folders). SQLite says 'database or disk is full' instead of an errno.
"""

from __future__ import annotations

import errno
import shutil
from pathlib import Path

from lossforensics.classifiers.errors import StorageFullError

FULL_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT})


def is_full(exc: BaseException) -> bool:
    """A full disk, however the layer below reported it."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, OSError) and current.errno in FULL_ERRNOS:
            return True
        if "database or disk is full" in str(current):
            return True
        current = current.__cause__ or current.__context__
    return False


def storage_full(what: str = "the upload") -> StorageFullError:
    return StorageFullError(
        f"no space left on the server's disk while writing {what}; nothing was stored. "
        "Try again once space is freed"
    )


def free_bytes(path: Path) -> int | None:
    """Bytes free for this process where `path` lives (None when unknown)."""
    try:
        return shutil.disk_usage(path).free
    except OSError:
        return None
