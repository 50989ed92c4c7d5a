"""MLflow's SQLite tracking store (`mlflow.db`), read with the standard library, read-only.

Tables used (MLflow's schema): `metrics(key, value, timestamp, run_uuid, step, is_nan)`,
`runs(run_uuid, name, lifecycle_stage, start_time)`, `tags(key, value, run_uuid)` for
`mlflow.runName` on old schemas without `runs.name`. MLflow stores a NaN as value 0 with
`is_nan` 1 and +-inf as +-1.7976931348623157e308; both are turned back into what was logged.

An uploaded database is hostile until shown otherwise: it is opened read-only, with `query_only`
and `trusted_schema=OFF`; `sqlite_master` must show `metrics` and `runs` as real tables with
MLflow's columns (a VIEW, which could run any query, even a recursive one that never ends, is
refused with UnknownFormatError), so only plain tables are ever read; and a progress handler
interrupts a query that runs past the read limit (LimitExceededError).
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path

import numpy as np
import pandas as pd
from lossforensics.classifiers.errors import (
    CorruptInputError,
    LimitExceededError,
    UnknownFormatError,
)
from lossforensics.ingest._limits import current
from lossforensics.ingest._source import read_head

SQLITE_MAGIC = b"SQLite format 3\x00"
_FETCH = 100_000
_DBL_MAX = np.finfo(np.float64).max


def is_sqlite(path: Path) -> bool:
    return path.is_file() and read_head(path, 16) == SQLITE_MAGIC


_REQUIRED = {"metrics": {"key", "value", "run_uuid"}, "runs": {"run_uuid"}}
_OPTIONAL = ("tags",)
_PROGRESS_OPS = 10_000  # the handler runs every this many virtual machine instructions


class _Deadline:
    """SQLite progress handler: a non-zero return interrupts the running statement."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.end = time.monotonic() + seconds
        self.hit = False

    def __call__(self) -> int:
        if time.monotonic() > self.end:
            self.hit = True
            return 1
        return 0


def _connect(path: Path, deadline: _Deadline) -> sqlite3.Connection:
    uri = f"{path.resolve().as_uri()}?mode=ro"
    con = sqlite3.connect(uri, uri=True, check_same_thread=False)
    # a damaged page can hold bytes that are not UTF-8: keep reading (the names get U+FFFD)
    # rather than let a UnicodeDecodeError escape the reader
    con.text_factory = lambda b: b.decode("utf-8", "replace")
    con.set_progress_handler(deadline, _PROGRESS_OPS)
    con.execute("PRAGMA query_only = ON")
    con.execute("PRAGMA trusted_schema = OFF")
    return con


def _tables(con: sqlite3.Connection) -> dict[str, str]:
    """name -> type ('table', 'view', ...) of the objects the reader may touch."""
    names = (*_REQUIRED, *_OPTIONAL)
    marks = ",".join("?" * len(names))
    rows = con.execute(
        f"SELECT name, type FROM sqlite_master WHERE name IN ({marks})", names
    ).fetchall()
    return {str(name): str(kind) for name, kind in rows}


def _columns(con: sqlite3.Connection, table: str) -> set[str]:
    return {row[1] for row in con.execute(f'PRAGMA table_info("{table}")')}


def check_schema(con: sqlite3.Connection, file: str) -> dict[str, set[str]]:
    """Columns of each MLflow table present, after checking they are real tables with MLflow's
    columns; UnknownFormatError otherwise (naming what is wrong)."""
    kinds = _tables(con)
    for name, kind in kinds.items():
        if kind != "table":
            raise UnknownFormatError(
                f"{name!r} is a {kind}, not MLflow's table: refused (only plain tables are read)",
                file=file,
            )
    out: dict[str, set[str]] = {}
    for name in kinds:
        out[name] = _columns(con, name)
    for name, needed in _REQUIRED.items():
        if name == "runs" and name not in out:
            continue  # very old stores: metrics only
        if not needed <= out.get(name, set()):
            raise UnknownFormatError(
                f"an SQLite file without MLflow's {name} table ({', '.join(sorted(needed))})",
                file=file,
            )
    return out


def is_tracking_db(path: Path) -> bool:
    """An SQLite file whose schema names MLflow's `metrics` (a view is claimed too, so that
    reading it refuses it with the reason instead of 'unknown format')."""
    if not is_sqlite(path):
        return False
    try:
        with closing(_connect(path, _Deadline(5.0))) as con:
            kinds = _tables(con)
            return kinds.get("metrics") in ("table", "view") and _REQUIRED["metrics"] <= _columns(
                con, "metrics"
            )
    except (sqlite3.Error, UnicodeDecodeError):
        return False


def run_names(con: sqlite3.Connection, schema: dict[str, set[str]]) -> pd.DataFrame:
    """run_uuid, name, deleted, start_time for every run."""
    cols = schema["runs"]
    name = "r.name" if "name" in cols else "NULL"
    stage = "r.lifecycle_stage" if "lifecycle_stage" in cols else "'active'"
    start = "r.start_time" if "start_time" in cols else "0"
    tag = (
        ("(SELECT t.value FROM tags t WHERE t.run_uuid = r.run_uuid AND t.key = 'mlflow.runName')")
        if schema.get("tags", set()) >= {"key", "value"}
        else "NULL"
    )
    rows = con.execute(
        f"SELECT r.run_uuid, COALESCE(NULLIF({name}, ''), {tag}, r.run_uuid), "
        f"{stage} = 'deleted', {start} FROM runs r"
    ).fetchall()
    return pd.DataFrame(rows, columns=["run_uuid", "name", "deleted", "start_time"])


def iter_metric_rows(path: Path) -> Iterator[tuple[pd.DataFrame, pd.DataFrame]]:
    """(runs table, chunk of metric rows) with the logged values restored, run by run in start
    order and by time within a run."""
    deadline = _Deadline(current().sqlite_seconds)
    try:
        with closing(_connect(path, deadline)) as con:
            schema = check_schema(con, str(path))
            cols = schema["metrics"]
            runs = (
                run_names(con, schema)
                if "runs" in schema
                else pd.DataFrame(columns=["run_uuid", "name", "deleted", "start_time"])
            )
            step = "m.step" if "step" in cols else "0"
            ts = "m.timestamp" if "timestamp" in cols else "NULL"
            is_nan = "m.is_nan" if "is_nan" in cols else "0"
            join, start = (
                ("LEFT JOIN runs r ON r.run_uuid = m.run_uuid", "r.start_time, ")
                if "start_time" in schema.get("runs", set())
                else ("", "")
            )
            cursor = con.execute(
                f"SELECT m.run_uuid, m.key, m.value, {ts}, {step}, {is_nan} FROM metrics m "
                f"{join} ORDER BY {start}m.run_uuid, {ts}, {step}"
            )
            while rows := cursor.fetchmany(_FETCH):
                chunk = pd.DataFrame(
                    rows, columns=["run_uuid", "key", "value", "timestamp", "step", "is_nan"]
                )
                value = pd.to_numeric(chunk["value"], errors="coerce").to_numpy(np.float64)
                value = np.where(
                    value >= _DBL_MAX, np.inf, np.where(value <= -_DBL_MAX, -np.inf, value)
                )
                nan = pd.to_numeric(chunk["is_nan"], errors="coerce").fillna(0).to_numpy() != 0
                chunk["value"] = np.where(nan, np.nan, value)
                yield runs, chunk
    except (sqlite3.Error, UnicodeDecodeError) as exc:
        if deadline.hit:
            raise LimitExceededError(
                f"an SQLite query ran past {deadline.seconds:g} s (the limit on one query)",
                file=str(path),
            ) from None
        # a damaged schema page can hold non-UTF-8 names, which sqlite3 decodes itself
        raise CorruptInputError(f"unreadable SQLite database: {exc}", file=str(path)) from None
