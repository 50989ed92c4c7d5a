"""Plots and reports through the render cache: same bytes on a repeat, a fresh draw after a
re-diagnosis, and a 404 (not a cached copy) once the run is deleted."""

from __future__ import annotations

import pytest

from tests.app.api.calls import upload


@pytest.mark.parametrize("path", ["report.html", "plot.png"])
def test_cached_plot_and_report_follow_rediagnosis_and_deletion(client, jsonl_file, path):
    run_id = upload(client, jsonl_file).json()["runs"][0]["id"]
    first = client.get(f"/v1/runs/{run_id}/{path}")
    second = client.get(f"/v1/runs/{run_id}/{path}")
    assert first.status_code == second.status_code == 200
    assert first.content == second.content
    client.post(f"/v1/runs/{run_id}/diagnose")
    third = client.get(f"/v1/runs/{run_id}/{path}")
    assert third.status_code == 200
    client.delete(f"/v1/runs/{run_id}")
    assert client.get(f"/v1/runs/{run_id}/{path}").status_code == 404  # never served stale
