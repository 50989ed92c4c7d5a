"""The render cache: bounded, single-flight, and never serving a stale page."""

from __future__ import annotations

import asyncio
import threading
import time

from lossforensics.report.cache import RenderCache


def test_least_recently_used_entries_go_first_within_the_byte_bound():
    cache = RenderCache(max_bytes=10)
    cache.put("a", b"1234")
    cache.put("b", b"5678")
    assert cache.get("a") == b"1234"  # a is now the most recent
    cache.put("c", b"90ab")
    assert cache.get("b") is None and cache.get("a") == b"1234" and cache.get("c") == b"90ab"
    cache.put("huge", b"x" * 11)  # larger than the whole cache: not kept, nothing evicted
    assert cache.get("huge") is None and len(cache) == 2


def test_concurrent_requests_for_one_key_render_once():
    calls = []
    lock = threading.Lock()

    def render() -> bytes:
        with lock:
            calls.append(1)
        time.sleep(0.05)
        return b"page"

    async def main() -> list[bytes]:
        cache = RenderCache()
        return await asyncio.gather(*(cache.get_or_render("k", render) for _ in range(20)))

    assert asyncio.run(main()) == [b"page"] * 20
    assert len(calls) == 1


def test_a_failed_render_is_not_cached_and_reaches_every_waiter():
    attempts = []

    def render() -> bytes:
        attempts.append(1)
        time.sleep(0.02)
        raise ValueError("broken plot")

    async def main() -> list[object]:
        cache = RenderCache()
        got = await asyncio.gather(
            *(cache.get_or_render("k", render) for _ in range(3)), return_exceptions=True
        )
        assert len(cache) == 0
        return got

    got = asyncio.run(main())
    assert all(isinstance(g, ValueError) for g in got)
    assert len(attempts) == 1
