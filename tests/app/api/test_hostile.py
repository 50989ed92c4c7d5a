"""Issue #14's attacks replayed against a real `lossforensics serve` on loopback.

Each test asserts the answer, that it came within a generous time (to catch hangs, not to time
speed), that the server's process tree (parsing workers included) stayed under a memory limit
while it was handled, and that /healthz still answers. The inputs are generated here
(tests/app/api/hostile_inputs.py).
"""

from __future__ import annotations

import contextlib
import subprocess
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest

from tests.app.api import hostile_inputs as h
from tests.app.api._server import Server
from tests.app.api.calls import assert_problem, upload

psutil = pytest.importorskip("psutil")

TREE_LIMIT = 1536 * 1024 * 1024  # bytes resident, server and workers together
ANSWER_WITHIN = 120.0  # seconds: a hang, not a slow machine (2 shared cores)

ENV = {
    "LOSSFORENSICS_WORKER_PROCESSES": "2",
    "LOSSFORENSICS_WORKER_MEMORY_BYTES": str(512 * 1024 * 1024),
    "LOSSFORENSICS_MAX_UNPACKED_BYTES": "3000000",
}


def tree_rss(pid: int) -> int:
    try:
        root = psutil.Process(pid)
        procs = [root, *root.children(recursive=True)]
    except psutil.NoSuchProcess:
        return 0
    total = 0
    for p in procs:
        with contextlib.suppress(psutil.NoSuchProcess):
            total += p.memory_info().rss
    return total


class PeakMemory:
    """Samples the server's process tree every 50 ms while the block runs."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.peak = 0
        self._stop = threading.Event()

    def __enter__(self) -> PeakMemory:
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()
        return self

    def _run(self) -> None:
        while not self._stop.is_set():
            self.peak = max(self.peak, tree_rss(self.pid))
            self._stop.wait(0.05)

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()
        self.peak = max(self.peak, tree_rss(self.pid))


@pytest.fixture(scope="module")
def srv(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    server = Server(tmp_path_factory.mktemp("hostile") / "data", env=ENV).start(timeout=180)
    yield server
    server.stop()


@pytest.fixture()
def c(srv: Server) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=srv.url, timeout=ANSWER_WITHIN + 60) as client:
        yield client


@contextlib.contextmanager
def attack(srv: Server, c: httpx.Client) -> Iterator[PeakMemory]:
    """Time, peak memory and a /healthz after: the checks every attack shares."""
    start = time.monotonic()
    with PeakMemory(srv.proc.pid) as mem:
        yield mem
    took = time.monotonic() - start
    assert took < ANSWER_WITHIN, f"answered after {took:.0f} s"
    assert mem.peak < TREE_LIMIT, f"server tree peaked at {mem.peak / 2**20:.0f} MiB"
    health = c.get("/healthz", timeout=30)
    assert health.status_code == 200, health.text


def test_recursive_view_mlflow_db_is_refused(srv, c, tmp_path):
    path = h.recursive_view_db(tmp_path / "mlflow.db")
    with attack(srv, c):
        resp = upload(c, path)
    assert resp.status_code in (415, 422), resp.text  # refused by the reader, with its reason
    assert "is a view" in resp.json()["detail"]


def test_wide_csv_is_refused_while_reading(srv, c, tmp_path):
    path = h.wide_csv(tmp_path / "wide.csv", columns=1000, rows=20_000)  # 20M cells, ~40 MB
    with attack(srv, c):
        body = assert_problem(upload(c, path), 413, "too_large")
    assert "limit" in body["detail"]


def test_npz_bomb_is_refused_from_its_header(srv, c, tmp_path):
    """400 MB of zeros compressed into an .npz of ~400 KB: refused by the points limit from the
    array's header, before any of it is decompressed into memory."""
    path = h.npz_bomb(tmp_path / "history.npz")
    assert path.stat().st_size < 2_000_000
    with attack(srv, c):
        body = assert_problem(upload(c, path), 413, "too_large")
    assert "50000000 values" in body["detail"]


def test_alias_bomb_meta_yaml_does_not_expand(srv, c, tmp_path):
    path = h.alias_bomb_meta_yaml(tmp_path / "mlruns.zip")
    assert path.stat().st_size < 2000
    with attack(srv, c):
        resp = upload(c, path)
    assert resp.status_code == 201, resp.text
    run = resp.json()["runs"][0]
    assert run["name"] == "abc123"  # the folder's id: the aliased name was refused
    listing = c.get("/v1/runs", params={"limit": 5}).json()
    assert all(len(r["name"]) < 1024 for r in listing["items"])


def test_many_archives_share_one_unpack_budget(srv, c, tmp_path):
    paths = h.many_archives(tmp_path / "parts", count=10, member_bytes=500_000)
    with attack(srv, c):
        body = assert_problem(upload(c, *paths), 413, "too_large")
    assert "all archives" in body["detail"]


def test_wandb_export_of_700_runs_is_read_whole(srv, c, tmp_path):
    path = h.wandb_export(tmp_path / "wandb_export.csv", runs=700)
    assert len(path.read_text().splitlines()[0].encode()) > 90_000
    with attack(srv, c):
        resp = upload(c, path, url="/v1/diagnose")
    assert resp.status_code == 200, resp.text
    runs = {d["run"] for d in resp.json()["diagnoses"]}
    assert len(runs) == 700


def test_foreign_host_is_refused(srv, c):
    with attack(srv, c):
        body = assert_problem(
            c.get("/v1/runs", headers={"host": "rebind.example"}), 403, "forbidden"
        )
    assert "rebind.example" in body["detail"]
    assert c.get("/v1/runs", headers={"host": f"localhost:{srv.port}"}).status_code == 200


def test_cross_site_post_and_delete_are_refused(srv, c, tmp_path):
    path = h.jsonl_run(tmp_path / "csrf.jsonl", 200)
    evil = {"origin": "http://evil.example", "authorization": "Bearer whatever"}
    with attack(srv, c):
        assert_problem(upload(c, path, headers=evil), 403, "forbidden")
        created = upload(c, path, headers={"origin": srv.url})  # same origin: the web UI
        assert created.status_code == 201, created.text
        run_id = created.json()["runs"][0]["id"]
        assert_problem(c.delete(f"/v1/runs/{run_id}", headers=evil), 403, "forbidden")
        fetch = {"sec-fetch-site": "cross-site"}
        assert_problem(c.delete(f"/v1/runs/{run_id}", headers=fetch), 403, "forbidden")
    assert c.get(f"/v1/runs/{run_id}").status_code == 200


def test_file_name_over_255_bytes_is_shortened(srv, c, tmp_path):
    path = h.jsonl_run(tmp_path / "x.jsonl", 200)
    long_name = "é" * 200 + ".jsonl"  # 406 bytes of UTF-8
    with attack(srv, c):
        resp = upload(c, path, names=[long_name], data={"name": "ü" * 300})
    assert resp.status_code == 201, resp.text
    run = resp.json()["runs"][0]
    assert all(len(f.encode()) <= 255 for f in run["files"])


def test_delete_racing_reads_is_never_a_500(srv, c, tmp_path):
    path = h.jsonl_run(tmp_path / "race.jsonl", 2000)
    statuses: list[int] = []
    with attack(srv, c):
        for _ in range(3):
            run_id = upload(c, path).json()["runs"][0]["id"]

            def read(i: int, run_id: str = run_id) -> int:
                url = f"/v1/runs/{run_id}/" + ("series" if i % 2 else "plot.png")
                return c.get(url).status_code

            with ThreadPoolExecutor(6) as ex:
                reads = [ex.submit(read, i) for i in range(12)]
                time.sleep(0.05)
                statuses.append(c.delete(f"/v1/runs/{run_id}").status_code)
                statuses += [f.result() for f in reads]
    assert 500 not in statuses, statuses
    assert set(statuses) <= {200, 204, 404, 409}, statuses


@pytest.fixture()
def small_disk(tmp_path: Path) -> Iterator[Path]:
    mount = tmp_path / "small"
    mount.mkdir()
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=6m", "tmpfs", str(mount)], capture_output=True
    )
    if done.returncode != 0:
        pytest.skip(f"cannot mount a small tmpfs here: {done.stderr.decode()[:200]}")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)


def test_full_disk_is_507_and_leaves_nothing(small_disk, tmp_path):
    server = Server(small_disk / "data", env={**ENV, "LOSSFORENSICS_WORKER_PROCESSES": "1"})
    server.start(timeout=180)
    try:
        with httpx.Client(base_url=server.url, timeout=ANSWER_WITHIN) as client:
            big = h.jsonl_run(tmp_path / "big.jsonl", 300_000)  # ~10 MB: more than the disk
            with attack(server, client):
                body = assert_problem(upload(client, big), 507, "storage_full")
            assert "no space left" in body["detail"]
            uploads = small_disk / "data" / "uploads"
            assert not uploads.exists() or not any(uploads.iterdir())
            health = client.get("/healthz").json()
            assert health["free_bytes"] > 0
            small = h.jsonl_run(tmp_path / "small.jsonl", 500)
            assert upload(client, small).status_code == 201  # space is back: uploads work
    finally:
        server.stop()


def test_two_wide_csvs_at_once_stay_under_the_bound_with_default_settings(tmp_path):
    """The memory bound holds by default (docs/security.md, "Memory"): two hostile uploads at
    once, each on its own worker, under the settings a user gets without configuring any."""
    server = Server(tmp_path / "data").start(timeout=180)
    try:
        paths = [h.wide_csv(tmp_path / f"wide{i}.csv", columns=1000, rows=20_000) for i in (0, 1)]
        with httpx.Client(base_url=server.url, timeout=ANSWER_WITHIN + 60) as client:
            with attack(server, client) as mem, ThreadPoolExecutor(2) as ex:
                answers = list(ex.map(lambda p: upload(client, p), paths))
            for resp in answers:
                body = assert_problem(resp, 413, "too_large")
                # refused by a reader's limit while reading (points, then cells), not by a kill
                assert "points" in body["detail"] or "cells" in body["detail"], body
            assert mem.peak < TREE_LIMIT
    finally:
        server.stop()
