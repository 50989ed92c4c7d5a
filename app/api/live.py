"""Live runs: a run created empty by name, then grown by batches of points while it trains.

    POST /v1/runs/live            {"name": "my-run"}            -> 201, the (empty) run
    POST /v1/runs/{id}/points     JSON [{"metric", "step", "value"[, "wall_time"]}, ...]
                                  (or {"points": [...]}), or NDJSON, one point a line
                                  Idempotency-Key: <one per batch>

Each batch is taken into the run's IncrementalDiagnosis (the one `watch` and the callbacks
use), the run's series and diagnosis are stored again, and the answer says which findings are
new and which were superseded. Retries are safe by the batch's `Idempotency-Key`: a key seen
before for the run returns the first answer and adds nothing (a resumed job that logs the same
steps again is new evidence, so points are never de-duplicated by (metric, step)). Values are
numbers, or the strings NaN / Infinity / -Infinity (kept: they are evidence); anything else, a
batch over MAX_BATCH_POINTS points or a name over MAX_NAME characters is refused with 422.

The live state (the incremental diagnosis and the keys seen) is kept per worker process and
rebuilt from the stored series when a worker meets a run it has not seen.
"""

from __future__ import annotations

import json
import math
import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Annotated, Any

import pandas as pd
from fastapi import APIRouter, Header, Request
from lossforensics.api.deps import ProjectDep, StoreDep
from lossforensics.api.schemas import problem_responses
from lossforensics.classifiers.errors import InvalidFrameError as InvalidPoints
from lossforensics.classifiers.frame import empty_frame, make_frame
from lossforensics.classifiers.incremental import IncrementalDiagnosis
from lossforensics.store import RunStore
from lossforensics.store.records import NewRun
from pydantic import BaseModel, Field
from starlette.concurrency import run_in_threadpool

router = APIRouter(prefix="/runs", tags=["live runs"])

MAX_BATCH_POINTS = 100_000
MAX_BODY_BYTES = 16 * 1024 * 1024
MAX_NAME = 200
KEYS_KEPT = 1000  # idempotency keys remembered per run
_NON_FINITE = {"nan": math.nan, "infinity": math.inf, "inf": math.inf, "-infinity": -math.inf}
_NON_FINITE["-inf"] = -math.inf


class LiveRunIn(BaseModel):
    name: str = Field(min_length=1, max_length=MAX_NAME)


@dataclass
class _Live:
    inc: IncrementalDiagnosis
    keys: OrderedDict[str, dict[str, Any]] = field(default_factory=OrderedDict)
    lock: threading.Lock = field(default_factory=threading.Lock)


_registry: dict[tuple[str, str], _Live] = {}
_registry_lock = threading.Lock()


@router.post(
    "/live",
    status_code=201,
    responses=problem_responses(401, 422),
    summary="Create an empty live run by name, to be grown with POST /v1/runs/{id}/points",
)
def create_live_run(body: LiveRunIn, store: StoreDep, project: ProjectDep) -> dict:
    empty = IncrementalDiagnosis(body.name).tick().diagnosis  # inconclusive: no points yet
    new = NewRun(body.name, empty_frame(), empty)
    (record,) = store.add(project, [new])
    return record.to_dict()


@router.post(
    "/{run_id}/points",
    responses=problem_responses(401, 404, 422),
    summary="Append a batch of points to a live run and re-diagnose it incrementally",
    openapi_extra={
        "requestBody": {
            "required": True,
            "content": {
                "application/json": {"schema": {"type": "array", "items": {"type": "object"}}},
                "application/x-ndjson": {"schema": {"type": "string"}},
            },
        }
    },
)
async def append_points(
    run_id: str,
    request: Request,
    store: StoreDep,
    project: ProjectDep,
    idempotency_key: Annotated[str | None, Header(max_length=200)] = None,
) -> dict:
    body = await request.body()
    if len(body) > MAX_BODY_BYTES:
        raise InvalidPoints(f"a batch is at most {MAX_BODY_BYTES} bytes")
    rows = parse_points(body, request.headers.get("content-type", ""))
    return await run_in_threadpool(_append, store, project, run_id, rows, idempotency_key)


def _append(
    store: RunStore, project: str, run_id: str, rows: list[dict], key: str | None
) -> dict[str, Any]:
    live = _live(store, project, run_id)
    with live.lock:
        if key is not None and key in live.keys:
            return live.keys[key]
        live.inc.add_frame(_frame(live.inc.run, rows))
        tick = live.inc.tick()
        store.frames.write(run_id, live.inc.frame())
        record = store.replace_diagnosis(project, run_id, tick.diagnosis)
        answer = {
            "run": record.to_dict(),
            "added": tick.points,
            "points": live.inc.points,
            "new": [f.to_dict() for f in tick.new],
            "superseded": [
                {"finding": s.finding.to_dict(), "by": list(s.by)} for s in tick.superseded
            ],
        }
        if key is not None:
            live.keys[key] = answer
            while len(live.keys) > KEYS_KEPT:
                live.keys.popitem(last=False)
        return answer


def _live(store: RunStore, project: str, run_id: str) -> _Live:
    record = store.get(project, run_id)  # NotFoundError -> 404, and the project's scope
    with _registry_lock:
        live = _registry.get((project, run_id))
        if live is None:
            inc = IncrementalDiagnosis(record.name)
            inc.add_frame(store.frame(project, run_id))
            live = _registry[(project, run_id)] = _Live(inc)
    return live


def parse_points(body: bytes, content_type: str) -> list[dict]:
    """The batch's points as dicts, checked; InvalidFrameError (422, `invalid_frame`) says
    what is wrong and at which point."""
    items: Any
    try:
        text = body.decode("utf-8")
        if "ndjson" in content_type or "jsonl" in content_type:
            items = [json.loads(line) for line in text.splitlines() if line.strip()]
        else:
            items = json.loads(text)
            if isinstance(items, dict):
                items = items.get("points")
    except (UnicodeDecodeError, ValueError) as exc:
        raise InvalidPoints(f"the body is not JSON or NDJSON: {exc}") from None
    if not isinstance(items, list):
        raise InvalidPoints("expected a list of points (or {'points': [...]})")
    if len(items) > MAX_BATCH_POINTS:
        raise InvalidPoints(f"{len(items)} points in one batch; at most {MAX_BATCH_POINTS}")
    return [_point(i, item) for i, item in enumerate(items)]


def _point(i: int, item: Any) -> dict:
    if not isinstance(item, dict):
        raise InvalidPoints(f"point {i}: expected an object with metric, step and value")
    metric, step = item.get("metric"), item.get("step")
    if not isinstance(metric, str) or not 0 < len(metric) <= MAX_NAME:
        raise InvalidPoints(f"point {i}: 'metric' must be a name of 1 to {MAX_NAME} characters")
    if isinstance(step, bool) or not isinstance(step, int) or abs(step) >= 2**62:
        raise InvalidPoints(f"point {i}: 'step' must be an integer")
    return {
        "metric": metric,
        "step": step,
        "value": _number(i, "value", item.get("value")),
        "wall_time": _number(i, "wall_time", item.get("wall_time", math.nan)),
    }


def _number(i: int, key: str, value: Any) -> float:
    if isinstance(value, str) and value.strip().lower() in _NON_FINITE:
        return _NON_FINITE[value.strip().lower()]
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise InvalidPoints(f"point {i}: {key!r} must be a number (or NaN / Infinity): {value!r}")
    return float(value)


def _frame(run: str, rows: list[dict]) -> pd.DataFrame:
    if not rows:
        return empty_frame()
    cols = pd.DataFrame(rows)
    return make_frame(
        run,
        cols["metric"].to_numpy(object),
        cols["step"].to_numpy("int64"),
        cols["value"].to_numpy("float64"),
        cols["wall_time"].to_numpy("float64"),
    )
