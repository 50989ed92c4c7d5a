"""Bearer-token auth: each token sees only its project's runs; another project's run is a 404."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from tests.app.api._server import Server
from tests.app.api.calls import assert_problem, upload


@pytest.fixture(scope="module")
def authed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    env = {"LOSSFORENSICS_TOKENS": "tokA:projA, tokB:projB"}
    srv = Server(tmp_path_factory.mktemp("auth") / "data", env=env).start()
    yield srv
    srv.stop()


def _client(srv: Server, token: str | None) -> httpx.Client:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    return httpx.Client(base_url=srv.url, headers=headers, timeout=60)


def test_missing_or_unknown_token_is_401(authed, jsonl_file):
    with _client(authed, None) as anon, _client(authed, "nope") as bad:
        resp = anon.get("/v1/runs")
        assert_problem(resp, 401, "unauthorized")
        assert resp.headers["www-authenticate"] == "Bearer"
        assert_problem(bad.get("/v1/runs"), 401, "unauthorized")
        assert_problem(upload(anon, jsonl_file), 401, "unauthorized")
        assert_problem(upload(bad, jsonl_file, url="/v1/diagnose"), 401, "unauthorized")
        health = anon.get("/healthz")  # liveness needs no token, and says auth is on
        assert health.status_code == 200
        body = health.json()
        assert body.keys() == {"status", "auth", "free_bytes"}
        assert body["status"] == "ok" and body["auth"] is True
        assert isinstance(body["free_bytes"], int) and body["free_bytes"] >= 0


def test_projects_see_only_their_runs(authed, jsonl_file):
    with _client(authed, "tokA") as a, _client(authed, "tokB") as b:
        resp = upload(a, jsonl_file)
        assert resp.status_code in (200, 201), resp.text
        run = resp.json()["runs"][0]
        assert run["project"] == "projA"
        rid = run["id"]
        assert a.get(f"/v1/runs/{rid}").status_code == 200
        for resp in (
            b.get(f"/v1/runs/{rid}"),
            b.get(f"/v1/runs/{rid}/series"),
            b.get(f"/v1/runs/{rid}/plot.png"),
            b.get(f"/v1/runs/{rid}/report.html"),
            b.post(f"/v1/runs/{rid}/diagnose"),
            b.delete(f"/v1/runs/{rid}"),
        ):
            assert_problem(resp, 404, "not_found")
        assert rid not in {r["id"] for r in b.get("/v1/runs").json()["items"]}
        assert rid in {r["id"] for r in a.get("/v1/runs").json()["items"]}
        assert a.delete(f"/v1/runs/{rid}").status_code == 204


def test_the_same_upload_in_two_projects_is_two_runs(authed, tmp_path):
    from tests.app.api import logs

    path = logs.write_jsonl(tmp_path / "shared-run.jsonl", n=140)
    with _client(authed, "tokA") as a, _client(authed, "tokB") as b:
        in_a, in_b = upload(a, path), upload(b, path)
        assert (in_a.status_code, in_b.status_code) == (201, 201), in_b.text
        run_a, run_b = in_a.json()["runs"][0], in_b.json()["runs"][0]
        assert run_a["id"] != run_b["id"] and (run_a["project"], run_b["project"]) == (
            "projA",
            "projB",
        )
        again = upload(b, path)  # a duplicate answers in the 201 shape, with B's own run
        assert again.status_code == 200 and again.json() == in_b.json()
