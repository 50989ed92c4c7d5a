"""One SQLAlchemy engine for the metadata database, tuned for concurrent writers.

SQLite: WAL (readers never block the writer), synchronous=FULL (a committed run survives power
loss, not only a crash), a 30 s busy timeout, and `BEGIN IMMEDIATE` for write transactions so two
writers queue on the lock instead of failing on a read-to-write upgrade. PostgreSQL: a pooled
engine with pre-ping (psycopg 3, the `[postgres]` extra).
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa

WRITE = {"lf_write": True}


def make_engine(url: str) -> sa.Engine:
    """An engine for `url`; SQLite gets the pragmas and the explicit transaction control above."""
    parsed = sa.make_url(url)
    if parsed.get_backend_name() != "sqlite":
        return sa.create_engine(url, pool_pre_ping=True, pool_size=8, max_overflow=16)
    engine = sa.create_engine(
        url, connect_args={"check_same_thread": False, "timeout": 30}, pool_size=8, max_overflow=16
    )

    @sa.event.listens_for(engine, "connect")
    def _on_connect(dbapi_conn: Any, _record: Any) -> None:
        dbapi_conn.isolation_level = None  # we emit BEGIN ourselves (below)
        cur = dbapi_conn.cursor()
        cur.execute("PRAGMA journal_mode=WAL")
        cur.execute("PRAGMA synchronous=FULL")
        cur.execute("PRAGMA busy_timeout=30000")
        cur.execute("PRAGMA foreign_keys=ON")
        cur.close()

    @sa.event.listens_for(engine, "begin")
    def _on_begin(conn: sa.Connection) -> None:
        write = conn.get_execution_options().get("lf_write", False)
        conn.exec_driver_sql("BEGIN IMMEDIATE" if write else "BEGIN")

    return engine
