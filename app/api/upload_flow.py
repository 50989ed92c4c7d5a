"""The request side of an upload, shared by POST /v1/runs and POST /v1/diagnose: stream the body
to a private work folder, read and diagnose it in a limited worker process (app/isolate.py; in a
worker thread when isolation is off), always remove the folder."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from fastapi import Request
from lossforensics.api.multipart import receive_form
from lossforensics.api.uploads import read_upload, remove_tree
from lossforensics.classifiers.errors import InputError
from lossforensics.settings import Settings
from lossforensics.store.pipeline import DiagnosedRun
from starlette.concurrency import run_in_threadpool
from starlette.requests import ClientDisconnect

UPLOADS = "uploads"


@asynccontextmanager
async def work_dir(settings: Settings) -> AsyncIterator[Path]:
    path = settings.data_dir / UPLOADS / uuid.uuid4().hex
    try:
        yield path
    finally:
        await run_in_threadpool(remove_tree, path)


async def diagnose_request(request: Request, settings: Settings, work: Path) -> list[DiagnosedRun]:
    """Receive the multipart body under `work` and diagnose every run in it."""
    recv = work / "upload"
    try:
        form = await receive_form(
            request.stream(),
            request.headers.get("content-type"),
            request.headers.get("content-length"),
            recv,
            max_bytes=settings.max_upload_bytes,
            max_files=settings.max_files_per_upload,
        )
    except ClientDisconnect:
        raise InputError("the client went away before the upload was complete") from None
    pool = getattr(request.app.state, "pool", None)  # limited worker processes (isolate)
    if pool is None:
        return await run_in_threadpool(read_upload, form, recv, work, settings)
    return await run_in_threadpool(pool.run, read_upload, form, recv, work, settings)
