"""Upload semantics: a run is named after what names it (never 'trainer_state' or 'metrics'),
the same content uploaded again is the same run (200, same id) unless `duplicate=true`, and an
upload holding no training log is refused with 422 naming what it held."""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path

from tests.app.api._server import REPO
from tests.app.api.calls import assert_problem

HF_STATE = REPO / "sample_runs" / "healthy_hf_trainer" / "trainer_state.json"
PICKLE_BOMB = b"\x80\x04cos\nsystem\n(S'touch /tmp/lf-unpickled'\ntR."  # never to be loaded


def _zip(members: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    return buf.getvalue()


def _post(client, files: list[tuple[str, bytes]], **params):
    return client.post(
        "/v1/runs", files=[("file", (n, d)) for n, d in files], params=params or None
    )


def _state(trial: str | None = None, shift: float = 0.0) -> bytes:
    doc = json.loads(HF_STATE.read_text())
    doc["trial_name"] = trial
    for entry in doc["log_history"]:
        if "loss" in entry:
            entry["loss"] += shift
    return json.dumps(doc).encode()


def test_zipped_hf_folder_is_named_after_the_folder_and_nothing_is_unpickled(client):
    state = _state(shift=0.011)
    body = _zip(
        {"my-bert-run/trainer_state.json": state, "my-bert-run/training_args.bin": PICKLE_BOMB}
    )
    resp = _post(client, [("output.zip", body)])
    assert resp.status_code == 201, resp.text
    assert resp.json()["runs"][0]["name"] == "my-bert-run"
    assert not Path("/tmp/lf-unpickled").exists()


def test_flat_archive_is_named_after_the_archive_and_single_file_never_generic(client):
    resp = _post(client, [("bert-sweep-3.zip", _zip({"trainer_state.json": _state(shift=0.012)}))])
    assert resp.json()["runs"][0]["name"] == "bert-sweep-3"
    single = _post(client, [("trainer_state.json", _state(shift=0.013))])
    assert single.status_code == 201
    assert single.json()["runs"][0]["name"] not in ("trainer_state", "metrics")


def test_trial_name_names_the_run(client):
    resp = _post(client, [("trainer_state.json", _state("trial-lr3e-5", shift=0.014))])
    assert resp.json()["runs"][0]["name"] == "trial-lr3e-5"


def test_same_content_twice_is_one_run_unless_a_copy_is_asked_for(client):
    state = _state(shift=0.021)
    first = _post(client, [("run-a/trainer_state.json", state)])
    assert first.status_code == 201, first.text
    run_id = first.json()["runs"][0]["id"]
    assert first.json()["runs"][0]["name"] == "run-a"
    again = _post(client, [("run-a/trainer_state.json", state)])
    assert again.status_code == 200 and again.json()["runs"][0]["id"] == run_id
    as_zip = _post(client, [("run-a.zip", _zip({"run-a/trainer_state.json": state}))])
    assert as_zip.status_code == 200 and as_zip.json()["runs"][0]["id"] == run_id
    copy = _post(client, [("run-a/trainer_state.json", state)], duplicate="true")
    assert copy.status_code == 201 and copy.json()["runs"][0]["id"] != run_id
    listed = client.get("/v1/runs", params={"name": "run-a"}).json()
    assert listed["total"] == 2


def test_an_upload_without_a_training_log_is_422_listing_what_it_held(client):
    body = _zip(
        {
            "model/config.json": b'{"hidden_size": 768, "num_layers": 12}',
            "model/README.md": b"# a model card",
            "model/training_args.bin": PICKLE_BOMB,
        }
    )
    problem = assert_problem(_post(client, [("model.zip", body)]), 422, "no_logs")
    for name in ("config.json", "README.md", "training_args.bin"):
        assert name in problem["detail"]
