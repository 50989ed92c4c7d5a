"""/v1/runs: upload, list, read, delete and re-diagnose stored runs (thin: the work is in
app/store and app/api/upload_flow)."""

from __future__ import annotations

import dataclasses
from typing import Annotated

from fastapi import APIRouter, Query, Request, Response
from lossforensics.api.deps import IdempotencyDep, ProjectDep, SettingsDep, StoreDep
from lossforensics.api.schemas import UPLOAD_BODY, Run, RunPage, RunsCreated, problem_responses
from lossforensics.api.upload_flow import (
    diagnose_form,
    form_fingerprint,
    receive_request,
    work_dir,
)
from lossforensics.api.uploads import content_hash
from lossforensics.store import OriginTakenError, RunRecord, RunStore
from lossforensics.store.pipeline import DiagnosedRun, rediagnose, to_new_runs
from starlette.concurrency import run_in_threadpool

router = APIRouter(prefix="/runs", tags=["runs"])


@router.post(
    "",
    status_code=201,
    response_model=RunsCreated,
    openapi_extra=UPLOAD_BODY,
    responses=problem_responses(400, 401, 409, 413, 415, 422),
    summary="Upload a run's logs (files or archives); store and diagnose every run found",
    description="The same content (the same normalised series) uploaded again returns the "
    "stored run with 200 instead of a new one with 201, unless `duplicate=true`. An upload "
    "with no training log is refused with 422 naming what it held. With an `Idempotency-Key` "
    "header, a retry of the same upload (same files, names and fields) gets the first answer "
    "(same status and run ids, `Idempotent-Replayed: true`) without storing again; the same key "
    "with a different upload is a 409 `conflict`.",
)
async def create_runs(
    request: Request,
    response: Response,
    settings: SettingsDep,
    store: StoreDep,
    project: ProjectDep,
    idempotency: IdempotencyDep,
    duplicate: Annotated[
        bool, Query(description="store a new copy even when the same content is stored")
    ] = False,
) -> dict:
    async with work_dir(settings) as work:
        form = await receive_request(request, settings, work)

        async def store_upload() -> tuple[int, dict]:
            diagnosed = await diagnose_form(request, form, settings, work)
            records = await run_in_threadpool(store_new, store, project, diagnosed, duplicate)
            status = 200 if all(not new for _, new in records) else 201
            return status, {"runs": [r.to_dict() for r, _ in records]}

        if idempotency is None:
            status, body = await store_upload()
        else:
            sent = await run_in_threadpool(form_fingerprint, form, request.url.query)
            status, body, replayed = await idempotency.once(sent, store_upload)
            response.headers["Idempotent-Replayed"] = str(replayed).lower()
    response.status_code = status
    response.headers["Location"] = f"/v1/runs/{body['runs'][0]['id']}"
    return body


_STORE_TRIES = 3  # each lost race stores nothing, and the next try finds the winner's runs


def store_new(
    store: RunStore, project: str, diagnosed: list[DiagnosedRun], duplicate: bool
) -> list[tuple[RunRecord, bool]]:
    """Each run of an upload as stored: (record, whether it is new). A run whose content hash
    and name are already stored is that run, unless `duplicate` asks for a copy (stored
    without origin). Two identical uploads at once: the one that loses the race on the unique
    (project, origin) key answers with the run the other stored."""
    for _ in range(_STORE_TRIES - 1):
        try:
            return _store_once(store, project, diagnosed, duplicate)
        except OriginTakenError:
            continue
    return _store_once(store, project, diagnosed, duplicate)


def _store_once(
    store: RunStore, project: str, diagnosed: list[DiagnosedRun], duplicate: bool
) -> list[tuple[RunRecord, bool]]:
    out: list[tuple[RunRecord, bool] | None] = []
    todo, origins = [], []
    for d in diagnosed:
        origin = f"content:{content_hash(d.frame)}:{d.name}"[:1000]
        found = None if duplicate else store.find_origin(project, origin)
        out.append(None if found is None else (found, False))
        if found is None:
            todo.append(d)
            origins.append(None if duplicate or origin in origins else origin)
    new_runs = [
        dataclasses.replace(r, origin=o) for r, o in zip(to_new_runs(todo), origins, strict=True)
    ]
    added = iter(store.add(project, new_runs) if new_runs else [])
    return [item if item is not None else (next(added), True) for item in out]


@router.get(
    "",
    response_model=RunPage,
    responses=problem_responses(401, 422),
    summary="List runs, newest first; filter by label or name",
)
def list_runs(
    store: StoreDep,
    project: ProjectDep,
    label: Annotated[str | None, Query(max_length=64, description="e.g. overfit, healthy")] = None,
    name: Annotated[str | None, Query(max_length=1000, description="exact run name")] = None,
    limit: Annotated[int, Query(ge=1, le=500)] = 50,
    offset: Annotated[int, Query(ge=0, le=10**9)] = 0,
) -> dict:
    page = store.list(project, label=label, name=name, limit=limit, offset=offset)
    return {
        "items": [r.summary() for r in page.items],
        "total": page.total,
        "limit": page.limit,
        "offset": page.offset,
    }


@router.get(
    "/{run_id}",
    response_model=Run,
    responses=problem_responses(401, 404),
    summary="A run's metadata and diagnosis",
)
def get_run(run_id: str, store: StoreDep, project: ProjectDep) -> dict:
    return store.get(project, run_id).to_dict()


@router.delete(
    "/{run_id}",
    status_code=204,
    response_class=Response,
    responses=problem_responses(401, 404),
    summary="Delete a run and its series",
)
def delete_run(run_id: str, store: StoreDep, project: ProjectDep) -> Response:
    store.delete(project, run_id)
    return Response(status_code=204)


@router.post(
    "/{run_id}/diagnose",
    response_model=Run,
    responses=problem_responses(401, 404),
    summary="Diagnose a stored run again (after the classifiers changed)",
)
def rediagnose_run(run_id: str, store: StoreDep, project: ProjectDep) -> dict:
    return rediagnose(store, project, run_id).to_dict()
