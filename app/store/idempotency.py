"""Idempotency keys: a request retried with the same `Idempotency-Key` gets the first answer
instead of doing its work again.

    keys = IdempotencyKeys(engine)
    got = keys.claim(project, "POST /v1/runs", key, fingerprint)
    if isinstance(got, Replay):
        return got.status, got.answer           # done before: the same answer, nothing stored
    try:
        status, answer = do_the_work()
    except BaseException:
        keys.release(got)                       # only a success is remembered
        raise
    keys.finish(got, status, answer)

A key is scoped by project and endpoint (`scope`) and remembers the request's fingerprint (a
sha256 of what the request asked for). The same key with another fingerprint is a
ConflictError (409). Claiming is one write transaction (SQLite queues writers on `BEGIN
IMMEDIATE`; on PostgreSQL the primary key makes a second insert fail), so two concurrent
requests with one key never both do the work: the second waits for the first's answer, up to
`wait_seconds`, then gets a 409 saying it is still in progress. A claim left unfinished by a
process that died is taken over after `stale_seconds`; a key is forgotten after `ttl_seconds`.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa
from lossforensics.classifiers.errors import ConflictError
from lossforensics.store.engine import WRITE
from lossforensics.store.tables import idempotency_keys as keys_table

TTL_SECONDS = 24 * 3600.0  # a key is remembered for a day (clients retry within minutes)
STALE_SECONDS = 900.0  # a claim this old with no answer was left by a process that died
WAIT_SECONDS = 120.0  # a concurrent retry waits this long for the first request's answer
POLL_SECONDS = 0.2
MAX_KEY_CHARS = 200


@dataclass(frozen=True)
class Claim:
    """This request holds the key: do the work, then `finish` (or `release` on failure)."""

    project: str
    scope: str
    key: str
    fingerprint: str
    created_at: float


@dataclass(frozen=True)
class Replay:
    """The key was answered before, for the same request: give this answer again."""

    status: int
    answer: Any


def fingerprint(*parts: bytes | str) -> str:
    """sha256 over the parts, each length-prefixed (so ('ab', 'c') != ('a', 'bc'))."""
    h = hashlib.sha256()
    for part in parts:
        data = part.encode() if isinstance(part, str) else part
        h.update(len(data).to_bytes(8, "big"))
        h.update(data)
    return h.hexdigest()


class IdempotencyKeys:
    """The keys table of the store's database (SQLite or PostgreSQL alike)."""

    def __init__(
        self,
        engine: sa.Engine,
        *,
        ttl_seconds: float = TTL_SECONDS,
        stale_seconds: float = STALE_SECONDS,
        wait_seconds: float = WAIT_SECONDS,
        clock: Callable[[], float] = time.time,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.engine = engine
        self.ttl_seconds = ttl_seconds
        self.stale_seconds = stale_seconds
        self.wait_seconds = wait_seconds
        self.clock = clock
        self.sleep = sleep

    def claim(self, project: str, scope: str, key: str, fingerprint: str) -> Claim | Replay:
        """Hold `key` for this request, or the answer it was given before; blocks while another
        request holds it (call from a worker thread)."""
        if not 0 < len(key) <= MAX_KEY_CHARS:
            raise ConflictError(f"an Idempotency-Key is 1 to {MAX_KEY_CHARS} characters")
        waited = 0.0
        while True:
            got = self._try_claim(project, scope, key, fingerprint)
            if isinstance(got, Claim | Replay):
                return got
            if waited >= self.wait_seconds:
                raise ConflictError(
                    f"a request with Idempotency-Key {key!r} is still in progress; retry later"
                )
            self.sleep(POLL_SECONDS)
            waited += POLL_SECONDS

    def _try_claim(self, project: str, scope: str, key: str, fp: str) -> Claim | Replay | None:
        now = self.clock()
        where = _where(project, scope, key)
        try:
            with self.engine.connect().execution_options(**WRITE) as conn, conn.begin():
                conn.execute(
                    keys_table.delete().where(keys_table.c.created_at < now - self.ttl_seconds)
                )
                row = conn.execute(sa.select(keys_table).where(*where)).mappings().first()
                if row is None:
                    conn.execute(
                        keys_table.insert().values(
                            project=project, scope=scope, key=key, fingerprint=fp, created_at=now
                        )
                    )
                    return Claim(project, scope, key, fp, now)
                if row["fingerprint"] != fp:
                    raise ConflictError(
                        f"Idempotency-Key {key!r} was used with a different request; "
                        "a key names one request (send a new key for new content)"
                    )
                if row["status"] is not None:
                    return Replay(int(row["status"]), row["answer"])
                if row["created_at"] < now - self.stale_seconds:  # its process died: take over
                    taken = conn.execute(
                        keys_table.update()
                        .where(*where, keys_table.c.created_at == row["created_at"])
                        .values(created_at=now)
                    )
                    if taken.rowcount == 1:
                        return Claim(project, scope, key, fp, now)
                return None
        except sa.exc.IntegrityError:
            return None  # a concurrent request inserted the key first (PostgreSQL): wait for it

    def finish(
        self, claim: Claim, status: int, answer: Any, conn: sa.Connection | None = None
    ) -> None:
        """Remember the answer to the claimed key (inside `conn`'s transaction when given, so
        the answer commits with the work it describes)."""
        stmt = (
            keys_table.update()
            .where(*_where(claim.project, claim.scope, claim.key))
            .values(status=status, answer=answer)
        )
        if conn is not None:
            conn.execute(stmt)
            return
        with self.engine.connect().execution_options(**WRITE) as own, own.begin():
            own.execute(stmt)

    def release(self, claim: Claim) -> None:
        """Give the key up unanswered (the request failed): a retry does the work again."""
        with self.engine.connect().execution_options(**WRITE) as conn, conn.begin():
            conn.execute(
                keys_table.delete().where(
                    *_where(claim.project, claim.scope, claim.key),
                    keys_table.c.status.is_(None),
                    keys_table.c.created_at == claim.created_at,
                )
            )


def _where(project: str, scope: str, key: str) -> tuple[sa.ColumnElement[bool], ...]:
    return (
        keys_table.c.project == project,
        keys_table.c.scope == scope,
        keys_table.c.key == key,
    )
