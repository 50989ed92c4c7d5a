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
        assert anon.get("/healthz").json() == {"status": "ok", "auth": True}


def test_projects_see_only_their_runs(authed, jsonl_file):
    with _client(authed, "tokA") as a, _client(authed, "tokB") as b:
        run = upload(a, jsonl_file).json()["runs"][0]
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
