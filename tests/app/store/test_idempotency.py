"""Idempotency keys on each backend: claim, replay, conflict, concurrent claims, expiry."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import pytest
from lossforensics.classifiers.errors import ConflictError
from lossforensics.store import RunStore
from lossforensics.store.idempotency import Claim, IdempotencyKeys, Replay, fingerprint

SCOPE = "POST /v1/runs"


class Clock:
    def __init__(self) -> None:
        self.now = 1_700_000_000.0

    def __call__(self) -> float:
        return self.now


def test_a_finished_key_replays_its_answer(store: RunStore):
    keys = IdempotencyKeys(store.engine)
    claim = keys.claim("p", SCOPE, "k1", fingerprint(b"body"))
    assert isinstance(claim, Claim)
    keys.finish(claim, 201, {"runs": [{"id": "abc"}]})
    assert keys.claim("p", SCOPE, "k1", fingerprint(b"body")) == Replay(
        201, {"runs": [{"id": "abc"}]}
    )
    # another project, or another endpoint, has its own keys
    assert isinstance(keys.claim("q", SCOPE, "k1", fingerprint(b"body")), Claim)
    assert isinstance(keys.claim("p", "POST /v1/runs/x/points", "k1", "f"), Claim)


def test_the_same_key_with_another_body_is_a_conflict(store: RunStore):
    keys = IdempotencyKeys(store.engine)
    keys.finish(keys.claim("p", SCOPE, "k", fingerprint(b"a")), 201, {})
    with pytest.raises(ConflictError, match="different request"):
        keys.claim("p", SCOPE, "k", fingerprint(b"b"))


def test_a_released_key_can_be_claimed_again(store: RunStore):
    keys = IdempotencyKeys(store.engine)
    claim = keys.claim("p", SCOPE, "k", "f")
    keys.release(claim)
    assert isinstance(keys.claim("p", SCOPE, "k", "f"), Claim)


def test_concurrent_claims_give_the_work_to_one(store: RunStore):
    keys = IdempotencyKeys(store.engine, wait_seconds=30)
    start = threading.Barrier(6)
    worked = []

    def request(_: int) -> object:
        start.wait()
        got = keys.claim("p", SCOPE, "k", "f")
        if isinstance(got, Claim):
            worked.append(1)
            keys.finish(got, 201, {"n": len(worked)})
            return (201, {"n": 1})
        return (got.status, got.answer)

    with ThreadPoolExecutor(6) as ex:
        answers = list(ex.map(request, range(6)))
    assert len(worked) == 1
    assert answers == [(201, {"n": 1})] * 6


def test_a_retry_while_in_progress_waits_then_says_so(store: RunStore):
    keys = IdempotencyKeys(store.engine, wait_seconds=0.5)
    keys.claim("p", SCOPE, "k", "f")
    with pytest.raises(ConflictError, match="still in progress"):
        keys.claim("p", SCOPE, "k", "f")


def test_keys_expire_and_dead_claims_are_taken_over(store: RunStore):
    clock = Clock()
    keys = IdempotencyKeys(store.engine, clock=clock, ttl_seconds=100, stale_seconds=10)
    keys.finish(keys.claim("p", SCOPE, "done", "f"), 201, {})
    keys.claim("p", SCOPE, "dead", "f")  # its process died before finishing
    clock.now += 11
    assert isinstance(keys.claim("p", SCOPE, "dead", "f"), Claim)
    assert isinstance(keys.claim("p", SCOPE, "done", "f"), Replay)
    clock.now += 101
    assert isinstance(keys.claim("p", SCOPE, "done", "other body"), Claim)  # forgotten


def test_fingerprint_parts_are_delimited():
    assert fingerprint("ab", "c") != fingerprint("a", "bc")
