"""/v1/diagnose: one-shot diagnosis of an upload; nothing is stored."""

from __future__ import annotations

from fastapi import APIRouter, Request
from lossforensics.api.deps import ProjectDep, SettingsDep
from lossforensics.api.schemas import UPLOAD_BODY, Diagnoses, problem_responses
from lossforensics.api.upload_flow import diagnose_request, work_dir

router = APIRouter(tags=["diagnose"])


@router.post(
    "/diagnose",
    response_model=Diagnoses,
    openapi_extra=UPLOAD_BODY,
    responses=problem_responses(400, 401, 413, 415, 422),
    summary="Diagnose uploaded logs without storing them",
)
async def diagnose_once(request: Request, settings: SettingsDep, _project: ProjectDep) -> dict:
    async with work_dir(settings) as work:
        diagnosed = await diagnose_request(request, settings, work)
    return {"diagnoses": [d.diagnosis.to_dict() for d in diagnosed]}
