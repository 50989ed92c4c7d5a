"""Limits every reader enforces while it reads, so a hostile file is refused at the limit instead
of being read whole first (or cut short in silence).

The library's defaults are generous (a notebook reading its own logs); the service narrows them
from its settings with `reading_with(...)` around each upload. Readers ask `current()`.
"""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Iterator
from dataclasses import dataclass, replace
from typing import Any

from lossforensics.classifiers.errors import LimitExceededError

MiB = 1024 * 1024


@dataclass(frozen=True)
class ReadLimits:
    """What one read may hold.

    Args:
        max_points: points kept from one source (an upload's files together, in the service).
        max_columns: columns of a delimited file.
        max_cells: cells (columns x rows) of a delimited file, counted chunk by chunk before
            a chunk is turned into points.
        max_metric_name_chars: characters of a metric name.
        max_run_name_chars: characters of a run name.
        max_line_bytes: bytes of a CSV header line or one field, read whole up to this.
        max_yaml_bytes: bytes of a YAML side file (MLflow `meta.yaml`).
        sqlite_seconds: seconds one SQLite query may run before it is interrupted.
    """

    max_points: int = 200_000_000
    max_columns: int = 100_000
    max_cells: int = 2_000_000_000
    max_metric_name_chars: int = 4096
    max_run_name_chars: int = 4096
    max_line_bytes: int = 64 * MiB
    max_yaml_bytes: int = 1 * MiB
    sqlite_seconds: float = 600.0


DEFAULT = ReadLimits()
_CURRENT: contextvars.ContextVar[ReadLimits | None] = contextvars.ContextVar(
    "lossforensics_read_limits", default=None
)


def current() -> ReadLimits:
    return _CURRENT.get() or DEFAULT


@contextlib.contextmanager
def reading_with(limits: ReadLimits | None = None, **changes: Any) -> Iterator[ReadLimits]:
    """Read under `limits` (or the current ones with `changes`) inside the block."""
    new = replace(limits or current(), **changes)
    token = _CURRENT.set(new)
    try:
        yield new
    finally:
        _CURRENT.reset(token)


def check_name(name: str, kind: str, file: str | None = None) -> str:
    """`name` itself, or LimitExceededError when it is longer than the limit for `kind`
    ('metric' or 'run')."""
    limits = current()
    limit = limits.max_run_name_chars if kind == "run" else limits.max_metric_name_chars
    if len(name) > limit:
        raise LimitExceededError(
            f"a {kind} name of {len(name)} characters (starting {name[:40]!r}) is over the "
            f"limit of {limit}",
            file=file,
        )
    return name
