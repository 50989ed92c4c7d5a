"""Response bodies as pydantic models: they document the API in OpenAPI (/docs)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field


class RunSummary(BaseModel):
    id: str
    name: str = Field(description="run name from the logs")
    project: str
    created_at: float = Field(description="seconds since the Unix epoch")
    diagnosed_at: float
    format: str | None = Field(description="detected log format")
    files: list[str]
    points: int
    verdict: str = Field(description="primary label, or 'healthy'")
    labels: list[str] = Field(description="every label found ('healthy' when none)")
    findings: int = Field(0, description="how many findings the diagnosis holds")
    last_step: int | None = Field(None, description="the last step any metric reached")


class Run(RunSummary):
    diagnosis: dict[str, Any] = Field(description="the Diagnosis JSON (see README)")


class RunPage(BaseModel):
    items: list[RunSummary]
    total: int
    limit: int
    offset: int


class RunsCreated(BaseModel):
    runs: list[Run] = Field(description="one entry per run found in the upload")


class Diagnoses(BaseModel):
    diagnoses: list[dict[str, Any]] = Field(description="one Diagnosis JSON per run found")


class Series(BaseModel):
    metric: str
    role: str
    points: int
    step: list[int]
    value: list[float | str] = Field(description="non-finite values as 'nan', 'inf', '-inf'")
    wall_time: list[float | None]
    total_points: int | None = Field(
        None, description="with `points`: how many points the window holds before downsampling"
    )


class SeriesOut(BaseModel):
    run_id: str
    series: list[Series]
    points: int | None = None
    start: int | None = None
    end: int | None = None


class Health(BaseModel):
    status: str
    auth: bool
    free_bytes: int | None = Field(
        None, description="bytes free on the data directory's disk (uploads answer 507 at 0)"
    )


class Problem(BaseModel):
    """RFC 9457 problem details plus the library error code and location."""

    type: str
    title: str
    status: int
    detail: str
    code: str
    instance: str | None = None
    message: str | None = None
    file: str | None = None
    line: int | None = None
    byte: int | None = None


def problem_responses(*statuses: int) -> dict[int | str, dict[str, Any]]:
    return {s: {"model": Problem, "content": {"application/problem+json": {}}} for s in statuses}


UPLOAD_BODY: dict[str, Any] = {
    "requestBody": {
        "required": True,
        "content": {
            "multipart/form-data": {
                "schema": {
                    "type": "object",
                    "required": ["file"],
                    "properties": {
                        "file": {
                            "type": "array",
                            "items": {"type": "string", "format": "binary"},
                            "description": "log files of one run, or .zip / .tar.gz archives of "
                            "run directories (repeat the field for several)",
                        },
                    },
                },
            },
        },
    },
}
