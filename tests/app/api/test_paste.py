"""Pasted console text (`text/plain` body) on POST /v1/diagnose and POST /v1/runs: read by the
console reader in the worker, named by `?name=`, the recognised style and the lines skipped
kept in the diagnosis's source; text with no training metrics is refused with its code."""

from __future__ import annotations

from pathlib import Path

from tests.app.api.calls import assert_problem

FIXTURES = Path(__file__).resolve().parents[1] / "ingest" / "console_fixtures"
KERAS = (FIXTURES / "keras_verbose2.log").read_bytes()
PLAIN = {"content-type": "text/plain; charset=utf-8"}


def test_pasted_keras_output_is_diagnosed_with_its_style(client):
    resp = client.post("/v1/diagnose", content=KERAS, headers=PLAIN)
    assert resp.status_code == 200, resp.text
    diag = resp.json()["diagnoses"][0] if "diagnoses" in resp.json() else resp.json()
    source = diag["source"]
    assert source["format"] == "console"
    assert source["detail"].startswith("console log, keras verbose 2;")
    assert "line(s) skipped" in source["detail"]


def test_pasted_text_is_stored_under_the_name_asked_for(client):
    resp = client.post("/v1/runs", content=KERAS, headers=PLAIN, params={"name": "my-keras-run"})
    assert resp.status_code == 201, resp.text
    run = resp.json()["runs"][0]
    assert run["name"] == "my-keras-run"
    got = client.get(f"/v1/runs/{run['id']}")
    assert got.status_code == 200, got.text
    assert got.json()["diagnosis"]["source"]["detail"].startswith("console log, keras verbose 2")


def test_pasted_text_without_a_name_is_named_pasted(client):
    resp = client.post("/v1/runs", content=KERAS.replace(b"0.77", b"0.78"), headers=PLAIN)
    assert resp.status_code == 201, resp.text
    assert resp.json()["runs"][0]["name"] == "pasted"


def test_pasted_prose_is_refused_saying_no_metrics_were_recognised(client):
    text = b"We trained for 3 epochs.\nThe loss went down to 0.5 in the end.\n" * 5
    body = assert_problem(
        client.post("/v1/diagnose", content=text, headers=PLAIN), 415, "unknown_format"
    )
    assert "no training metrics recognised" in body["detail"]


def test_an_empty_paste_is_refused(client):
    assert_problem(client.post("/v1/diagnose", content=b"", headers=PLAIN), 422, "empty_input")
