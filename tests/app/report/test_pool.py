"""Render processes: drawing happens outside the server's process, at a lower priority, and a
cache with a pool still renders each key once."""

from __future__ import annotations

import asyncio
import os
from functools import partial

from lossforensics.report.cache import RenderCache
from lossforensics.report.pool import NICENESS, RenderPool


def test_renders_run_in_another_lower_priority_process():
    pool = RenderPool(1)
    try:
        assert pool.submit(os.getpid).result(timeout=120) != os.getpid()
        niceness = pool.submit(partial(os.nice, 0)).result(timeout=120)
        assert niceness == min(os.nice(0) + NICENESS, 19)
    finally:
        pool.close()


def test_a_cache_with_a_pool_renders_each_key_once():
    async def main() -> list[bytes]:
        cache = RenderCache(pool=RenderPool(1))
        try:
            return await asyncio.gather(
                *(cache.get_or_render("k", partial(bytes, 3)) for _ in range(5))
            )
        finally:
            cache.close()

    assert asyncio.run(main()) == [b"\x00\x00\x00"] * 5
