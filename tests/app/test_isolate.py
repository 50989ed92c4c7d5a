"""The parsing worker pool: a task past a limit is killed and answered 413, its worker replaced,
and the pool keeps serving; typed errors cross back as themselves."""

from __future__ import annotations

import errno
import os
import time
from collections.abc import Iterator

import pytest
from lossforensics import isolate
from lossforensics.classifiers.errors import CorruptInputError, LimitExceededError
from lossforensics.isolate import WorkerCrash, WorkerLimits, WorkerPool

MiB = 1024 * 1024


def pid() -> int:
    return os.getpid()


def sleep(seconds: float) -> None:
    time.sleep(seconds)


def hog(megabytes: int) -> int:
    return len(bytearray(megabytes * MiB))


def corrupt() -> None:
    raise CorruptInputError("bad bytes", file="x.csv", line=3)


def enomem() -> None:
    try:
        raise OSError(errno.ENOMEM, "Cannot allocate memory")
    except OSError as exc:
        raise RuntimeError("a library's own error") from exc


def bug() -> None:
    raise ValueError("a bug in a reader")


def exit_with(status: int) -> None:
    os._exit(status)


def _refuse_memory() -> None:
    raise MemoryError


def _refuse_a_library() -> None:
    raise ImportError("libx.so: failed to map segment from shared object")


class RefusedOnLoad:
    """An argument whose unpickling in the worker meets the memory cap, as importing a task's
    module (a shared library mapped) can on a worker's first task."""

    def __init__(self, refuse: object) -> None:
        self.refuse = refuse

    def __reduce__(self) -> tuple:
        return (self.refuse, ())


@pytest.fixture(scope="module")
def pool() -> Iterator[WorkerPool]:
    limits = WorkerLimits(
        memory_bytes=256 * MiB, cpu_seconds=30, wall_seconds=3.0, output_bytes=1 * MiB
    )
    p = WorkerPool(1, limits)
    yield p
    p.close()


def test_a_task_runs_in_another_process(pool):
    assert pool.run(pid) != os.getpid()


def test_typed_errors_cross_back(pool):
    with pytest.raises(CorruptInputError) as info:
        pool.run(corrupt)
    assert info.value.file == "x.csv" and info.value.line == 3


def test_wall_time_limit_kills_and_replaces_the_worker(pool):
    before = pool.run(pid)
    with pytest.raises(LimitExceededError, match="wall-time"):
        pool.run(sleep, 30)
    assert pool.run(pid) != before  # a fresh worker answers


def test_memory_limit_is_413_and_the_pool_recovers(pool):
    with pytest.raises(LimitExceededError, match="memory"):
        pool.run(hog, 1024)
    assert pool.run(hog, 8) == 8 * MiB


def test_output_limit(pool):
    with pytest.raises(LimitExceededError, match="output"):
        pool.run(os.urandom, 2 * MiB)


def test_enomem_inside_a_library_is_the_memory_limit_and_a_fresh_worker(pool):
    before = pool.run(pid)
    with pytest.raises(LimitExceededError, match="memory limit"):
        pool.run(enomem)
    assert pool.run(pid) != before


def test_a_crash_carries_the_worker_traceback_and_the_worker_is_replaced(pool):
    before = pool.run(pid)
    with pytest.raises(WorkerCrash, match="ValueError: a bug in a reader") as info:
        pool.run(bug)
    assert "in bug" in str(info.value)
    assert pool.run(pid) != before


_KEPT: list[bytearray] = []


def keep(megabytes: int) -> int:
    """Allocate and keep: the worker's heap stays grown after the task."""
    block = bytearray(megabytes * MiB)
    block[::4096] = b"x" * len(block[::4096])  # touch every page: resident, not just reserved
    _KEPT.append(block)
    return os.getpid()


def test_a_worker_is_reused_until_a_task_leaves_it_grown_past_half_its_headroom():
    limits = WorkerLimits(
        memory_bytes=768 * MiB, cpu_seconds=30, wall_seconds=30.0, output_bytes=1 * MiB
    )
    p = WorkerPool(1, limits)
    try:
        first = p.run(pid)  # settles: its imports are not growth
        assert [p.run(pid) for _ in range(3)] == [first] * 3
        assert p.run(keep, 16) == first  # a little growth: kept
        assert p.run(pid) == first
        assert p.run(keep, 450) == first  # grown past half its headroom: replaced after
        assert p.run(pid) != first
    finally:
        p.close()


def test_a_worker_killed_from_several_threads_at_once_closes_its_pipe_once():
    """The pool's close and a starting thread's drop can both kill one worker; a second close
    of its pipe would close whatever file had reused that descriptor number."""
    import multiprocessing
    import threading

    from lossforensics.isolate import _Worker

    limits = WorkerLimits(
        memory_bytes=256 * MiB, cpu_seconds=30, wall_seconds=3.0, output_bytes=1 * MiB
    )
    worker = _Worker(multiprocessing.get_context("spawn"), limits)
    worker.wait_ready(300)
    errors: list[BaseException] = []
    go = threading.Barrier(8)

    def kill() -> None:
        go.wait()
        try:
            worker.kill()
        except BaseException as exc:  # noqa: BLE001 - the assertion below names it
            errors.append(exc)

    threads = [threading.Thread(target=kill) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert worker.conn.closed and not worker.proc.is_alive()


@pytest.mark.parametrize("refuse", [_refuse_memory, _refuse_a_library])
def test_memory_refused_while_loading_the_task_is_the_memory_limit(pool, refuse):
    """The worker unpickles the task inside its error handling: a cap met there is answered as
    the memory limit, not a dead worker or an oversized reply."""
    before = pool.run(pid)
    with pytest.raises(LimitExceededError, match="memory limit"):
        pool.run(pid_of, RefusedOnLoad(refuse))
    assert pool.run(pid) != before


def pid_of(_: object) -> int:
    return os.getpid()


def test_a_worker_that_exits_out_of_memory_is_the_memory_limit(pool):
    with pytest.raises(LimitExceededError, match="memory limit"):
        pool.run(exit_with, isolate.OUT_OF_MEMORY_EXIT)
    assert pool.run(hog, 8) == 8 * MiB


def test_a_worker_that_dies_mid_task_is_a_dead_worker_not_an_output_limit(pool):
    for _ in range(3):  # the pipe's end and the process's exit race: each order is read alike
        with pytest.raises(CorruptInputError, match=r"died \(exit 3\)"):
            pool.run(exit_with, 3)
