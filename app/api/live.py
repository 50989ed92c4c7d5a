"""Live runs: a run created empty by name, then grown by batches of points while it trains.

    POST /v1/runs/live            {"name": "my-run"}            -> 201, the (empty) run
    POST /v1/runs/{id}/points     JSON [{"metric", "step", "value"[, "wall_time"]}, ...]
                                  (or {"points": [...]}), or NDJSON, one point a line
                                  Idempotency-Key: <one per batch>

Each batch is taken into the run's IncrementalDiagnosis (the one `watch` and the callbacks
use), stored as one Parquet part after the run's points (RunStore.append_points: the write costs
the batch, not the run; parts are merged now and then so reads stay fast) with the tick's
diagnosis, and the answer says which findings are new and which were superseded. The tick itself
judges the whole run, as `diagnose` does, so its diagnosis equals a full diagnosis of the stored
points. Retries are safe by the batch's `Idempotency-Key` (the store's keys table, as for
uploads: shared by every worker process and kept across restarts): the same key and body for the
run returns the first answer and adds nothing, the same key with another body is a 409 (a
resumed job that logs the same steps again is new evidence, so points are never de-duplicated by
(metric, step)). Values are numbers, or the strings NaN / Infinity / -Infinity (kept: they are
evidence); anything else, a batch over MAX_BATCH_POINTS points or a name over MAX_NAME
characters is refused with 422.

Each worker process keeps the IncrementalDiagnosis of the last MAX_LIVE_RUNS live runs it served
(least recently used dropped first), and rebuilds one from the store (its points, and its stored
diagnosis as the one the next tick is compared with) on a miss, after a restart, or when the
stored run has other points than it holds (another worker appended): the answer never depends
on which worker got the batch. The workers of one host take a run's batches one at a time (the
run's append lock, an flock); whatever the host, the store appends only over the points the
batch was judged with, under the run's row lock, so two workers appending to one run at once
never lose a batch: the later one reads the run again and re-applies its batch.
"""

from __future__ import annotations

import json
import math
import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from fastapi import APIRouter, Request, Response
from lossforensics.api.deps import IdempotencyDep, ProjectDep, StoreDep
from lossforensics.api.schemas import problem_responses
from lossforensics.classifiers.diagnosis import Diagnosis
from lossforensics.classifiers.errors import ConflictError
from lossforensics.classifiers.errors import InvalidFrameError as InvalidPoints
from lossforensics.classifiers.frame import empty_frame, make_frame
from lossforensics.classifiers.incremental import IncrementalDiagnosis
from lossforensics.store import RunStore
from lossforensics.store.idempotency import fingerprint
from lossforensics.store.records import NewRun
from lossforensics.store.runs import StaleSeriesError
from pydantic import BaseModel, Field
from starlette.concurrency import run_in_threadpool

router = APIRouter(prefix="/runs", tags=["live runs"])

MAX_BATCH_POINTS = 100_000
MAX_BODY_BYTES = 16 * 1024 * 1024
MAX_NAME = 200
LIVE_FORMAT = "live"  # a live run's format: the run page polls it while it grows
_GROW_TRIES = 5  # a try lost to another worker's append re-reads the run and tries again
_NON_FINITE = {"nan": math.nan, "infinity": math.inf, "inf": math.inf, "-infinity": -math.inf}
_NON_FINITE["-inf"] = -math.inf


class LiveRunIn(BaseModel):
    name: str = Field(min_length=1, max_length=MAX_NAME)


@dataclass
class _Live:
    inc: IncrementalDiagnosis
    next_seq: int  # the `seq` of the run's next point, as the store numbers them
    lock: threading.Lock = field(default_factory=threading.Lock)


MAX_LIVE_RUNS = 32  # live runs whose state a worker keeps in memory (a 1M-point run: ~50 MB)
_registry: OrderedDict[tuple[str, str], _Live] = OrderedDict()
_registry_lock = threading.Lock()


@router.post(
    "/live",
    status_code=201,
    responses=problem_responses(401, 422),
    summary="Create an empty live run by name, to be grown with POST /v1/runs/{id}/points",
)
def create_live_run(body: LiveRunIn, store: StoreDep, project: ProjectDep) -> dict:
    empty = IncrementalDiagnosis(body.name).tick().diagnosis  # inconclusive: no points yet
    new = NewRun(body.name, empty_frame(), empty, format=LIVE_FORMAT)
    (record,) = store.add(project, [new])
    return record.to_dict()


@router.post(
    "/{run_id}/points",
    responses=problem_responses(401, 404, 409, 422),
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
    response: Response,
    store: StoreDep,
    project: ProjectDep,
    idempotency: IdempotencyDep,
) -> dict:
    body = await request.body()
    if len(body) > MAX_BODY_BYTES:
        raise InvalidPoints(f"a batch is at most {MAX_BODY_BYTES} bytes")
    content_type = request.headers.get("content-type", "")
    rows = parse_points(body, content_type)

    async def append() -> tuple[int, dict]:
        return 200, await run_in_threadpool(_append, store, project, run_id, rows)

    if idempotency is None:
        return (await append())[1]
    sent = fingerprint("ndjson" if _ndjson(content_type) else "json", body)
    _, answer, replayed = await idempotency.once(sent, append)
    response.headers["Idempotent-Replayed"] = str(replayed).lower()
    return answer


def _append(store: RunStore, project: str, run_id: str, rows: list[dict]) -> dict[str, Any]:
    """Take the batch into the run and store it, holding the run's append lock; a state that is
    not the stored run's (another worker appended) is rebuilt from the store first, and a try
    lost to another host's append is redone the same way."""
    store.get(project, run_id)  # NotFoundError (404) before anything is made for the run
    with store.frames.append_lock(run_id):
        for attempt in range(_GROW_TRIES):
            live = _live(store, project, run_id)
            with live.lock:
                before = live.inc.points
                if store.get(project, run_id).points != before:  # another worker appended
                    _forget(project, run_id, live)
                    continue
                batch = _frame(live.inc.run, rows, live.next_seq)
                live.inc.add_frame(batch)
                tick = live.inc.tick()
                try:
                    record = store.append_points(
                        project, run_id, batch, tick.diagnosis, expect_points=before
                    )
                except BaseException as exc:
                    _forget(project, run_id, live)  # its points are not what is stored
                    if isinstance(exc, StaleSeriesError) and attempt < _GROW_TRIES - 1:
                        continue
                    raise
                live.next_seq += len(batch)
                return {
                    "run": record.to_dict(),
                    "added": len(batch),
                    "points": live.inc.points,
                    "new": [f.to_dict() for f in tick.new],
                    "superseded": [
                        {"finding": s.finding.to_dict(), "by": list(s.by)} for s in tick.superseded
                    ],
                }
    raise ConflictError(f"run {run_id!r} is being appended to by other requests; retry")


def _live(store: RunStore, project: str, run_id: str) -> _Live:
    """The worker's state of the run, rebuilt from the store when it has none."""
    key = (project, run_id)
    with _registry_lock:
        live = _registry.get(key)
        if live is not None:
            _registry.move_to_end(key)
    if live is None:
        live = _rebuild(store, project, run_id)
        with _registry_lock:
            live = _registry.setdefault(key, live)
            _registry.move_to_end(key)
            while len(_registry) > MAX_LIVE_RUNS:
                _registry.popitem(last=False)
    return live


def _rebuild(store: RunStore, project: str, run_id: str) -> _Live:
    """The run's state from what is stored: its points, and its stored diagnosis as the last
    tick's (so the next answer's new and superseded findings are the ones a worker that saw
    every batch would give)."""
    record, frame = store.snapshot(project, run_id)
    inc = IncrementalDiagnosis(record.name)
    inc.add_frame(frame)
    inc.diagnosis = Diagnosis.from_dict(record.diagnosis)
    next_seq = int(frame["seq"].max()) + 1 if len(frame) else 0
    return _Live(inc, next_seq)


def _forget(project: str, run_id: str, live: _Live) -> None:
    with _registry_lock:
        if _registry.get((project, run_id)) is live:
            del _registry[(project, run_id)]


def _ndjson(content_type: str) -> bool:
    return "ndjson" in content_type or "jsonl" in content_type


def parse_points(body: bytes, content_type: str) -> list[dict]:
    """The batch's points as dicts, checked; InvalidFrameError (422, `invalid_frame`) says
    what is wrong and at which point."""
    items: Any
    try:
        text = body.decode("utf-8")
        if _ndjson(content_type):
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


def _frame(run: str, rows: list[dict], first_seq: int) -> pd.DataFrame:
    """The batch as the rows the store appends: numbered after the run's points."""
    if not rows:
        return empty_frame()
    cols = pd.DataFrame(rows)
    return make_frame(
        run,
        cols["metric"].to_numpy(object),
        cols["step"].to_numpy("int64"),
        cols["value"].to_numpy("float64"),
        cols["wall_time"].to_numpy("float64"),
        seq=np.arange(first_seq, first_seq + len(rows), dtype=np.int64),
    )
