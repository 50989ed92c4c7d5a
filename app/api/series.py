"""/v1/runs/{id}/series: a stored run's points as JSON arrays or CSV (streamed in slices)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Annotated, Literal

import numpy as np
import pandas as pd
from fastapi import APIRouter, Query
from fastapi.responses import JSONResponse, StreamingResponse
from lossforensics.api.deps import ProjectDep, StoreDep
from lossforensics.api.schemas import SeriesOut, problem_responses
from lossforensics.classifiers.errors import NotFoundError
from lossforensics.classifiers.frame import COLUMNS

router = APIRouter(prefix="/runs", tags=["runs"])

CSV_COLUMNS = list(COLUMNS)  # the normalised frame, so a client rebuilds it as is
CSV_SLICE = 100_000


def select_series(frame: pd.DataFrame, metrics: list[str] | None, role: str | None) -> pd.DataFrame:
    """Rows of the requested metrics / role, in source order; NotFoundError names what exists."""
    out = frame
    if metrics:
        known = set(frame["metric"].astype(str))
        missing = [m for m in metrics if m not in known]
        if missing:
            raise NotFoundError(
                f"no metric {missing[0]!r} in this run; it has: {', '.join(sorted(known)[:50])}"
            )
        out = out[out["metric"].isin(metrics)]
    if role:
        out = out[out["role"].astype(str) == role]
    return out.sort_values("seq", kind="stable")


def finite_or_label(values: np.ndarray) -> list[float | str]:
    """JSON has no NaN or infinity: non-finite values become 'nan', 'inf' or '-inf'."""
    out = values.astype(object)
    out[np.isnan(values)] = "nan"
    out[values == np.inf] = "inf"
    out[values == -np.inf] = "-inf"
    return out.tolist()


def series_json(run_id: str, rows: pd.DataFrame) -> dict:
    series = []
    for metric, part in rows.groupby(rows["metric"].astype(str), sort=True):
        wall = part["wall_time"].to_numpy()
        series.append(
            {
                "metric": metric,
                "role": str(part["role"].iloc[0]),
                "points": len(part),
                "step": part["step"].to_numpy().tolist(),
                "value": finite_or_label(part["value"].to_numpy()),
                "wall_time": np.where(np.isfinite(wall), wall, None).tolist(),
            }
        )
    return {"run_id": run_id, "series": series}


def series_csv(rows: pd.DataFrame) -> Iterator[str]:
    for start in range(0, max(len(rows), 1), CSV_SLICE):
        yield rows.iloc[start : start + CSV_SLICE].to_csv(
            columns=CSV_COLUMNS, index=False, header=start == 0, na_rep="nan"
        )


@router.get(
    "/{run_id}/series",
    response_model=SeriesOut,
    responses={
        **problem_responses(401, 404, 422),
        200: {"content": {"application/json": {}, "text/csv": {}}},
    },
    summary="A run's series: every metric, or those named (JSON or CSV)",
)
def get_series(
    run_id: str,
    store: StoreDep,
    project: ProjectDep,
    metric: Annotated[list[str] | None, Query(description="repeatable; default all")] = None,
    role: Annotated[str | None, Query(max_length=32)] = None,
    format: Annotated[Literal["json", "csv"], Query()] = "json",
) -> JSONResponse | StreamingResponse:
    rows = select_series(store.frame(project, run_id), metric, role)
    if format == "csv":
        return StreamingResponse(
            series_csv(rows),
            media_type="text/csv",
            headers={"Content-Disposition": f'attachment; filename="{run_id}.csv"'},
        )
    return JSONResponse(series_json(run_id, rows))
