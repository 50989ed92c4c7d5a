"""/v1/runs/{id}/plot.png and /v1/runs/{id}/report.html: a stored run, drawn and written up."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Response
from fastapi.responses import HTMLResponse
from lossforensics.api.deps import ProjectDep, StoreDep
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
def get_plot(
    run_id: str, store: StoreDep, project: ProjectDep, width: Width = 1000, height: Height = 700
) -> Response:
    record = store.get(project, run_id)
    png = plot_run(store.frame(project, run_id), record.diagnosis_obj(), size=(width, height))
    return Response(png, media_type="image/png")


@router.get(
    "/{run_id}/report.html",
    response_class=HTMLResponse,
    responses=problem_responses(401, 404),
    summary="A self-contained HTML report (plot inline)",
)
def get_report(run_id: str, store: StoreDep, project: ProjectDep) -> HTMLResponse:
    record = store.get(project, run_id)
    diagnosis = record.diagnosis_obj()
    png = plot_run(store.frame(project, run_id), diagnosis)
    return HTMLResponse(render_report(diagnosis, png, run_id=record.id))
