"""Render processes: matplotlib drawing kept out of the server's process.

Drawing a plot is pure-Python work that holds the GIL for most of its 100-300 ms. In a thread
of the server it makes every other request wait for the GIL at each step (an event loop step,
a thread hop), so a liveness probe answered in 1 ms alone took 100+ ms while reports rendered.
In a separate process it holds no lock the server needs, and at a lower CPU priority (nice) the
server's own work runs first when both want a core.

The processes are spawned on first use, one more only while all are busy, up to `processes`;
each imports matplotlib and the report code once when it starts. A process that dies breaks
the executor: it is replaced at the next render, and the render that saw it runs in a thread
of the server instead (slower for others, but answered).
"""

from __future__ import annotations

import multiprocessing
import os
import threading
from collections.abc import Callable
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool

NICENESS = 10  # render processes yield the CPU to the server's requests
RENDER_PROCESSES = 1  # per server process (`serve --workers N` runs N of them)


def _start_worker() -> None:
    if hasattr(os, "nice"):
        try:
            os.nice(NICENESS)
        except OSError:
            pass
    import lossforensics.report.jobs  # noqa: F401  (matplotlib, pandas: once, not per render)


class RenderPool:
    """A lazily started pool of `processes` low-priority render processes."""

    def __init__(self, processes: int) -> None:
        self.processes = processes
        self._executor: ProcessPoolExecutor | None = None
        self._lock = threading.Lock()

    def submit(self, render: Callable[[], bytes]) -> Future[bytes]:
        """Run `render` (picklable: a module-level function or a partial of one) in a render
        process."""
        with self._lock:
            if self._executor is None:
                self._executor = ProcessPoolExecutor(
                    self.processes,
                    mp_context=multiprocessing.get_context("spawn"),
                    initializer=_start_worker,
                )
            executor = self._executor
        try:
            return executor.submit(render)
        except BrokenProcessPool:
            self.forget(executor)
            raise

    def forget(self, executor: ProcessPoolExecutor | None = None) -> None:
        """Drop a broken executor (or the current one) so the next render starts a new one."""
        with self._lock:
            if executor is None or executor is self._executor:
                old, self._executor = self._executor, None
            else:
                return
        if old is not None:
            old.shutdown(wait=False, cancel_futures=True)

    def close(self) -> None:
        with self._lock:
            old, self._executor = self._executor, None
        if old is not None:
            old.shutdown(wait=True, cancel_futures=True)
