"""`lossforensics serve`: sample runs loaded once, the loopback rule, the start-up notice."""

from __future__ import annotations

import httpx

from app.cli import main
from tests.app.api import logs
from tests.app.api._server import Server


def test_with_samples_loads_each_sample_once(tmp_path):
    samples = tmp_path / "samples"
    for name, overfit in (("a_healthy", False), ("b_overfit", True)):
        (samples / name).mkdir(parents=True)
        logs.write_jsonl(samples / name / "log.jsonl", n=300, overfit=overfit)
    srv = Server(tmp_path / "data", args=["--with-samples", "--samples-dir", str(samples)])
    srv.start()
    try:
        with httpx.Client(base_url=srv.url) as c:
            first = c.get("/v1/runs").json()
            assert first["total"] == 2
            assert c.get("/v1/runs", params={"label": "overfit"}).json()["total"] == 1
        srv.stop()
        srv.start()
        with httpx.Client(base_url=srv.url) as c:
            assert c.get("/v1/runs").json()["items"] == first["items"]
    finally:
        srv.stop()
    assert "no auth, so bound to loopback only" in srv.output()


def test_public_bind_without_tokens_is_refused(tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("LOSSFORENSICS_TOKENS", raising=False)
    rc = main(["serve", "--host", "0.0.0.0", "--data-dir", str(tmp_path)])
    assert rc == 2
    assert "refusing to bind 0.0.0.0 without LOSSFORENSICS_TOKENS" in capsys.readouterr().err
