"""Live runs on a real server: create empty by name, append batches (JSON and NDJSON) with a
per-batch Idempotency-Key, 422 on bad points, the diagnosis follows; the client's append and
stream; the OpenAPI lists the endpoint."""

from __future__ import annotations

import json
import math
from pathlib import Path

import httpx
from lossforensics.classifiers.diagnose import diagnose
from lossforensics.client import Client

from tests.app.api._server import Server


def _batch(start: int, stop: int, nan_from: int | None = None) -> list[dict]:
    rows = []
    for s in range(start, stop):
        bad = nan_from is not None and s >= nan_from
        loss = "NaN" if bad else 2 * math.exp(-s / 40) + 0.3
        rows += [
            {"metric": "loss", "step": s, "value": loss},
            {"metric": "lr", "step": s, "value": 1e-3},
        ]
    return rows


def test_live_run_grows_by_batches(client: httpx.Client) -> None:
    created = client.post("/v1/runs/live", json={"name": "live-1"})
    assert created.status_code == 201, created.text
    run_id = created.json()["id"]
    assert created.json()["verdict"] == "inconclusive"
    first = client.post(
        f"/v1/runs/{run_id}/points", json=_batch(0, 100), headers={"Idempotency-Key": "b1"}
    )
    assert first.status_code == 200, first.text
    assert first.json()["added"] == 200 and first.json()["points"] == 200
    again = client.post(
        f"/v1/runs/{run_id}/points", json=_batch(0, 100), headers={"Idempotency-Key": "b1"}
    )
    assert again.json() == first.json()  # a retried batch adds nothing
    ndjson = "\n".join(json.dumps(r) for r in _batch(100, 120, nan_from=110))
    second = client.post(
        f"/v1/runs/{run_id}/points",
        content=ndjson,
        headers={"Content-Type": "application/x-ndjson", "Idempotency-Key": "b2"},
    )
    assert second.status_code == 200, second.text
    body = second.json()
    assert body["points"] == 240 and "nan" in [f["label"] for f in body["new"]]
    stored = client.get(f"/v1/runs/{run_id}").json()
    series = client.get(f"/v1/runs/{run_id}/series")
    assert stored["diagnosis"]["findings"] == body["run"]["diagnosis"]["findings"]
    assert series.status_code == 200


def test_bad_points_are_422(client: httpx.Client) -> None:
    run_id = client.post("/v1/runs/live", json={"name": "live-bad"}).json()["id"]
    for bad in (
        [{"metric": "loss", "step": 1, "value": "two"}],
        [{"metric": "loss", "step": "x", "value": 1.0}],
        [{"metric": "", "step": 1, "value": 1.0}],
        {"not": "points"},
        [{"metric": "loss", "step": 1, "value": 1.0}] * 100_001,
    ):
        resp = client.post(f"/v1/runs/{run_id}/points", json=bad)
        assert resp.status_code == 422, resp.text
        assert resp.json()["code"] == "invalid_frame"
    assert client.post("/v1/runs/nope/points", json=[]).status_code == 404


def test_openapi_lists_the_append_endpoint(client: httpx.Client) -> None:
    paths = client.get("/openapi.json").json()["paths"]
    assert "post" in paths["/v1/runs/{run_id}/points"] and "post" in paths["/v1/runs/live"]


def test_client_append_and_stream(server: Server) -> None:
    with Client(server.url) as c:
        run = c.create_live_run("live-client")
        c.append(run.id, _batch(0, 60))
        answer = c.append(run.id, [{"metric": "loss", "step": 60, "value": float("nan")}])
        assert "nan" in [f["label"] for f in answer["new"]]
        got = next(c.stream(run.id, interval=0.1, timeout=10))
        assert got.verdict == "nan"
        full = diagnose(c.series(run.id))
        assert [f.label for f in got.findings] == [f.label for f in full.findings]


def test_append_updates_the_stored_points_and_last_step(client: httpx.Client) -> None:
    run_id = client.post("/v1/runs/live", json={"name": "live-count"}).json()["id"]
    assert client.get(f"/v1/runs/{run_id}").json()["points"] == 0
    client.post(f"/v1/runs/{run_id}/points", json=_batch(0, 50))
    client.post(f"/v1/runs/{run_id}/points", json=_batch(50, 80))
    stored = client.get(f"/v1/runs/{run_id}").json()
    assert stored["points"] == 160 and stored["last_step"] == 79
    listed = client.get("/v1/runs", params={"name": "live-count"}).json()
    (row,) = [r for r in listed["items"] if r["id"] == run_id]
    assert row["points"] == 160 and row["last_step"] == 79


def test_a_batch_key_is_kept_by_the_store_across_restarts_and_workers(tmp_path: Path) -> None:
    """Two server processes on one data dir stand for two workers (and a restart): a key
    answered by one is replayed by the other, a batch appended through one is seen by the
    other, another body under a used key is 409."""
    one, two = Server(tmp_path / "data").start(), Server(tmp_path / "data").start()
    try:
        with httpx.Client(base_url=one.url, timeout=60) as a:
            with httpx.Client(base_url=two.url, timeout=60) as b:
                run_id = a.post("/v1/runs/live", json={"name": "shared"}).json()["id"]
                url = f"/v1/runs/{run_id}/points"
                first = a.post(url, json=_batch(0, 40), headers={"Idempotency-Key": "k1"})
                assert first.status_code == 200 and first.headers["Idempotent-Replayed"] == "false"
                again = b.post(url, json=_batch(0, 40), headers={"Idempotency-Key": "k1"})
                assert again.status_code == 200 and again.headers["Idempotent-Replayed"] == "true"
                assert again.json() == first.json()
                other = b.post(url, json=_batch(40, 50), headers={"Idempotency-Key": "k1"})
                assert other.status_code == 409 and other.json()["code"] == "conflict"
                grown = b.post(url, json=_batch(40, 60), headers={"Idempotency-Key": "k2"})
                assert grown.json()["points"] == 120  # b rebuilt the run from the store
                last = a.post(url, json=_batch(60, 70), headers={"Idempotency-Key": "k3"})
                assert last.json()["points"] == 140  # a saw that b had appended
                assert b.get(f"/v1/runs/{run_id}").json()["points"] == 140
    finally:
        one.stop()
        two.stop()
    three = Server(tmp_path / "data").start()  # a restart
    try:
        with httpx.Client(base_url=three.url, timeout=60) as c:
            replay = c.post(url, json=_batch(60, 70), headers={"Idempotency-Key": "k3"})
            assert replay.headers["Idempotent-Replayed"] == "true"
            assert replay.json() == last.json()
            assert c.get(f"/v1/runs/{run_id}").json()["points"] == 140
    finally:
        three.stop()
