"""/v1/runs/{id}/plot.png and /v1/runs/{id}/report.html: a stored run, drawn and written up.

Each is drawn once per (run, diagnosis, size) and then served from the render cache
(lossforensics.report.cache); drawing happens in a few worker threads, off the event loop."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Response
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import HTMLResponse
from lossforensics.api.deps import ProjectDep, RenderCacheDep, StoreDep
from lossforensics.api.schemas import problem_responses
from lossforensics.report.html import render_report
from lossforensics.report.plot import plot_run

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

    def render() -> bytes:
        frame = store.frame(project, run_id)
        return plot_run(frame, record.diagnosis_obj(), size=(width, height))

    key = (project, run_id, record.diagnosed_at, "plot.png", width, height)
    return Response(await cache.get_or_render(key, render), media_type="image/png")


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

    def render() -> bytes:
        diagnosis = record.diagnosis_obj()
        png = plot_run(store.frame(project, run_id), diagnosis)
        return render_report(diagnosis, png, run_id=record.id).encode("utf-8")

    key = (project, run_id, record.diagnosed_at, "report.html")
    return HTMLResponse(await cache.get_or_render(key, render))
