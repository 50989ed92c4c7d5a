"""Rendered plots and reports, kept so a run is drawn once per diagnosis, not once per request.

Drawing a report costs a matplotlib render (tens to hundreds of milliseconds, under matplotlib's
global lock); serving a cached one costs a dictionary lookup. The key holds the run, the time of
its diagnosis (a re-diagnosis makes a new entry, the old one ages out) and what was asked (kind
and size), so a stale page is never served. Rendering runs in a `RenderPool` of low-priority
processes when the cache has one (the server's: see `lossforensics.report.pool` for why), else
in worker threads behind a small capacity limit; either way a burst of uncached requests queues
here instead of filling the server's thread pool (which every sync endpoint shares), and
concurrent requests for the same key wait for one render instead of each starting their own.
"""

from __future__ import annotations

import asyncio
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from concurrent.futures.process import BrokenProcessPool

import anyio
from lossforensics.report.pool import RenderPool

DEFAULT_MAX_BYTES = 64 * 1024 * 1024  # about 200 typical reports, or 600 plots
DEFAULT_RENDER_THREADS = 2  # matplotlib serialises drawing: more threads only queue on its lock


class RenderCache:
    """A byte-bounded LRU of rendered artefacts with single-flight rendering."""

    def __init__(
        self,
        *,
        max_bytes: int = DEFAULT_MAX_BYTES,
        render_threads: int = DEFAULT_RENDER_THREADS,
        pool: RenderPool | None = None,
    ) -> None:
        self.max_bytes = max_bytes
        self.render_threads = render_threads
        self.pool = pool
        self._items: OrderedDict[Hashable, bytes] = OrderedDict()
        self._size = 0
        self._lock = threading.Lock()
        self._pending: dict[Hashable, asyncio.Future[bytes]] = {}
        self._limiter: anyio.CapacityLimiter | None = None

    def get(self, key: Hashable) -> bytes | None:
        with self._lock:
            value = self._items.get(key)
            if value is not None:
                self._items.move_to_end(key)
            return value

    def put(self, key: Hashable, value: bytes) -> None:
        if len(value) > self.max_bytes:
            return
        with self._lock:
            old = self._items.pop(key, None)
            self._size -= len(old) if old is not None else 0
            self._items[key] = value
            self._size += len(value)
            while self._size > self.max_bytes:
                _, dropped = self._items.popitem(last=False)
                self._size -= len(dropped)

    def __len__(self) -> int:
        return len(self._items)

    async def get_or_render(self, key: Hashable, render: Callable[[], bytes]) -> bytes:
        """The cached value, or `render()` run once (in the pool's processes, where there is a
        pool: `render` must then pickle; else in a limited worker thread) and kept."""
        hit = self.get(key)
        if hit is not None:
            return hit
        pending = self._pending.get(key)
        if pending is not None:
            return await asyncio.shield(pending)
        future: asyncio.Future[bytes] = asyncio.get_running_loop().create_future()
        self._pending[key] = future
        try:
            value = await self._run(render)
        except BaseException as exc:
            future.set_exception(exc)
            future.exception()  # retrieved: no "never retrieved" warning when nobody waits
            raise
        finally:
            self._pending.pop(key, None)
        self.put(key, value)
        future.set_result(value)
        return value

    async def _run(self, render: Callable[[], bytes]) -> bytes:
        if self.pool is not None:
            try:
                return await asyncio.wrap_future(self.pool.submit(render))
            except BrokenProcessPool:  # a render process died: a new pool next time
                self.pool.forget()
        if self._limiter is None:
            self._limiter = anyio.CapacityLimiter(self.render_threads)
        return await anyio.to_thread.run_sync(render, limiter=self._limiter)

    def close(self) -> None:
        """Stop the render processes, if any."""
        if self.pool is not None:
            self.pool.close()
