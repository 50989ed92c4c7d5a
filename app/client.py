"""The notebook client for the lossforensics service (httpx; no FastAPI import).

    >>> from lossforensics.client import Client
    >>> c = Client("http://localhost:8000", token="...")
    >>> d = c.upload("runs/exp7")     # a Diagnosis; in Jupyter: a findings table + the plot
    >>> c.runs(label="overfit")       # a pandas DataFrame, one row per stored run
    >>> c.series(d.id)                # the normalised frame (classifiers.frame schema)
    >>> c.plot(d.id)                  # PNG bytes

`upload` takes a file, a folder (zipped on the fly), a DataFrame (the normalised long frame, or
wide as `pd.read_csv` gives it) or a dict of lists (sent as JSONL in long form, one point per
line; pandas is imported only for these). It returns one `Diagnosis` when the upload holds one
run and a `Diagnoses` list when it holds several (`as_list=True` always gives the list).

Errors come back as the project's typed errors: the service answers RFC 9457 problem+json with
the error `code`, and `classifiers.errors.error_from_dict` rebuilds the same class, with file,
line and byte. The transport is injectable (`transport=httpx.MockTransport(...)`) for tests.
"""

from __future__ import annotations

import io
import json
import math
import os
import time
import uuid
import zipfile
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import httpx
from lossforensics.classifiers.errors import InputError, LossForensicsError, error_from_dict
from lossforensics.display import Diagnoses, Diagnosis

if TYPE_CHECKING:
    from typing import TypeAlias

    import pandas as pd

    # what upload/diagnose take: a path, a DataFrame (long or wide) or a dict of lists
    Source: TypeAlias = str | os.PathLike[str] | pd.DataFrame | Mapping[str, Sequence[Any]]

DEFAULT_TIMEOUT = 120.0
PAGE = 500  # the service's largest page
_SKIP_IN_ZIP = {".git", "__pycache__", ".ipynb_checkpoints"}


class Client:
    """A session with one service. Use as a context manager, or call `close()`."""

    def __init__(
        self,
        base_url: str,
        *,
        token: str | None = None,
        timeout: float = DEFAULT_TIMEOUT,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        headers = {"Accept": "application/json"}
        if token:
            headers["Authorization"] = f"Bearer {token}"
        self._http = httpx.Client(
            base_url=base_url.rstrip("/"), headers=headers, timeout=timeout, transport=transport
        )

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._http.close()

    # ------------------------------------------------------------------ uploads

    def upload(
        self,
        source: Source,
        *,
        name: str | None = None,
        as_list: bool = False,
    ) -> Diagnosis | Diagnoses:
        """Store a run on the service and diagnose it: a log file, a folder, a DataFrame (the
        normalised long frame, or wide: a step index or column, one column per metric) or a
        dict of lists (`{"step": [...], "loss": [...], "val_loss": [...]}`); roles are
        inferred from the metric names."""
        files = [("file", _payload(source, name))]
        body = self._json("POST", "/v1/runs", files=files)
        return self._diagnoses(body, as_list)

    def diagnose(
        self,
        source: Source,
        *,
        name: str | None = None,
        as_list: bool = False,
    ) -> Diagnosis | Diagnoses:
        """One-shot: diagnose without storing (POST /v1/diagnose); no id, no stored plot. Takes
        what `upload` takes."""
        body = self._json("POST", "/v1/diagnose", files=[("file", _payload(source, name))])
        return self._diagnoses(body, as_list)

    def diagnose_text(
        self, text: str, *, name: str | None = None, store: bool = False, as_list: bool = False
    ) -> Diagnosis | Diagnoses:
        """Diagnose pasted console output (what a training script printed), sent as a
        `text/plain` body; `store=True` keeps it as a run (POST /v1/runs)."""
        body = self._json(
            "POST",
            "/v1/runs" if store else "/v1/diagnose",
            content=text.encode("utf-8"),
            headers={"content-type": "text/plain; charset=utf-8"},
            params={"name": name} if name else None,
        )
        return self._diagnoses(body, as_list)

    def rediagnose(self, run_id: str) -> Diagnosis:
        """Run the current classifiers again on a stored run."""
        return self._one(self._json("POST", f"/v1/runs/{run_id}/diagnose"))

    # ------------------------------------------------------------------ reads

    def runs(
        self,
        *,
        label: str | None = None,
        name: str | None = None,
        limit: int | None = None,
        offset: int = 0,
    ) -> pd.DataFrame:
        """Stored runs, newest first, one row each (id, name, verdict, labels, format, points,
        created_at, ...); `label` keeps runs carrying it, `name` one exact run name. Without a
        `limit`, every page is fetched."""
        rows: list[dict[str, Any]] = []
        while True:
            want = PAGE if limit is None else min(PAGE, limit - len(rows))
            params = {
                k: v
                for k, v in {
                    "label": label,
                    "name": name,
                    "limit": want,
                    "offset": offset + len(rows),
                }.items()
                if v is not None
            }
            page = self._json("GET", "/v1/runs", params=params)
            items = page.get("items", []) if isinstance(page, Mapping) else list(page)
            rows.extend(items)
            total = page.get("total", len(rows)) if isinstance(page, Mapping) else len(rows)
            done = not items or offset + len(rows) >= total
            if done or (limit is not None and len(rows) >= limit):
                break
        from lossforensics.client_frames import runs_frame

        return runs_frame(rows, RUN_COLUMNS)

    def diagnosis(self, run_id: str) -> Diagnosis:
        """The stored diagnosis of one run."""
        return self._one(self._json("GET", f"/v1/runs/{run_id}"))

    def series(self, run_id: str, *, metric: str | None = None) -> pd.DataFrame:
        """The run's normalised frame (run, metric, role, step, value, wall_time, seq), NaN and
        infinities kept."""
        params = {"format": "csv", **({"metric": metric} if metric else {})}
        resp = self._request("GET", f"/v1/runs/{run_id}/series", params=params)
        from lossforensics.client_frames import frame_from_csv

        return frame_from_csv(resp.content, run=run_id)

    def plot(self, run_id: str) -> bytes:
        """The annotated plot (PNG bytes)."""
        return self._request("GET", f"/v1/runs/{run_id}/plot.png").content

    def report(self, run_id: str) -> str:
        """The run's self-contained HTML report."""
        return self._request("GET", f"/v1/runs/{run_id}/report.html").text

    def delete(self, run_id: str) -> None:
        self._request("DELETE", f"/v1/runs/{run_id}")

    # ------------------------------------------------------------------ live runs

    def create_live_run(self, name: str) -> LiveRun:
        """An empty run to grow with `append` while it trains."""
        body = self._json("POST", "/v1/runs/live", json={"name": name})
        return LiveRun(str(body["id"]), str(body["name"]))

    def append(
        self, run_id: str, points: Any, *, idempotency_key: str | None = None
    ) -> dict[str, Any]:
        """Append points (dicts with metric, step, value[, wall_time], or a frame with those
        columns) to a live run; the answer has the run, `new` and `superseded` findings. One
        Idempotency-Key per batch (made here when not given) makes the one retry this does
        after a transport error safe."""
        if hasattr(points, "to_dict"):
            points = points[[c for c in _POINT_KEYS if c in points.columns]].to_dict("records")
        rows = [{k: _json_number(v) for k, v in p.items() if k in _POINT_KEYS} for p in points]
        headers = {"Idempotency-Key": idempotency_key or uuid.uuid4().hex}
        url = f"/v1/runs/{run_id}/points"
        try:
            return self._json("POST", url, json=rows, headers=headers)
        except LossForensicsError as exc:
            if "cannot reach" not in str(exc):
                raise
            return self._json("POST", url, json=rows, headers=headers)

    def stream(
        self, run_id: str, *, interval: float = 2.0, timeout: float | None = None
    ) -> Iterator[Diagnosis]:
        """A live run's diagnosis each time it changes (polling every `interval` seconds;
        stops after `timeout` seconds when given)."""
        seen = None
        start = time.monotonic()
        while timeout is None or time.monotonic() - start < timeout:
            body = self._json("GET", f"/v1/runs/{run_id}")
            stamp = (body.get("diagnosed_at"), body.get("points"), json.dumps(body["diagnosis"]))
            if stamp != seen:
                seen = stamp
                yield self._one(body)
            time.sleep(interval)

    # ------------------------------------------------------------------ plumbing

    def _request(self, method: str, url: str, **kwargs: Any) -> httpx.Response:
        try:
            resp = self._http.request(method, url, **kwargs)
        except httpx.TransportError as exc:
            raise LossForensicsError(f"cannot reach {self._http.base_url}: {exc}") from None
        if resp.is_error:
            raise _error_from_response(resp)
        return resp

    def _json(self, method: str, url: str, **kwargs: Any) -> Any:
        return self._request(method, url, **kwargs).json()

    def _one(self, body: Mapping[str, Any]) -> Diagnosis:
        return self._wrap(_diagnosis_dict(body))

    def _wrap(self, data: dict[str, Any]) -> Diagnosis:
        run_id = data.get("id")
        plot = (lambda d: self.plot(d.id)) if run_id else None
        return Diagnosis.from_dict(data, plot)

    def _diagnoses(self, body: Any, as_list: bool) -> Diagnosis | Diagnoses:
        out = Diagnoses(self._wrap(_diagnosis_dict(item)) for item in _run_items(body))
        if not out:
            raise LossForensicsError("the service returned no diagnosis")
        return out if as_list or len(out) != 1 else out[0]


# ---------------------------------------------------------------------- response shapes


def _run_items(body: Any) -> list[Mapping[str, Any]]:
    """The run entries of an upload/diagnose answer: {"runs": [...]}, a list, or one run."""
    if isinstance(body, list):
        return body
    if isinstance(body, Mapping):
        for key in ("runs", "diagnoses", "items"):
            if isinstance(body.get(key), list):
                return body[key]
        return [body]
    raise LossForensicsError(f"unexpected response from the service: {type(body).__name__}")


def _diagnosis_dict(item: Mapping[str, Any]) -> dict[str, Any]:
    """A run entry -> its Diagnosis JSON with the run's id on it."""
    inner = item.get("diagnosis") if isinstance(item.get("diagnosis"), Mapping) else None
    data = dict(inner if inner is not None else item)
    if "id" in item and item["id"] is not None:
        data["id"] = str(item["id"])
    return data


RUN_COLUMNS = (
    "id",
    "name",
    "verdict",
    "labels",
    "format",
    "points",
    "files",
    "project",
    "created_at",
    "diagnosed_at",
)


def _error_from_response(resp: httpx.Response) -> LossForensicsError:
    """problem+json -> the same typed error the service raised."""
    try:
        data = resp.json()
    except ValueError:
        data = None
    if isinstance(data, Mapping) and data.get("code"):
        return error_from_dict(dict(data))
    text = resp.text[:200] if resp.text else resp.reason_phrase
    return error_from_dict(
        {"code": _code_for_status(resp.status_code), "message": f"HTTP {resp.status_code}: {text}"}
    )


def _code_for_status(status: int) -> str:
    return {
        401: "unauthorized",
        403: "unauthorized",
        404: "not_found",
        413: "too_large",
        415: "unknown_format",
    }.get(status, "error")


# ---------------------------------------------------------------------- payloads


def _payload(source: Source, name: str | None) -> tuple[str, bytes, str]:
    """(filename, bytes, content type) for a file, a folder (zipped), or a DataFrame (long or
    wide) or dict of lists (sent as JSONL, see `client_frames.to_frame`)."""
    if not isinstance(source, str | os.PathLike):
        from lossforensics.client_frames import frame_to_jsonl, to_frame

        frame = to_frame(source, run=name or "frame")
        return (f"{name or 'frame'}.jsonl", frame_to_jsonl(frame), "application/x-ndjson")
    path = Path(source).expanduser()
    if path.is_dir():
        return (f"{name or path.resolve().name}.zip", zip_folder(path), "application/zip")
    if path.is_file():
        return (name or path.name, path.read_bytes(), "application/octet-stream")
    raise InputError("no such file or directory", file=str(path))


def zip_folder(folder: Path) -> bytes:
    """The folder as a zip in memory, paths relative to it, deterministic order, no links."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=6) as zf:
        for root, dirs, files in os.walk(folder):
            dirs[:] = sorted(
                d
                for d in dirs
                if d not in _SKIP_IN_ZIP and not os.path.islink(os.path.join(root, d))
            )
            for f in sorted(files):
                full = os.path.join(root, f)
                if os.path.islink(full) or not os.path.isfile(full):
                    continue
                zf.write(full, os.path.relpath(full, folder).replace(os.sep, "/"))
    return buf.getvalue()


_POINT_KEYS = ("metric", "step", "value", "wall_time")


@dataclass(frozen=True)
class LiveRun:
    """A live run created in a service: its id and name."""

    id: str
    name: str


def _json_number(value: Any) -> Any:
    """NaN and infinities as the strings the service reads (JSON has no literal for them)."""
    if isinstance(value, float) and not math.isfinite(value):
        return "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")
    return value.item() if hasattr(value, "item") else value
