"""Run the per-source work on a pluggable `concurrent.futures.Executor`, with progress.

Four executors, one interface: in-process (`jobs=1`: no pool start-up, easy to debug), a
`ProcessPoolExecutor` (default: one process per CPU), the service's limited reader workers
(`isolate`: app/isolate.py's WorkerPool, each file read under hard memory, CPU, wall-time and
output limits; a file past one fails alone, naming the limit), or a Dask cluster's executor
(`distributed.Client(address).get_executor()`, the `[dask]` extra) when the runs sit on shared
storage that many machines can read. No home-made scheduler: the executor decides placement.

The local pool gets the sources in batches (up to MAX_BATCH a task, at least TASKS_PER_JOB tasks
a worker); the other executors one source a task, so a limit or a lost worker costs one source.

Progress goes to the console passed in: a rich bar on a terminal, a plain line every ~10% when
not (CI logs, pipes), nothing when `console` is None.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import (
    Executor,
    Future,
    ProcessPoolExecutor,
    ThreadPoolExecutor,
    as_completed,
)
from contextlib import contextmanager
from typing import Any

from lossforensics.audit.worker import RunAudit, audit_source, audit_sources, prepare_worker
from lossforensics.classifiers.errors import InputError, LossForensicsError
from lossforensics.discover import RunSource
from lossforensics.isolate import WorkerLimits, WorkerPool
from rich.console import Console
from rich.progress import (
    BarColumn,
    Progress,
    SpinnerColumn,
    TaskProgressColumn,
    TextColumn,
    TimeRemainingColumn,
)


class InlineExecutor(Executor):
    """Runs each task at submit time in this process (jobs=1)."""

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future:
        fut: Future = Future()
        try:
            fut.set_result(fn(*args, **kwargs))
        except BaseException as exc:  # delivered through the future, like a pool would
            fut.set_exception(exc)
        return fut


class IsolatedExecutor(Executor):
    """Each task in a limited worker of a WorkerPool (one thread a worker waits on it)."""

    def __init__(self, jobs: int, limits: WorkerLimits) -> None:
        self._pool = WorkerPool(jobs, limits, prestart=jobs)
        self._threads = ThreadPoolExecutor(jobs, thread_name_prefix="lf-audit")

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future:
        if kwargs:
            raise TypeError("IsolatedExecutor passes positional arguments only")
        return self._threads.submit(self._pool.run, fn, *args)

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        self._threads.shutdown(wait, cancel_futures=cancel_futures)
        self._pool.close()


class AuditPool(ProcessPoolExecutor):
    """The local process pool: `jobs` workers, each prepared once (worker.prepare_worker),
    started as the pool opens: their imports and set-up (~0.1-0.5 s each) run while the caller
    discovers the runs, not after it has (a pool starts its workers at the first task)."""

    def __init__(self, jobs: int) -> None:
        super().__init__(max_workers=jobs, initializer=prepare_worker)
        self.jobs = jobs
        self.submit(int)  # a task that does nothing: the workers start now


# sources a pool task audits at most, and the fewest tasks each worker gets (see batch_size)
MAX_BATCH = 16
TASKS_PER_JOB = 8


def default_jobs() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


@contextmanager
def open_executor(
    jobs: int | None = None,
    dask: str | None = None,
    *,
    isolate: WorkerLimits | None = None,
    dask_timeout: float = 20.0,
) -> Iterator[Executor]:
    """The executor an audit runs on; closed (pool shut down, Dask client closed) on exit.
    `isolate` reads every source in limited workers (not with `dask`)."""
    if dask and isolate is not None:
        raise InputError("--isolate and --dask cannot be combined: the limits are local")
    if dask:
        try:
            from distributed import Client
        except ImportError:
            raise InputError(
                "--dask needs the dask extra: pip install 'lossforensics[dask]'"
            ) from None
        try:
            client = Client(dask, timeout=f"{dask_timeout}s")
        except OSError as exc:
            raise InputError(f"cannot reach the Dask scheduler at {dask}: {exc}") from None
        try:
            yield client.get_executor(pure=False)
        finally:
            client.close()
        return
    jobs = default_jobs() if jobs is None else jobs
    if jobs < 1:
        raise InputError(f"--jobs must be at least 1, got {jobs}")
    if isolate is not None:
        with IsolatedExecutor(jobs, isolate) as isolated:
            yield isolated
        return
    if jobs == 1:
        yield InlineExecutor()
        return
    with AuditPool(jobs) as pool:
        yield pool


def run_audit(
    sources: Sequence[RunSource],
    executor: Executor,
    *,
    console: Console | None = None,
    preview_points: int = 0,
) -> list[RunAudit]:
    """Audit every source on `executor`; results sorted by run name (deterministic whatever
    order the workers finish in)."""
    results: list[RunAudit] = []
    if isinstance(executor, InlineExecutor):  # no futures to wait on: run in order
        with _progress(console, len(sources)) as advance:
            for source in sources:
                found = audit_source(source, preview_points)
                results.extend(found)
                advance(len(found))
    else:
        size = batch_size(len(sources), executor.jobs) if isinstance(executor, AuditPool) else 1
        batches = [tuple(sources[i : i + size]) for i in range(0, len(sources), size)]
        # submit before the progress bar's refresh thread starts, so pool workers are forked
        # from a process holding no rich lock
        futures = {executor.submit(audit_sources, b, preview_points): b for b in batches}
        with _progress(console, len(sources)) as advance:
            for fut in as_completed(futures):
                for found in _results_of(fut, futures[fut]):
                    results.extend(found)
                    advance(len(found))
    results.sort(key=lambda r: r.name)
    return results


def batch_size(sources: int, jobs: int) -> int:
    """Sources a pool task audits: one task per source costs a round trip through the parent's
    queue thread for every ~30 ms run, and on a busy machine the workers wait on that thread;
    batches of up to MAX_BATCH keep each worker fed while leaving at least TASKS_PER_JOB tasks a
    worker, so the last tasks still balance."""
    return max(1, min(MAX_BATCH, sources // (TASKS_PER_JOB * jobs)))


def _results_of(fut: Future, batch: Sequence[RunSource]) -> list[list[RunAudit]]:
    try:
        return fut.result()
    except LossForensicsError as exc:  # an isolated worker past a limit: the limit named
        return [
            [RunAudit(s.name, s, None, {**exc.to_dict(), "file": exc.file or s.path})]
            for s in batch
        ]
    except Exception as exc:  # the worker itself died (killed process, lost Dask worker)
        message = f"worker failed: {type(exc).__name__}: {exc}"
        return [[RunAudit(s.name, s, None, _worker_error(message, s.path))] for s in batch]


def _worker_error(message: str, path: str) -> dict[str, Any]:
    return {"code": "error", "message": message, "file": path, "line": None, "byte": None}


@contextmanager
def _progress(console: Console | None, total: int) -> Iterator[Callable[[int], None]]:
    """Progress over sources (files or run folders); each advance also adds the runs that
    source held (a W&B export or a sweep folder holds several), so both counts are shown."""
    if console is None or total == 0:
        yield lambda runs: None
        return
    runs = 0
    if console.is_terminal:
        columns = (
            SpinnerColumn(),
            TextColumn("{task.description}"),
            BarColumn(),
            TaskProgressColumn(),
            TimeRemainingColumn(),
        )
        with Progress(*columns, console=console, transient=True) as bar:
            task = bar.add_task(f"auditing {total:,} sources", total=total)

            def advance_bar(found: int) -> None:
                nonlocal runs
                runs += found
                bar.update(
                    task,
                    advance=1,
                    description=f"auditing {total:,} sources ({runs:,} runs so far)",
                )

            yield advance_bar
        return
    done = 0
    step = max(1, total // 10)

    def advance(found: int) -> None:
        nonlocal done, runs
        done += 1
        runs += found
        if done % step == 0 or done == total:
            console.print(f"audited {done:,}/{total:,} sources ({runs:,} runs)", highlight=False)

    yield advance
