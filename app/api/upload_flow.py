"""The request side of an upload, shared by POST /v1/runs and POST /v1/diagnose: stream the body
to a private work folder, read and diagnose it in a limited worker process (app/isolate.py; in a
worker thread when isolation is off), always remove the folder."""

from __future__ import annotations

import hashlib
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from fastapi import Request
from lossforensics.api.multipart import ReceivedForm, SavedFile, receive_form
from lossforensics.api.uploads import read_upload, remove_tree
from lossforensics.classifiers.errors import EmptyInputError, InputError, LimitExceededError
from lossforensics.settings import Settings
from lossforensics.store.idempotency import fingerprint
from lossforensics.store.pipeline import DiagnosedRun
from starlette.concurrency import run_in_threadpool
from starlette.requests import ClientDisconnect

UPLOADS = "uploads"
RECEIVED = "upload"  # the received files, under the work folder


@asynccontextmanager
async def work_dir(settings: Settings) -> AsyncIterator[Path]:
    path = settings.data_dir / UPLOADS / uuid.uuid4().hex
    try:
        yield path
    finally:
        await run_in_threadpool(remove_tree, path)


async def diagnose_request(request: Request, settings: Settings, work: Path) -> list[DiagnosedRun]:
    """Receive the multipart body under `work` and diagnose every run in it."""
    form = await receive_request(request, settings, work)
    return await diagnose_form(request, form, settings, work)


async def receive_request(request: Request, settings: Settings, work: Path) -> ReceivedForm:
    """The upload's files saved under `work` (a multipart form, or pasted text)."""
    recv = work / RECEIVED
    ctype = (request.headers.get("content-type") or "").split(";")[0].strip().lower()
    try:
        if ctype == "text/plain":  # pasted console output, read as one file
            return await _receive_text(request, settings, recv)
        return await receive_form(
            request.stream(),
            request.headers.get("content-type"),
            request.headers.get("content-length"),
            recv,
            max_bytes=settings.max_upload_bytes,
            max_files=settings.max_files_per_upload,
        )
    except ClientDisconnect:
        raise InputError("the client went away before the upload was complete") from None


async def diagnose_form(
    request: Request, form: ReceivedForm, settings: Settings, work: Path
) -> list[DiagnosedRun]:
    """Read and diagnose a received upload: in a limited worker process, or in a thread when
    isolation is off."""
    recv = work / RECEIVED
    pool = getattr(request.app.state, "pool", None)  # limited worker processes (isolate)
    if pool is None:
        return await run_in_threadpool(read_upload, form, recv, work, settings)
    return await run_in_threadpool(pool.run, read_upload, form, recv, work, settings)


def form_fingerprint(form: ReceivedForm, query: str) -> str:
    """What an upload asks for, for its Idempotency-Key: the query, the form fields and each
    file's name and sha256 (not the multipart framing: a client's retry draws a new boundary)."""
    parts: list[bytes | str] = [query]
    for name, value in sorted(form.fields.items()):
        parts += [name, value]
    for f in form.files:
        digest = hashlib.sha256()
        with open(f.path, "rb") as fh:
            while chunk := fh.read(1 << 20):
                digest.update(chunk)
        parts += [f.name, digest.digest()]
    return fingerprint(*parts)


PASTED = "pasted.log"


async def _receive_text(request: Request, settings: Settings, recv: Path) -> ReceivedForm:
    """A `text/plain` body (pasted console text) saved as one file, under the upload limit;
    the run is named by the `name` query parameter, else 'pasted'."""
    recv.mkdir(parents=True, exist_ok=True)
    path = recv / PASTED
    size = 0
    with open(path, "wb") as out:
        async for chunk in request.stream():
            size += len(chunk)
            if size > settings.max_upload_bytes:
                raise LimitExceededError(
                    f"upload is over the limit of {settings.max_upload_bytes} bytes"
                )
            out.write(chunk)
    if size == 0:
        raise EmptyInputError("the pasted text is empty", file=PASTED)
    name = request.query_params.get("name") or "pasted"
    return ReceivedForm(files=[SavedFile(PASTED, path, size)], fields={"name": name})
