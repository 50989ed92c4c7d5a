"""End-to-end against a real `lossforensics serve`: upload, list, read, series, plot, report,
delete, re-diagnose, one-shot diagnose."""

from __future__ import annotations

import csv
import io
import math

from tests.app.api import logs
from tests.app.api.calls import assert_problem, upload


def test_event_file_upload_returns_201_with_id_and_diagnosis(client, event_file):
    resp = upload(client, event_file)
    assert resp.status_code == 201, resp.text
    (run,) = resp.json()["runs"]
    assert resp.headers["location"] == f"/v1/runs/{run['id']}"
    assert run["format"] == "tensorboard"
    assert run["points"] == logs.STEPS
    assert run["diagnosis"]["id"] == run["id"]
    assert run["diagnosis"]["verdict"] == run["verdict"]
    assert {m["metric"] for m in run["diagnosis"]["metrics"]} == {"train/loss"}
    assert all(not f.startswith("/") for f in run["files"])  # no server paths leak


def test_jsonl_round_trip_get_series_plot_report_delete(client, jsonl_file):
    run = upload(client, jsonl_file).json()["runs"][0]
    run_id = run["id"]

    got = client.get(f"/v1/runs/{run_id}").json()
    assert got["diagnosis"] == run["diagnosis"] and got["name"] == run["name"]

    csv_resp = client.get(
        f"/v1/runs/{run_id}/series", params={"metric": "train/loss", "format": "csv"}
    )
    assert csv_resp.headers["content-type"].startswith("text/csv")
    rows = list(csv.DictReader(io.StringIO(csv_resp.text)))
    assert len(rows) == logs.STEPS and {r["metric"] for r in rows} == {"train/loss"}
    _, train, _ = logs.curves()
    assert math.isclose(float(rows[10]["value"]), train[10], rel_tol=1e-9)

    series = client.get(f"/v1/runs/{run_id}/series").json()["series"]
    assert {s["metric"] for s in series} >= {"train/loss", "val/loss", "lr"}
    roles = {s["metric"]: s["role"] for s in series}
    assert roles["val/loss"] == "val_loss" and roles["lr"] == "lr"

    png = client.get(f"/v1/runs/{run_id}/plot.png", params={"width": 400, "height": 300})
    assert png.headers["content-type"] == "image/png"
    assert png.content.startswith(b"\x89PNG\r\n\x1a\n")

    html = client.get(f"/v1/runs/{run_id}/report.html")
    assert html.headers["content-type"].startswith("text/html")
    assert "<img" in html.text and "data:image/png;base64," in html.text
    assert run["verdict"] in html.text

    assert client.delete(f"/v1/runs/{run_id}").status_code == 204
    assert_problem(client.get(f"/v1/runs/{run_id}"), 404, "not_found")
    assert_problem(client.delete(f"/v1/runs/{run_id}"), 404, "not_found")


def test_unknown_metric_is_404_naming_the_metrics(client, jsonl_file):
    run_id = upload(client, jsonl_file).json()["runs"][0]["id"]
    body = assert_problem(
        client.get(f"/v1/runs/{run_id}/series", params={"metric": "nope"}), 404, "not_found"
    )
    assert "train/loss" in body["detail"]


def test_nonfinite_values_survive_as_labels(client, tmp_path):
    path = tmp_path / "nan.jsonl"
    path.write_text(
        '{"step": 0, "loss": 1.0}\n{"step": 1, "loss": NaN}\n'
        '{"step": 2, "loss": Infinity}\n{"step": 3, "loss": 0.5}\n'
    )
    run_id = upload(client, path).json()["runs"][0]["id"]
    (series,) = client.get(f"/v1/runs/{run_id}/series", params={"metric": "loss"}).json()["series"]
    assert series["value"] == [1.0, "nan", "inf", 0.5]
    assert series["step"] == [0, 1, 2, 3]


def test_keras_layout_zip_is_one_run_with_validation_loss(client, keras_run_dir, tmp_path):
    archive = logs.zip_dir(keras_run_dir, tmp_path / "run_dir.zip")
    resp = upload(client, archive)
    assert resp.status_code == 201, resp.text
    (run,) = resp.json()["runs"]
    roles = {m["role"] for m in run["diagnosis"]["metrics"]}
    assert {"train_loss", "val_loss"} <= roles
    assert run["verdict"] == "overfit"
    assert "overfit" in run["labels"]


def test_several_files_in_one_request_keep_their_folders(client, keras_run_dir):
    train = next((keras_run_dir / "train").glob("events*"))
    val = next((keras_run_dir / "validation").glob("events*"))
    resp = upload(client, train, val, names=[f"train/{train.name}", f"validation/{val.name}"])
    assert resp.status_code == 201, resp.text
    (run,) = resp.json()["runs"]
    assert {"train_loss", "val_loss"} <= {m["role"] for m in run["diagnosis"]["metrics"]}


def test_tar_gz_with_two_runs_gives_two_runs(client, tmp_path):
    root = tmp_path / "sweep"
    for name in ("lr_1e-3", "lr_1e-2"):
        (root / name).mkdir(parents=True)
        logs.write_jsonl(root / name / "log.jsonl", overfit=name == "lr_1e-2")
    resp = upload(client, logs.tar_dir(root, tmp_path / "sweep.tar.gz"))
    assert resp.status_code == 201, resp.text
    runs = resp.json()["runs"]
    assert len(runs) == 2 and len({r["id"] for r in runs}) == 2
    for r in runs:
        assert client.get(f"/v1/runs/{r['id']}").status_code == 200


def test_list_filters_by_label_and_paginates(client, tmp_path, overfit_jsonl):
    project_runs = [upload(client, overfit_jsonl).json()["runs"][0] for _ in range(3)]
    assert all(r["verdict"] == "overfit" for r in project_runs), project_runs[0]["diagnosis"]
    page = client.get("/v1/runs", params={"label": "overfit", "limit": 2}).json()
    assert page["total"] >= 3 and len(page["items"]) == 2
    assert all("overfit" in r["labels"] for r in page["items"])
    rest = client.get("/v1/runs", params={"label": "overfit", "limit": 2, "offset": 2}).json()
    seen = [r["id"] for r in page["items"] + rest["items"]]
    assert len(seen) == len(set(seen)) == min(4, page["total"])
    assert {r["id"] for r in project_runs} <= {
        r["id"]
        for r in client.get("/v1/runs", params={"label": "overfit", "limit": 500}).json()["items"]
    }
    assert client.get("/v1/runs", params={"label": "no-such-label"}).json()["total"] == 0


def test_one_shot_diagnose_stores_nothing(client, overfit_jsonl):
    before = client.get("/v1/runs").json()["total"]
    resp = upload(client, overfit_jsonl, url="/v1/diagnose")
    assert resp.status_code == 200, resp.text
    (diag,) = resp.json()["diagnoses"]
    assert diag["verdict"] == "overfit" and diag["findings"][0]["causes"]
    assert client.get("/v1/runs").json()["total"] == before


def test_rediagnose_one_run(client, overfit_jsonl):
    run = upload(client, overfit_jsonl).json()["runs"][0]
    again = client.post(f"/v1/runs/{run['id']}/diagnose")
    assert again.status_code == 200
    body = again.json()
    assert body["diagnosis"]["verdict"] == run["verdict"]
    assert body["diagnosed_at"] >= run["diagnosed_at"]
    assert_problem(client.post("/v1/runs/nope/diagnose"), 404, "not_found")


def test_garbage_upload_is_415_unknown_format(client, tmp_path):
    path = tmp_path / "garbage.bin"
    path.write_bytes(bytes(range(256)) * 40)
    assert_problem(upload(client, path), 415, "unknown_format")


def test_empty_file_is_422_empty_input_naming_it(client, tmp_path):
    path = tmp_path / "empty.jsonl"
    path.write_bytes(b"")
    body = assert_problem(upload(client, path), 422, "empty_input")
    assert body["file"] == "empty.jsonl"


def test_request_without_file_or_multipart(client):
    assert_problem(client.post("/v1/runs", json={"a": 1}), 415, "unknown_format")
    assert_problem(client.post("/v1/runs", data={"other": "x"}, files=[]), 415, "unknown_format")
    resp = client.post("/v1/runs", data={"note": "x"}, files={"nofile": ("", b"")})
    assert resp.status_code in (400, 422) and resp.json()["code"] in ("bad_input", "empty_input")


def test_truncated_multipart_is_a_problem_not_a_crash(client):
    body = b'--xyz\r\nContent-Disposition: form-data; name="file"; filename="a.jsonl"\r\n\r\n{'
    resp = client.post(
        "/v1/runs", content=body, headers={"content-type": "multipart/form-data; boundary=xyz"}
    )
    assert 400 <= resp.status_code < 500
    assert resp.headers["content-type"].startswith("application/problem+json")


def test_validation_and_routing_errors_are_problems(client):
    body = assert_problem(client.get("/v1/runs", params={"limit": 0}), 422, "bad_input")
    assert body["errors"][0]["loc"] == ["query", "limit"]
    assert_problem(client.get("/v1/nothing-here"), 404, "not_found")
    assert client.put("/v1/runs").status_code == 405


def test_openapi_and_docs_are_served(client):
    schema = client.get("/openapi.json").json()
    assert {
        "/v1/runs",
        "/v1/runs/{run_id}",
        "/v1/diagnose",
        "/v1/runs/{run_id}/series",
        "/v1/runs/{run_id}/plot.png",
        "/v1/runs/{run_id}/report.html",
    } <= set(schema["paths"])
    assert "multipart/form-data" in schema["paths"]["/v1/runs"]["post"]["requestBody"]["content"]
    assert client.get("/docs").status_code == 200


def test_runs_are_named_after_the_file_or_the_name_field(client, jsonl_file, keras_run_dir):
    # a generic file name ('metrics') never names a run (issue 12)
    assert upload(client, jsonl_file).json()["runs"][0]["name"] != "metrics"
    named = upload(client, jsonl_file, data={"name": "resnet/lr=0.1"}).json()["runs"][0]
    assert named["name"] == "resnet_lr=0.1" and named["files"] == ["metrics.jsonl"]
    train = next((keras_run_dir / "train").glob("events*"))
    val = next((keras_run_dir / "validation").glob("events*"))
    pair = upload(
        client,
        train,
        val,
        names=[f"train/{train.name}", f"validation/{val.name}"],
        data={"name": "keras_pair"},
    ).json()["runs"][0]
    assert pair["name"] == "keras_pair"
