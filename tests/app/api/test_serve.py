"""`lossforensics serve`: sample runs loaded once, the loopback rule, the start-up notice."""

from __future__ import annotations

import httpx
import pytest
from lossforensics.cli import main

from tests.app.api import logs
from tests.app.api._server import Server
from tests.app.api.calls import upload


@pytest.mark.slow
def test_with_samples_and_two_workers_sharing_one_store(tmp_path, jsonl_file):
    samples = tmp_path / "samples"
    for name, overfit in (("a_healthy", False), ("b_overfit", True)):
        (samples / name).mkdir(parents=True)
        logs.write_jsonl(samples / name / "log.jsonl", n=300, overfit=overfit)
    # loading twice is a no-op: tests/app/store/test_pipeline.py
    args = ["--with-samples", "--samples-dir", str(samples), "--workers", "2"]
    srv = Server(tmp_path / "data", args=args)
    srv.start(timeout=240)
    try:
        with httpx.Client(base_url=srv.url, timeout=60) as c:
            assert c.get("/v1/runs").json()["total"] == 2
            assert c.get("/v1/runs", params={"label": "overfit"}).json()["total"] == 1
            copy = {"duplicate": "true"}  # six stored copies of one file, not the first six times
            ids = {upload(c, jsonl_file, params=copy).json()["runs"][0]["id"] for _ in range(6)}
            for run_id in ids:  # whichever worker answers sees every run
                assert c.get(f"/v1/runs/{run_id}").status_code == 200
            assert c.get("/v1/runs").json()["total"] == 8
    finally:
        srv.stop()
    assert "no auth, so bound to loopback only" in srv.output()


def test_public_bind_without_tokens_is_refused(tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("LOSSFORENSICS_TOKENS", raising=False)
    rc = main(["serve", "--host", "0.0.0.0", "--data-dir", str(tmp_path)])
    assert rc == 2
    assert "refusing to bind 0.0.0.0 without LOSSFORENSICS_TOKENS" in capsys.readouterr().err
