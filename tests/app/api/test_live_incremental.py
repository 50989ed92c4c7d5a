"""Live runs stored as appended parts, on a real server: after every batch the stored diagnosis
is a full diagnosis of the stored points; a restarted service (a new process over the same
data dir) continues a run exactly as one that saw every batch; two workers appending to one run
at once lose nothing; a worker keeps at most MAX_LIVE_RUNS runs in memory and rebuilds the
others alike; the series view follows the growing run; the same on PostgreSQL."""

from __future__ import annotations

import json
import math
import threading
from collections import OrderedDict
from pathlib import Path

import httpx
import pytest
from lossforensics.api import live
from lossforensics.classifiers.diagnose import diagnose
from lossforensics.classifiers.frame import empty_frame
from lossforensics.classifiers.incremental import IncrementalDiagnosis
from lossforensics.client import Client
from lossforensics.settings import ANONYMOUS_PROJECT
from lossforensics.store import NewRun, RunStore

from tests.app.api._server import Server
from tests.app.store.pg import pg_schema_url


def _loss(step: int) -> float:
    return 2 * math.exp(-step / 60) + 0.3 + 0.01 * math.sin(step)


def _batch(start: int, stop: int, *, offset: float = 0.0, nan_at: int | None = None) -> list[dict]:
    rows = []
    for s in range(start, stop):
        value = "NaN" if s == nan_at else _loss(s) + offset
        rows += [
            {"metric": "train/loss", "step": s, "value": value},
            {"metric": "lr", "step": s, "value": 1e-3},
        ]
    return rows


# A job that runs, resumes from a checkpoint at step 200 (logging steps 200-260 again, a little
# higher), goes on, then meets a NaN: each batch is one POST.
BATCHES = [
    _batch(0, 120),
    _batch(120, 260),
    _batch(200, 260, offset=0.05),
    _batch(260, 330),
    _batch(330, 360, nan_at=350),
]


def _answers(url: str, run_id: str, batches: list[list[dict]], first: int = 0) -> list[dict]:
    """Each batch POSTed with its own key (`<run id>-<batch number>`)."""
    with httpx.Client(base_url=url, timeout=60) as c:
        out = []
        for i, rows in enumerate(batches, start=first):
            resp = c.post(
                f"/v1/runs/{run_id}/points", json=rows, headers={"Idempotency-Key": f"{run_id}-{i}"}
            )
            assert resp.status_code == 200, resp.text
            out.append(resp.json())
        return out


def _comparable(answer: dict) -> dict:
    """An answer without what differs between two runs (ids, times)."""
    diagnosis = answer["run"]["diagnosis"]
    return {
        "points": answer["points"],
        "added": answer["added"],
        "new": [f["label"] for f in answer["new"]],
        "superseded": [(s["finding"]["label"], s["by"]) for s in answer["superseded"]],
        "verdict": diagnosis["verdict"],
        "findings": [(f["label"], f["span"], f["confidence"]) for f in diagnosis["findings"]],
    }


def _full_findings(data_dir: Path, run_id: str) -> list[dict]:
    """A full diagnosis of the run's points as stored (read from the data dir beside the
    server, as a second process would)."""
    store = RunStore.open(data_dir)
    try:
        _, frame = store.snapshot(ANONYMOUS_PROJECT, run_id)
    finally:
        store.close()
    return diagnose(frame).to_dict()["findings"]


def test_each_batch_s_diagnosis_equals_a_full_diagnosis_of_the_stored_points(server: Server):
    with Client(server.url) as c:
        run_id = c.create_live_run("incremental-equals-full").id
    for i, rows in enumerate(BATCHES):
        (answer,) = _answers(server.url, run_id, [rows], first=i)
        assert answer["points"] == sum(len(b) for b in BATCHES[: i + 1])
        full = _full_findings(server.data_dir, run_id)
        assert answer["run"]["diagnosis"]["findings"] == full
    assert answer["run"]["verdict"] == "nan"
    with Client(server.url) as c:
        stored = c.series(run_id)
    assert len(stored) == answer["points"]
    resumed = stored[(stored["metric"] == "train/loss") & (stored["step"] == 230)]
    assert len(resumed) == 2  # the resumed job's repeated steps are kept


def test_a_restarted_service_continues_a_live_run_as_one_that_saw_every_batch(tmp_path: Path):
    one = Server(tmp_path / "one").start()
    try:
        with httpx.Client(base_url=one.url, timeout=60) as c:
            straight = c.post("/v1/runs/live", json={"name": "straight"}).json()["id"]
        expected = [_comparable(a) for a in _answers(one.url, straight, BATCHES)]
    finally:
        one.stop()
    data = tmp_path / "two"
    first = Server(data).start()
    try:
        with httpx.Client(base_url=first.url, timeout=60) as c:
            run_id = c.post("/v1/runs/live", json={"name": "restarted"}).json()["id"]
        got = _answers(first.url, run_id, BATCHES[:2])
    finally:
        first.stop()
    second = Server(data).start()  # a restart: nothing of the run in memory
    try:
        got += _answers(second.url, run_id, BATCHES[2:], first=2)
        with httpx.Client(base_url=second.url, timeout=60) as c:
            replay = c.post(
                f"/v1/runs/{run_id}/points",
                json=BATCHES[1],
                headers={"Idempotency-Key": f"{run_id}-1"},
            )
            assert replay.headers["Idempotent-Replayed"] == "true"  # kept across the restart
            assert replay.json() == got[1]
            assert c.get(f"/v1/runs/{run_id}").json()["points"] == expected[-1]["points"]
    finally:
        second.stop()
    assert [_comparable(a) for a in got] == expected


def test_the_series_view_follows_the_growing_run(client: httpx.Client):
    run_id = client.post("/v1/runs/live", json={"name": "polled"}).json()["id"]
    for i, rows in enumerate(BATCHES[:3]):
        client.post(f"/v1/runs/{run_id}/points", json=rows).raise_for_status()
        view = client.get(f"/v1/runs/{run_id}/series", params={"points": 5000}).json()
        total = sum(s["total_points"] for s in view["series"])
        assert total == sum(len(b) for b in BATCHES[: i + 1])


@pytest.mark.postgres
def test_live_runs_on_postgres(tmp_path: Path):
    with pg_schema_url() as url:
        srv = Server(tmp_path / "data", env={"LOSSFORENSICS_DATABASE_URL": url}).start()
        try:
            with Client(srv.url) as c:
                run_id = c.create_live_run("on-postgres").id
                answers = _answers(srv.url, run_id, BATCHES)
                assert answers[-1]["points"] == sum(len(b) for b in BATCHES)
                assert c.diagnosis(run_id).verdict == answers[-1]["run"]["verdict"] == "nan"
                assert len(c.series(run_id)) == answers[-1]["points"]
        finally:
            srv.stop()
        again = Server(tmp_path / "data", env={"LOSSFORENSICS_DATABASE_URL": url}).start()
        try:  # a restart over the same database continues the run
            more = _answers(again.url, run_id, [_batch(360, 380)], first=len(BATCHES))
            assert more[0]["points"] == answers[-1]["points"] + 40
        finally:
            again.stop()


def test_a_worker_keeps_at_most_max_live_runs_and_rebuilds_the_others_alike(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    """In one process: past MAX_LIVE_RUNS the least recently used run's state is dropped, and
    the next batch to it (rebuilt from the store) gets the answer a kept state would give."""
    monkeypatch.setattr(live, "MAX_LIVE_RUNS", 2)
    monkeypatch.setattr(live, "_registry", OrderedDict())
    store = RunStore.open(tmp_path / "data")
    try:
        empty = IncrementalDiagnosis("x").tick().diagnosis
        ids = [
            store.add("p", [NewRun(name, empty_frame(), empty, format="live")])[0].id
            for name in ("a", "b", "c")
        ]
        parsed = [live.parse_points(json.dumps(b).encode(), "application/json") for b in BATCHES]
        answers: dict[str, list[dict]] = {i: [] for i in ids}
        for rows in parsed:
            for run_id in ids:  # three runs through two slots: every batch is a miss
                answers[run_id].append(_comparable(live._append(store, "p", run_id, rows)))
                assert len(live._registry) <= 2
        assert answers[ids[0]] == answers[ids[1]] == answers[ids[2]]
        kept = {(p, r) for p, r in live._registry}
        assert kept == {("p", ids[1]), ("p", ids[2])}
    finally:
        store.close()
    monkeypatch.setattr(live, "MAX_LIVE_RUNS", 10)
    monkeypatch.setattr(live, "_registry", OrderedDict())
    warm = RunStore.open(tmp_path / "warm")
    try:
        run_id = warm.add("p", [NewRun("w", empty_frame(), empty, format="live")])[0].id
        kept_answers = [_comparable(live._append(warm, "p", run_id, rows)) for rows in parsed]
    finally:
        warm.close()
    assert kept_answers == answers[ids[0]]


def test_two_workers_appending_to_one_run_at_once_lose_no_batch(tmp_path: Path):
    """Two server processes over one data dir stand for two workers; batches to one run sent to
    both at once are all stored, each whole, and the stored diagnosis is a full one."""
    one, two = Server(tmp_path / "data").start(), Server(tmp_path / "data").start()
    try:
        with httpx.Client(base_url=one.url, timeout=60) as c:
            run_id = c.post("/v1/runs/live", json={"name": "contended"}).json()["id"]
        batches = [_batch(i * 20, i * 20 + 20) for i in range(12)]

        def send(url: str, mine: list[int]) -> None:
            with httpx.Client(base_url=url, timeout=120) as c:
                for i in mine:
                    resp = c.post(
                        f"/v1/runs/{run_id}/points",
                        json=batches[i],
                        headers={"Idempotency-Key": f"batch-{i}"},
                    )
                    assert resp.status_code == 200, resp.text

        threads = [
            threading.Thread(target=send, args=(one.url, list(range(0, 12, 2)))),
            threading.Thread(target=send, args=(two.url, list(range(1, 12, 2)))),
        ]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        with httpx.Client(base_url=two.url, timeout=60) as c:
            stored = c.get(f"/v1/runs/{run_id}").json()
    finally:
        one.stop()
        two.stop()
    assert stored["points"] == 12 * 40
    store = RunStore.open(tmp_path / "data")
    try:
        frame = store.frame(ANONYMOUS_PROJECT, run_id)
    finally:
        store.close()
    assert len(frame) == 480 and (frame["seq"].to_numpy() == range(480)).all()
    steps = frame["step"].to_numpy()[::40]  # each batch whole: 40 rows from a multiple of 20
    assert sorted(steps.tolist()) == list(range(0, 240, 20))
    assert stored["diagnosis"]["findings"] == _full_findings(tmp_path / "data", run_id)
