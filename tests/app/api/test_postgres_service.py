"""The service on PostgreSQL (LOSSFORENSICS_DATABASE_URL): upload, list, filter, delete.
Needs a real server: LOSSFORENSICS_TEST_DATABASE_URL (.ci/postgres.sh starts one)."""

from __future__ import annotations

import httpx
import pytest

from tests.app.api._server import Server
from tests.app.api.calls import upload
from tests.app.store.pg import pg_schema_url

pytestmark = pytest.mark.postgres


def test_service_on_postgres_stores_lists_filters_and_deletes(tmp_path, jsonl_file, overfit_jsonl):
    with pg_schema_url() as url:
        srv = Server(tmp_path / "data", env={"LOSSFORENSICS_DATABASE_URL": url}).start()
        try:
            with httpx.Client(base_url=srv.url, timeout=60) as c:
                a = upload(c, jsonl_file).json()["runs"][0]
                b = upload(c, overfit_jsonl).json()["runs"][0]
                assert c.get("/v1/runs").json()["total"] == 2
                assert [
                    r["id"] for r in c.get("/v1/runs", params={"label": "overfit"}).json()["items"]
                ] == [b["id"]]
                assert c.get(f"/v1/runs/{a['id']}").json()["diagnosis"] == a["diagnosis"]
                assert c.delete(f"/v1/runs/{a['id']}").status_code == 204
                assert c.get("/v1/runs").json()["total"] == 1
                assert not (tmp_path / "data" / "lossforensics.db").exists()
        finally:
            srv.stop()
