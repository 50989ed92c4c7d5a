"""MLflow's SQLite tracking store (`mlflow.db`), read with the standard library, read-only.

Tables used (MLflow's schema): `metrics(key, value, timestamp, run_uuid, step, is_nan)`,
`runs(run_uuid, name, lifecycle_stage, start_time)`, `tags(key, value, run_uuid)` for
`mlflow.runName` on old schemas without `runs.name`. MLflow stores a NaN as value 0 with
`is_nan` 1 and +-inf as +-1.7976931348623157e308; both are turned back into what was logged.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path

import numpy as np
import pandas as pd
from lossforensics.classifiers.errors import CorruptInputError, UnknownFormatError
from lossforensics.ingest._source import read_head

SQLITE_MAGIC = b"SQLite format 3\x00"
_FETCH = 100_000
_DBL_MAX = np.finfo(np.float64).max


def is_sqlite(path: Path) -> bool:
    return path.is_file() and read_head(path, 16) == SQLITE_MAGIC


def _connect(path: Path) -> sqlite3.Connection:
    con = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    # a damaged page can hold bytes that are not UTF-8: keep reading (the names get U+FFFD)
    # rather than let a UnicodeDecodeError escape the reader
    con.text_factory = lambda b: b.decode("utf-8", "replace")
    return con


def _columns(con: sqlite3.Connection, table: str) -> set[str]:
    return {row[1] for row in con.execute(f'PRAGMA table_info("{table}")')}


def is_tracking_db(path: Path) -> bool:
    """An SQLite file with MLflow's `metrics` table."""
    if not is_sqlite(path):
        return False
    try:
        with closing(_connect(path)) as con:
            return {"key", "value", "run_uuid"} <= _columns(con, "metrics")
    except (sqlite3.Error, UnicodeDecodeError):
        return False


def run_names(con: sqlite3.Connection) -> pd.DataFrame:
    """run_uuid, name, deleted, start_time for every run."""
    cols = _columns(con, "runs")
    name = "r.name" if "name" in cols else "NULL"
    stage = "r.lifecycle_stage" if "lifecycle_stage" in cols else "'active'"
    start = "r.start_time" if "start_time" in cols else "0"
    tag = (
        ("(SELECT t.value FROM tags t WHERE t.run_uuid = r.run_uuid AND t.key = 'mlflow.runName')")
        if _columns(con, "tags") >= {"key", "value"}
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
    try:
        with closing(_connect(path)) as con:
            cols = _columns(con, "metrics")
            if not {"key", "value", "run_uuid"} <= cols:
                raise UnknownFormatError(
                    "an SQLite file without MLflow's metrics table", file=str(path)
                )
            runs = (
                run_names(con)
                if _columns(con, "runs")
                else pd.DataFrame(columns=["run_uuid", "name", "deleted", "start_time"])
            )
            step = "m.step" if "step" in cols else "0"
            ts = "m.timestamp" if "timestamp" in cols else "NULL"
            is_nan = "m.is_nan" if "is_nan" in cols else "0"
            cursor = con.execute(
                f"SELECT m.run_uuid, m.key, m.value, {ts}, {step}, {is_nan} FROM metrics m "
                f"LEFT JOIN runs r ON r.run_uuid = m.run_uuid "
                f"ORDER BY r.start_time, m.run_uuid, {ts}, {step}"
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
        # a damaged schema page can hold non-UTF-8 names, which sqlite3 decodes itself
        raise CorruptInputError(f"unreadable SQLite database: {exc}", file=str(path)) from None
