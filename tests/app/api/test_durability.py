"""Concurrency and crashes: 50 concurrent uploads all stored; a kill -9 during uploads leaves no
partial run and loses no run whose upload was answered 201."""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest

from tests.app.api._server import Server
from tests.app.api.calls import upload

# The same file each time: ask for a stored copy, not the run already stored (dedup).
COPY = {"duplicate": "true"}


@pytest.mark.slow
def test_50_concurrent_uploads_are_all_stored_and_listed(tmp_path, jsonl_file):
    srv = Server(tmp_path / "data").start()
    try:
        with httpx.Client(
            base_url=srv.url, timeout=120, limits=httpx.Limits(max_connections=50)
        ) as c:
            with ThreadPoolExecutor(50) as pool:
                answers = list(pool.map(lambda _: upload(c, jsonl_file, params=COPY), range(50)))
            assert [a.status_code for a in answers] == [201] * 50
            ids = {a.json()["runs"][0]["id"] for a in answers}
            listed = c.get("/v1/runs", params={"limit": 500}).json()
            assert listed["total"] == 50 and {r["id"] for r in listed["items"]} == ids
    finally:
        srv.stop()


@pytest.mark.slow
def test_kill_9_during_uploads_leaves_whole_runs_only(tmp_path, jsonl_file):
    data = tmp_path / "data"
    srv = Server(data).start()
    confirmed: list[str] = []
    stop = threading.Event()

    def uploader() -> None:
        with httpx.Client(base_url=srv.url, timeout=30) as c:
            while not stop.is_set():
                try:
                    resp = upload(c, jsonl_file, params=COPY)
                except httpx.HTTPError:
                    return
                if resp.status_code == 201:
                    confirmed.append(resp.json()["runs"][0]["id"])

    threads = [threading.Thread(target=uploader) for _ in range(4)]
    for t in threads:
        t.start()
    deadline = time.monotonic() + 30
    while len(confirmed) < 5 and time.monotonic() < deadline:
        time.sleep(0.05)
    srv.kill()  # SIGKILL mid-flight: some uploads are half-received, half-written
    stop.set()
    for t in threads:
        t.join()
    assert len(confirmed) >= 5

    srv.start()
    try:
        with httpx.Client(base_url=srv.url, timeout=60) as c:
            listed = c.get("/v1/runs", params={"limit": 500}).json()["items"]
            ids = {r["id"] for r in listed}
            assert set(confirmed) <= ids  # no answered upload lost
            for run_id in ids:  # and every listed run is whole
                assert c.get(f"/v1/runs/{run_id}/series").status_code == 200
        frames = {p.stem for p in (data / "frames").glob("*.parquet")}
        assert frames == ids  # orphans from the killed writes were removed at start
        assert not list((data / "frames").glob("*.tmp"))
    finally:
        srv.stop()
