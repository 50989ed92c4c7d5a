"""/v1/runs/{id}/series: a stored run's points as JSON arrays, CSV (streamed in slices) or
Parquet; with `points=N` (and `start`/`end` steps) a chart's view of at most N points a metric,
min/max per bucket so spikes and NaN/inf survive (app/api/series_view.py)."""

from __future__ import annotations

import io
from collections.abc import Iterator
from typing import Annotated, Literal

import numpy as np
import pandas as pd
from fastapi import APIRouter, Query, Response
from fastapi.responses import JSONResponse, StreamingResponse
from lossforensics.api.deps import ProjectDep, StoreDep
from lossforensics.api.schemas import SeriesOut, problem_responses
from lossforensics.api.series_view import ViewCache, view_indices
from lossforensics.classifiers.errors import NotFoundError
from lossforensics.classifiers.frame import COLUMNS
from lossforensics.store import RunStore

router = APIRouter(prefix="/runs", tags=["runs"])

CSV_COLUMNS = list(COLUMNS)  # the normalised frame, so a client rebuilds it as is
CSV_SLICE = 100_000
VIEWS = ViewCache()


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


def wall_or_none(wall: np.ndarray) -> list[float | None]:
    """Unknown wall times (NaN) as JSON null."""
    out = wall.astype(object)
    out[~np.isfinite(wall)] = None
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
                "wall_time": wall_or_none(wall),
            }
        )
    return {"run_id": run_id, "series": series}


def series_view(
    store: RunStore,
    project: str,
    run_id: str,
    metrics: list[str] | None,
    role: str | None,
    points: int,
    start: int | None,
    end: int | None,
) -> dict:
    """At most `points` points a metric inside [start, end], from the cached arrays."""
    record = store.get(project, run_id)  # 404 for another project's run
    # a live run grows by parts beside its file, which keeps its mtime: the count is in the key
    key = f"{run_id}:{record.points}"
    view = VIEWS.get(key, store.frames.path(run_id), lambda: store.frame(project, run_id))
    if metrics:
        missing = [m for m in metrics if m not in view]
        if missing:
            known = ", ".join(sorted(view)[:50])
            raise NotFoundError(f"no metric {missing[0]!r} in this run; it has: {known}")
    series = []
    for name in sorted(metrics or view):
        m, pyramid = view[name]
        if role and m.role != role:
            continue
        keep, total = view_indices(m, pyramid, start, end, points)
        wall = m.wall_time[keep]
        series.append(
            {
                "metric": name,
                "role": m.role,
                "points": len(keep),
                "total_points": total,
                "step": m.step[keep].tolist(),
                "value": finite_or_label(m.value[keep]),
                "wall_time": wall_or_none(wall),
            }
        )
    return {"run_id": run_id, "points": points, "start": start, "end": end, "series": series}


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
        200: {
            "content": {
                "application/json": {},
                "text/csv": {},
                "application/vnd.apache.parquet": {},
            }
        },
    },
    summary="A run's series: every metric, or those named (JSON, CSV or Parquet); "
    "`points=N` for a chart's downsampled view",
)
def get_series(
    run_id: str,
    store: StoreDep,
    project: ProjectDep,
    metric: Annotated[list[str] | None, Query(description="repeatable; default all")] = None,
    role: Annotated[str | None, Query(max_length=32)] = None,
    format: Annotated[Literal["json", "csv", "parquet"], Query()] = "json",
    points: Annotated[
        int | None, Query(ge=3, le=100_000, description="at most this many points a metric")
    ] = None,
    start: Annotated[int | None, Query(description="first step (with points)")] = None,
    end: Annotated[int | None, Query(description="last step (with points)")] = None,
) -> Response:
    if points is not None and format == "json":
        return JSONResponse(series_view(store, project, run_id, metric, role, points, start, end))
    rows = select_series(store.frame(project, run_id), metric, role)
    if format == "parquet":
        buf = io.BytesIO()
        rows.to_parquet(buf, index=False, compression="zstd")
        return Response(
            buf.getvalue(),
            media_type="application/vnd.apache.parquet",
            headers={"Content-Disposition": f'attachment; filename="{run_id}.parquet"'},
        )
    if format == "csv":
        return StreamingResponse(
            series_csv(rows),
            media_type="text/csv",
            headers={"Content-Disposition": f'attachment; filename="{run_id}.csv"'},
        )
    return JSONResponse(series_json(run_id, rows))
