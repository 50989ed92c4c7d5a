"""Parsing untrusted input in worker processes with hard limits, a small pool kept warm.

    pool = WorkerPool(2, WorkerLimits(memory_bytes=1 << 30, cpu_seconds=120, wall_seconds=300,
                                      output_bytes=1 << 31))
    result = pool.run(function, *args)     # blocking; call it from a worker thread
    pool.close()

Each worker is a `spawn`ed process that imports only the readers at start (what reading needs;
the classifiers load at its first task), then runs one task at a time. The pool starts one
worker in the background and adds the others only when every started worker is busy, so a
server that is never sent an upload pays for one lean start, and the first upload waits only
for a worker still starting. Its limits:

- memory: the parent kills a worker whose resident set passes `memory_bytes` (all of it,
  imports included; checked every POLL_SECONDS), and RLIMIT_AS caps its address space at its
  size when ready plus what is left of `memory_bytes` plus LAZY_IMPORTS_ADDRESS_SPACE (a
  MemoryError then, answered as the memory limit wherever it is met: loading the task, running
  it, or sending its reply);
- CPU: RLIMIT_CPU, re-armed before each task at the time used so far plus `cpu_seconds` (the
  kernel ends the worker with SIGXCPU);
- wall time: the parent kills a worker that has not answered within `wall_seconds`;
- output: a result whose pickle is over `output_bytes` is refused in the worker.

A worker that passes a limit is killed and replaced (in the background, off the caller's path);
the caller gets LimitExceededError naming the limit (413). A worker that dies otherwise (a
crash in a C extension) gives CorruptInputError (422). Other tasks, on other workers, never
notice. Typed errors raised by the task cross back as themselves (`code` and location).
A worker is reused from task to task until one leaves its heap grown (a large read: the heap is
not given back) by more than `RECYCLE_GROWTH` of the headroom it had once settled after its first
task; it is then replaced, so the next upload does not start near the limit.

Results come back pickled from the worker. The worker runs our own readers on hostile bytes; it
does not run code from the input, so its pickles are trusted like the rest of our code.

This module imports nothing heavy at the top: a spawned worker starts by importing it.
"""

from __future__ import annotations

import errno
import logging
import os
import pickle
import queue
import signal
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from multiprocessing.reduction import ForkingPickler
from typing import Any

from lossforensics.classifiers.errors import (
    CorruptInputError,
    LimitExceededError,
    LossForensicsError,
    error_from_dict,
)

log = logging.getLogger("lossforensics.isolate")

# how often the parent checks a busy worker's resident memory and wall time
POLL_SECONDS = 0.05
# how long a worker whose pipe closed is given to exit before its status is read
EXIT_WAIT_SECONDS = 5.0
# how long a reply cut short waits for its worker's exit before it is judged too long: a worker
# that fails mid-reply exits at once (os._exit), one that sent too much lives on
CUT_REPLY_WAIT_SECONDS = 0.5
# a worker whose resident memory grew past its settled size (after its first task: readers and
# classifiers loaded) by more than this share of the headroom it then had is replaced: a large
# read leaves a heap that is not given back, so its next task would start near the limit
RECYCLE_GROWTH = 0.5
# a worker whose first task (imports included) left it above this share of its limit is replaced
# at once: whatever it settled at leaves too little room for the next upload
SETTLED_AT_MOST = 0.8
WARM_MODULES = ("lossforensics.ingest",)  # the rest loads at the first task, when needed
MIN_HEADROOM = 64 * 1024 * 1024  # address space a worker gets at least, whatever its start
# address space the modules a task imports on first use map beyond the pages they make resident
# (the classifiers' scipy and its libraries: ~170 MiB mapped for ~90 MiB resident), added to the
# cap so a small run's first task is not refused; the resident limit is still `memory_bytes`
LAZY_IMPORTS_ADDRESS_SPACE = 256 * 1024 * 1024
# what the parent sends to stop a worker (not a pickle, so never mistaken for a task)
STOP = b"stop"
# the exit status of a worker that ran out of memory where it could not answer (its reply itself
# failed to build or send): the parent reports the memory limit
OUT_OF_MEMORY_EXIT = 75
_ONE_THREAD = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMEXPR_NUM_THREADS")


@dataclass(frozen=True)
class WorkerLimits:
    """Hard limits of one task in a worker.

    Args:
        memory_bytes: resident memory a worker may reach, its imports included.
        cpu_seconds: CPU seconds one task may use.
        wall_seconds: seconds one task may take, waiting included.
        output_bytes: bytes of the pickled result.
    """

    memory_bytes: int
    cpu_seconds: int
    wall_seconds: float
    output_bytes: int


# -- the worker side ---------------------------------------------------------------------------


def _vm_size() -> int:
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith("VmSize:"):
                return int(line.split()[1]) * 1024
    return 0


def _worker_main(conn: Any, limits: WorkerLimits) -> None:
    import importlib
    import resource

    for name in _ONE_THREAD:
        os.environ[name] = "1"
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the server's Ctrl-C is the parent's to handle
    for module in WARM_MODULES:
        importlib.import_module(module)
    if os.path.exists("/proc/self/status"):
        headroom = max(limits.memory_bytes - _rss(os.getpid()), MIN_HEADROOM)
        cap = _vm_size() + headroom + LAZY_IMPORTS_ADDRESS_SPACE
        resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
    conn.send(("ready", os.getpid()))
    while True:
        try:
            task = conn.recv_bytes()
        except (EOFError, OSError):
            return
        if task == STOP:
            return
        used = resource.getrusage(resource.RUSAGE_SELF)
        spent = int(used.ru_utime + used.ru_stime) + 1
        _, hard = resource.getrlimit(resource.RLIMIT_CPU)
        resource.setrlimit(resource.RLIMIT_CPU, (spent + limits.cpu_seconds, hard))
        try:
            reply, last = _run_task(task, limits)
            conn.send_bytes(reply)
        except BaseException as exc:  # no reply could be built or sent: the exit status says why
            os._exit(OUT_OF_MEMORY_EXIT if _out_of_memory(exc) else 1)
        if last:
            return  # memory may be in a bad state: let the parent start a fresh worker


def _run_task(task: bytes, limits: WorkerLimits) -> tuple[bytes, bool]:
    """The pickled reply to one pickled (function, args) task, and whether the worker must
    stop after it. Loading the task is part of it: unpickling the function imports its module,
    which can meet the address-space cap like the task itself."""
    try:
        fn, args = pickle.loads(task)
        result = fn(*args)
        out = pickle.dumps(("ok", result, False), protocol=pickle.HIGHEST_PROTOCOL)
        del result
        if len(out) > limits.output_bytes:
            err = LimitExceededError(
                f"the result of reading this upload is {len(out)} bytes, over the limit of "
                f"{limits.output_bytes} bytes (worker output)"
            )
            return pickle.dumps(("error", err.to_dict(), False)), False
        return out, False
    except MemoryError:
        err = LimitExceededError(
            f"reading this upload needed more than {limits.memory_bytes} bytes of memory "
            "(the worker memory limit)"
        )
        return pickle.dumps(("error", err.to_dict(), True)), True
    except LossForensicsError as exc:
        return pickle.dumps(("error", exc.to_dict(), False)), False
    except Exception as exc:
        if _out_of_memory(exc):  # the address-space cap met inside a library that re-raises
            err = LimitExceededError(
                f"reading this upload needed more than {limits.memory_bytes} bytes of memory "
                f"(the worker memory limit: {type(exc).__name__}: {exc})"
            )
            return pickle.dumps(("error", err.to_dict(), True)), True
        # an unexpected bug: the caller logs it, with the worker's traceback, as a 500
        import traceback

        return pickle.dumps(("crash", traceback.format_exc(), True)), True


# how libraries word a refused allocation: strerror(ENOMEM), C++'s std::bad_alloc, and the
# dynamic loader's ImportError when a shared library's segments cannot be mapped
_OUT_OF_MEMORY_SIGNS = ("Cannot allocate memory", "bad_alloc", "failed to map segment")


def _out_of_memory(exc: BaseException | None) -> bool:
    """A MemoryError, or ENOMEM (an mmap or thread start refused), anywhere in the chain."""
    seen = 0
    while exc is not None and seen < 10:
        if isinstance(exc, MemoryError):
            return True
        if isinstance(exc, OSError) and exc.errno == errno.ENOMEM:
            return True
        if any(sign in str(exc) for sign in _OUT_OF_MEMORY_SIGNS):
            return True
        exc = exc.__cause__ or exc.__context__
        seen += 1
    return False


# -- the parent side ---------------------------------------------------------------------------


class WorkerCrash(RuntimeError):
    """A task raised an unexpected exception in the worker (a bug, answered as a 500); the
    message is the worker's traceback."""


class _Worker:
    def __init__(self, ctx: Any, limits: WorkerLimits) -> None:
        parent, child = ctx.Pipe()
        self.conn = parent
        self.proc = ctx.Process(
            target=_worker_main, args=(child, limits), daemon=True, name="lossforensics-reader"
        )
        self.proc.start()
        child.close()
        self.settled = 0  # resident bytes after its first task, once known
        self._kill_lock = threading.Lock()

    def grew_too_much(self, memory_limit: int) -> bool:
        """After a task: whether this worker holds more than `RECYCLE_GROWTH` of the headroom
        it had once settled (its first task sets that size; imports are not growth)."""
        rss = _rss(self.proc.pid)
        if not self.settled:
            self.settled = rss
            return rss > SETTLED_AT_MOST * memory_limit  # the first task left it near its limit
        return rss - self.settled > RECYCLE_GROWTH * max(memory_limit - self.settled, 0)

    def wait_ready(self, timeout: float) -> None:
        if not self.conn.poll(timeout):
            raise RuntimeError(f"reader worker did not start within {timeout:g} s")
        self.conn.recv()

    def kill(self) -> None:
        """Stop it and close its pipe, once: the pool's close and a starting thread's drop
        can both reach a worker, and a second close of the pipe's descriptor would close
        whatever file reused that number."""
        with self._kill_lock:
            if self.conn.closed:
                return
            if self.proc.is_alive():
                self.proc.kill()
            self.proc.join(5)
            self.conn.close()


_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


def _rss(pid: int | None) -> int:
    """Resident bytes of a process (Linux /proc; 0 where unknown: the RLIMIT_AS cap remains)."""
    try:
        with open(f"/proc/{pid}/statm") as fh:
            return int(fh.read().split()[1]) * _PAGE
    except (OSError, ValueError, IndexError):
        return 0


class WorkerPool:
    """Up to `size` workers (`prestart` started at once, in the background; the others when
    all are busy); `run` blocks until one is free, then until the task is done."""

    def __init__(
        self,
        size: int,
        limits: WorkerLimits,
        *,
        prestart: int = 1,
        start_timeout: float = 300.0,
    ) -> None:
        import multiprocessing

        self.limits = limits
        self.size = size
        self.start_timeout = start_timeout
        self._ctx = multiprocessing.get_context("spawn")
        self._idle: queue.Queue[_Worker] = queue.Queue()
        self._all: set[_Worker] = set()
        self._lock = threading.Lock()
        self._closed = False
        self.replaced = 0
        self._started = 0  # workers alive or starting
        for _ in range(min(prestart, size)):
            self._spawn_async()

    def _spawn_async(self) -> None:
        with self._lock:
            self._started += 1
        threading.Thread(target=self._spawn, daemon=True, name="lf-worker-start").start()

    def _spawn(self) -> None:
        try:
            self._start_one()
        finally:
            with self._lock:
                self._started -= 1

    def _start_one(self) -> None:
        for attempt in range(3):
            worker = _Worker(self._ctx, self.limits)
            with self._lock:
                self._all.add(worker)
            try:
                worker.wait_ready(self.start_timeout)
            except (RuntimeError, EOFError, OSError) as exc:
                self._drop(worker)
                if self._closed:  # closed while it started: nothing failed
                    return
                log.error("reader worker failed to start (try %d): %s", attempt + 1, exc)
                continue
            if self._closed:
                self._drop(worker)
                return
            with self._lock:
                self._started += 1  # counted as alive from here (the finally counts it off)
            self._idle.put(worker)
            return

    def _drop(self, worker: _Worker) -> None:
        worker.kill()
        with self._lock:
            self._all.discard(worker)

    def pids(self) -> list[int]:
        with self._lock:
            return [w.proc.pid for w in self._all if w.proc.pid is not None]

    def run(self, fn: Callable[..., Any], *args: Any) -> Any:
        """fn(*args) in a worker, under the limits; its typed errors are re-raised here."""
        if self._closed:
            raise RuntimeError("the worker pool is closed")
        worker = self._take()
        try:
            reply = self._exchange(worker, fn, args)
        except BaseException:
            self._replace(worker)
            raise
        kind, payload, last = pickle.loads(reply)
        if last or worker.grew_too_much(self.limits.memory_bytes):
            # it exits after a MemoryError or a crash; one left big by a large read would
            # start the next task near its limit (the heap is not given back): a fresh one
            self._replace(worker)
        else:
            self._idle.put(worker)
        if kind == "ok":
            return payload
        if kind == "error":
            raise error_from_dict(payload)
        raise WorkerCrash(payload)

    def _take(self) -> _Worker:
        if self._idle.empty():
            with self._lock:
                grow = self._started < self.size
            if grow:
                self._spawn_async()
        while True:
            worker = self._idle.get()
            if worker.proc.is_alive():
                return worker
            self._replace(worker)

    def _replace(self, worker: _Worker) -> None:
        self._drop(worker)
        with self._lock:
            self._started -= 1
        if not self._closed:
            self.replaced += 1
            self._spawn_async()

    def _exchange(self, worker: _Worker, fn: Callable[..., Any], args: tuple) -> bytes:
        limits = self.limits
        worker.conn.send_bytes(ForkingPickler.dumps((fn, args)))  # what Connection.send writes
        start = time.monotonic()
        while not worker.conn.poll(POLL_SECONDS):
            if not worker.proc.is_alive():
                # the reply may have been sent just before the worker exited
                if worker.conn.poll(0):
                    break
                raise self._death(worker)
            if time.monotonic() - start > limits.wall_seconds:
                raise LimitExceededError(
                    f"reading this upload took more than {limits.wall_seconds:g} s "
                    "(the worker wall-time limit)"
                )
            if _rss(worker.proc.pid) > limits.memory_bytes:
                raise LimitExceededError(
                    f"reading this upload needed more than {limits.memory_bytes} bytes of memory "
                    "(the worker memory limit)"
                )
        try:
            return worker.conn.recv_bytes(limits.output_bytes + 1024)
        except EOFError as exc:  # the pipe closed with no reply: the worker is exiting
            raise self._death(worker) from exc
        except OSError as exc:
            # a reply cut off by the worker's exit, or one over the limit from a live worker
            worker.proc.join(CUT_REPLY_WAIT_SECONDS)
            if not worker.proc.is_alive():
                raise self._death(worker) from exc
            raise LimitExceededError(
                f"the result of reading this upload is over {limits.output_bytes} bytes "
                "(worker output)"
            ) from exc

    def _death(self, worker: _Worker) -> LossForensicsError:
        worker.proc.join(EXIT_WAIT_SECONDS)
        code = worker.proc.exitcode
        if code == OUT_OF_MEMORY_EXIT:
            return LimitExceededError(
                f"reading this upload needed more than {self.limits.memory_bytes} bytes of memory "
                "(the worker memory limit)"
            )
        if code == -signal.SIGXCPU:
            return LimitExceededError(
                f"reading this upload used more than {self.limits.cpu_seconds} s of CPU "
                "(the worker CPU limit)"
            )
        if code in (-signal.SIGKILL, -signal.SIGABRT, -signal.SIGSEGV, -signal.SIGBUS):
            return LimitExceededError(
                f"the reader's worker was stopped (signal {-code}) reading this upload, most "
                f"likely past its memory limit of {self.limits.memory_bytes} bytes"
            )
        return CorruptInputError(f"the reader's worker died (exit {code}) reading this upload")

    def close(self) -> None:
        self._closed = True
        with self._lock:
            workers = list(self._all)
        for w in workers:
            try:
                w.conn.send_bytes(STOP)
            except (OSError, ValueError):
                pass
        deadline = time.monotonic() + 2
        for w in workers:
            w.proc.join(max(0.0, deadline - time.monotonic()))
            w.kill()
        with self._lock:
            self._all.clear()
