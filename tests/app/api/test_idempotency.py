"""Idempotency-Key on POST /v1/runs against a real server: a retry gets the first answer and
stores nothing new; another body with the key is a 409; concurrent retries store once."""

from __future__ import annotations

import uuid
from concurrent.futures import ThreadPoolExecutor

from tests.app.api import logs
from tests.app.api.calls import assert_problem, upload


def _key() -> str:
    return uuid.uuid4().hex


def test_a_retry_with_the_key_gets_the_first_answer(client, tmp_path):
    path = logs.write_jsonl(tmp_path / f"idem-{_key()}.jsonl", n=150)
    headers = {"Idempotency-Key": _key()}
    first = upload(client, path, headers=headers)
    assert first.status_code == 201, first.text
    assert first.headers["idempotent-replayed"] == "false"
    total = client.get("/v1/runs").json()["total"]
    again = upload(client, path, headers=headers)  # a new multipart boundary, the same upload
    assert again.status_code == 201
    assert again.headers["idempotent-replayed"] == "true"
    assert again.json() == first.json()
    assert again.headers["location"] == first.headers["location"]
    assert client.get("/v1/runs").json()["total"] == total


def test_the_key_with_another_upload_is_a_409(client, tmp_path):
    headers = {"Idempotency-Key": _key()}
    a = logs.write_jsonl(tmp_path / "a.jsonl", n=120)
    b = logs.write_jsonl(tmp_path / "b.jsonl", n=130)
    assert upload(client, a, headers=headers, data={"name": f"a-{_key()}"}).status_code == 201
    body = assert_problem(upload(client, b, headers=headers), 409, "conflict")
    assert "different request" in body["detail"]
    other_name = upload(client, a, headers=headers, data={"name": "renamed"})
    assert_problem(other_name, 409, "conflict")  # a form field is part of the request


def test_concurrent_retries_store_once(client, tmp_path):
    path = logs.write_jsonl(tmp_path / f"race-{_key()}.jsonl", n=200)
    headers = {"Idempotency-Key": _key()}
    before = client.get("/v1/runs").json()["total"]
    with ThreadPoolExecutor(4) as ex:
        answers = list(ex.map(lambda _: upload(client, path, headers=headers), range(4)))
    assert [a.status_code for a in answers] == [201] * 4, [a.text for a in answers]
    assert len({a.json()["runs"][0]["id"] for a in answers}) == 1
    assert sorted(a.headers["idempotent-replayed"] for a in answers) == ["false"] + ["true"] * 3
    assert client.get("/v1/runs").json()["total"] == before + 1


def test_a_failed_upload_leaves_the_key_free(client, tmp_path):
    headers = {"Idempotency-Key": _key()}
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    assert upload(client, empty, headers=headers).status_code >= 400
    assert upload(client, empty, headers=headers).status_code >= 400  # not a replay, not a 409
