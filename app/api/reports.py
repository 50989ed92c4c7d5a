"""/v1/runs/{id}/plot.png and /v1/runs/{id}/report.html: a stored run, drawn and written up.

Each is drawn once per (run, diagnosis, size) and then served from the render cache
(lossforensics.report.cache); drawing happens in the cache's render processes, which read the
run's frame file themselves (lossforensics.report.jobs), off the event loop and off the GIL."""

from __future__ import annotations

from functools import partial
from typing import Annotated

from fastapi import APIRouter, Query, Response
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import HTMLResponse
from lossforensics.api.deps import ProjectDep, RenderCacheDep, StoreDep
from lossforensics.api.schemas import problem_responses
from lossforensics.classifiers.errors import NotFoundError
from lossforensics.report.cache import RenderCache
from lossforensics.report.jobs import draw_plot, draw_report

router = APIRouter(prefix="/runs", tags=["reports"])

Width = Annotated[int, Query(ge=100, le=4000, description="pixels")]
Height = Annotated[int, Query(ge=100, le=4000, description="pixels")]


@router.get(
    "/{run_id}/plot.png",
    response_class=Response,
    responses={200: {"content": {"image/png": {}}}, **problem_responses(401, 404, 422)},
    summary="Curves with NaN/inf marked and each finding's span shaded",
)
async def get_plot(
    run_id: str,
    store: StoreDep,
    project: ProjectDep,
    cache: RenderCacheDep,
    width: Width = 1000,
    height: Height = 700,
) -> Response:
    record = await run_in_threadpool(store.get, project, run_id)
    path = str(store.frames.path(record.id))
    render = partial(draw_plot, path, record.diagnosis, record.id, (width, height), record.points)
    key = (project, run_id, record.diagnosed_at, "plot.png", width, height)
    return Response(await _drawn(cache, key, render), media_type="image/png")


@router.get(
    "/{run_id}/report.html",
    response_class=HTMLResponse,
    responses=problem_responses(401, 404),
    summary="A self-contained HTML report (plot inline)",
)
async def get_report(
    run_id: str, store: StoreDep, project: ProjectDep, cache: RenderCacheDep
) -> HTMLResponse:
    record = await run_in_threadpool(store.get, project, run_id)
    path = str(store.frames.path(record.id))
    render = partial(draw_report, path, record.diagnosis, record.id, record.points)
    key = (project, run_id, record.diagnosed_at, "report.html")
    return HTMLResponse(await _drawn(cache, key, render))


async def _drawn(cache: RenderCache, key: tuple, render: partial[bytes]) -> bytes:
    try:
        return await cache.get_or_render(key, render)
    except FileNotFoundError:  # the frame file went away: the run was deleted meanwhile
        raise NotFoundError(f"no run {key[1]!r} (deleted while it was drawn)") from None
