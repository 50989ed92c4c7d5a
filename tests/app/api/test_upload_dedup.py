"""The same content uploaded again is the stored run, per project, with the same answer shape;
two identical uploads at the same moment store one run and neither fails."""

from __future__ import annotations

import threading

import httpx
import pytest
from lossforensics.api.runs import store_new
from lossforensics.store import RunStore
from lossforensics.store.pipeline import diagnose_result, ingest

from tests.app.api import logs


@pytest.fixture()
def diagnosed(tmp_path):
    path = logs.write_jsonl(tmp_path / "race-run.jsonl", n=120)
    return diagnose_result(ingest(path), max_points=10**6)


def test_losing_the_race_answers_with_the_winners_run(tmp_path, diagnosed, monkeypatch):
    store = RunStore.open(tmp_path / "data")
    [(winner, new)] = store_new(store, "p", diagnosed, duplicate=False)
    assert new
    # the loser looked before the winner wrote: its first look finds nothing
    real = store.find_origin
    looks = iter([None])
    monkeypatch.setattr(store, "find_origin", lambda p, o: next(looks, None) or real(p, o))
    [(found, new)] = store_new(store, "p", diagnosed, duplicate=False)
    assert (found.id, new) == (winner.id, False)
    assert store.list("p").total == 1
    assert list((tmp_path / "data" / "frames").rglob("*.parquet")).__len__() == 1  # none left


def test_same_content_in_two_projects_is_two_runs(tmp_path, diagnosed):
    store = RunStore.open(tmp_path / "data")
    [(a, new_a)] = store_new(store, "projA", diagnosed, duplicate=False)
    [(b, new_b)] = store_new(store, "projB", diagnosed, duplicate=False)
    assert new_a and new_b and a.id != b.id


def test_identical_uploads_at_once_give_one_run(client: httpx.Client, tmp_path):
    body = logs.write_jsonl(tmp_path / "at-once.jsonl", n=150).read_bytes()
    barrier = threading.Barrier(4)
    answers: list[httpx.Response] = []

    def post() -> None:
        barrier.wait()
        answers.append(client.post("/v1/runs", files={"file": ("at-once.jsonl", body)}))

    threads = [threading.Thread(target=post) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(r.status_code for r in answers)[-1] <= 201, [r.text for r in answers]
    assert {r.json()["runs"][0]["id"] for r in answers}.__len__() == 1
    assert [r.status_code for r in answers].count(201) == 1


def test_a_duplicate_answers_in_the_shape_of_a_new_run(client: httpx.Client, tmp_path):
    body = logs.write_jsonl(tmp_path / "shape-run.jsonl", n=130).read_bytes()
    first = client.post("/v1/runs", files={"file": ("shape-run.jsonl", body)})
    again = client.post("/v1/runs", files={"file": ("shape-run.jsonl", body)})
    assert (first.status_code, again.status_code) == (201, 200)
    assert again.json() == first.json()
    assert again.headers["location"] == first.headers["location"]
