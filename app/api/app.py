"""The app factory: settings in, a FastAPI app out. Nothing is read from the environment here;
`lossforensics serve` builds the Settings and passes them."""

from __future__ import annotations

import gc
import logging
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from fastapi import FastAPI
from lossforensics import web
from lossforensics.api import diagnose, docs, errors, health, live, reports, runs, series
from lossforensics.api.guard import HostOriginGuard
from lossforensics.api.upload_flow import UPLOADS
from lossforensics.api.uploads import remove_tree
from lossforensics.isolate import WorkerPool
from lossforensics.settings import Settings, worker_limits
from lossforensics.store import RunStore
from lossforensics.store.pipeline import load_samples
from starlette.concurrency import run_in_threadpool

log = logging.getLogger("lossforensics.api")

# How long a thread may hold the GIL while another waits for it (Python's default is 5 ms).
# Report and plot renders are pure-Python CPU work in worker threads; every step of a request
# on the event loop waits up to this long for the GIL, so /healthz and other light requests
# took ~10 such waits (p99 ~140 ms) while reports were drawn.
GIL_SWITCH_SECONDS = 0.001

_frozen = False  # the start-up objects moved out of the collector's reach, once a process


def _freeze_startup_objects() -> None:
    """Move every object alive after start-up (modules, the app, the store) into the
    collector's permanent generation, once a process. A full collection walks every tracked
    object: ~200k after the imports, ~100 ms with the event loop stopped, which a burst of
    requests triggers now and then (a /healthz that waited 230 ms behind one); after the
    freeze it walks what requests allocated."""
    global _frozen
    if not _frozen:
        gc.collect()
        gc.freeze()
        _frozen = True


DESCRIPTION = """Upload a training run's logs (TensorBoard, W&B CSV, JSONL, HF trainer_state,
Lightning/Keras CSV, MLflow; single files or .zip/.tar.gz run directories) and get back what went
wrong with it, the likely causes ranked, and the first checks to run. Errors are RFC 9457
problem+json with the library's error `code`."""


def open_store(settings: Settings, samples_dir: Path | None = None) -> RunStore:
    """Open the store, drop what a killed process left behind, load the sample runs once."""
    store = RunStore.open(settings.data_dir, settings.database_url)
    removed = store.clean_orphans(grace_seconds=settings.orphan_grace_seconds)
    if removed:
        log.warning("removed %d orphan frame file(s) from an interrupted write", removed)
    uploads = settings.data_dir / UPLOADS
    if uploads.is_dir() and settings.orphan_grace_seconds == 0:
        remove_tree(uploads)
    if samples_dir is not None:
        added = load_samples(
            store, samples_dir, settings.projects, max_points=settings.max_points_per_run
        )
        log.info("sample runs: %d added from %s", len(added), samples_dir)
    return store


def reader_pool(settings: Settings) -> WorkerPool | None:
    """The pool of limited worker processes that read uploads (None when isolation is off)."""
    if not settings.isolate:
        return None
    return WorkerPool(settings.worker_processes, worker_limits(settings))


def create_app(
    settings: Settings | None = None, *, samples_dir: Path | None = None, prepare: bool = True
) -> FastAPI:
    """A ready app; the store opens when the server starts (lifespan) and closes at shutdown.
    `prepare=False` skips the start-up clean-up and sample loading: with several worker
    processes the parent does it once, before any worker can be mid-write."""
    settings = settings or Settings()

    def _open() -> RunStore:
        if prepare:
            return open_store(settings, samples_dir)
        return RunStore.open(settings.data_dir, settings.database_url)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        sys.setswitchinterval(GIL_SWITCH_SECONDS)
        app.state.store = await run_in_threadpool(_open)
        app.state.pool = reader_pool(settings)
        _freeze_startup_objects()
        try:
            yield
        finally:
            if app.state.pool is not None:
                await run_in_threadpool(app.state.pool.close)
            render_cache = getattr(app.state, "render_cache", None)
            if render_cache is not None:  # its render processes
                await run_in_threadpool(render_cache.close)
            app.state.store.close()

    app = FastAPI(
        title="lossforensics",
        version="0.1.0",
        description=DESCRIPTION,
        lifespan=lifespan,
        docs_url=None,
        redoc_url=None,
    )
    app.state.settings = settings
    app.state.pool = None
    errors.install(app)
    app.add_middleware(
        HostOriginGuard,
        allowed_hosts=settings.host_allow_list,
        allowed_origins=settings.origin_allow_list,
    )
    docs.install(app)
    app.include_router(health.router)
    app.include_router(runs.router, prefix="/v1")
    app.include_router(live.router, prefix="/v1")
    app.include_router(series.router, prefix="/v1")
    app.include_router(reports.router, prefix="/v1")
    app.include_router(diagnose.router, prefix="/v1")
    web.install(app)  # the browser interface at /
    return app


def worker_app() -> FastAPI:
    """Factory for `uvicorn --workers N`: settings from the environment, no start-up clean-up
    (`lossforensics serve --workers N` did it in the parent)."""
    return create_app(Settings(), prepare=False)
