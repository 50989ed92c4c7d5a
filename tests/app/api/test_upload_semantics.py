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


MLFLOW_RUN = next(
    (REPO / "sample_runs" / "plateau_mlflow" / "mlruns" / "1").glob("*/meta.yaml")
).parent


def _keras_part(shift: float, n: int = 20) -> bytes:
    rows = [f"{e},{0.5 + e / 50:.4f},{1.0 / (e + 1) + shift:.4f}" for e in range(n)]
    return ("epoch,accuracy,loss\n" + "\n".join(rows) + "\n").encode()


def _labels(run: dict) -> set[str]:
    return {f["label"] for f in run["diagnosis"]["findings"]}


def test_keras_training_and_validation_parts_are_one_run(client):
    parts = [
        ("resnet-pair/training.csv", _keras_part(0.0)),
        ("resnet-pair/validation.csv", _keras_part(0.08)),
    ]
    resp = _post(client, parts)
    assert resp.status_code == 201, resp.text
    [run] = resp.json()["runs"]
    assert run["name"] == "resnet-pair"
    assert "resume_discontinuity" not in _labels(run)
    metrics = {m["metric"]: m["role"] for m in run["diagnosis"]["metrics"]}
    assert metrics["val_loss"] == "val_loss" and metrics["val_accuracy"] == "val_score"
    assert metrics["loss"] == "train_loss"


def _wandb(runs: list[str], shift: float) -> bytes:
    head = ",".join(f'"{r} - train/loss"' for r in runs)
    rows = [
        ",".join([f'"{s}"', *(f'"{2.0 / (s + 1) + shift + i / 10}"' for i in range(len(runs)))])
        for s in range(40)
    ]
    return (f'"Step",{head}\n' + "\n".join(rows) + "\n").encode()


def test_a_wandb_export_is_named_after_its_runs(client):
    one = _post(client, [("wandb_export.csv", _wandb(["lr-sweep-7"], 0.031))])
    assert one.status_code == 201, one.text
    assert [r["name"] for r in one.json()["runs"]] == ["lr-sweep-7"]
    two = _post(client, [("wandb_export.csv", _wandb(["fluent-sun-3", "brisk-dew-4"], 0.032))])
    assert sorted(r["name"] for r in two.json()["runs"]) == ["brisk-dew-4", "fluent-sun-3"]


def _mlflow_members(top: str, run_name: str | None, tag: str | None) -> dict[str, bytes]:
    members = {}
    for path in MLFLOW_RUN.rglob("*"):
        if not path.is_file():
            continue
        rel = path.relative_to(MLFLOW_RUN).as_posix()
        data = path.read_bytes()
        if rel == "meta.yaml":
            lines = [ln for ln in data.decode().splitlines() if not ln.startswith("run_name")]
            lines += [f"run_name: {run_name}"] if run_name else []
            data = ("\n".join(lines) + "\n").encode()
        if rel == "tags/mlflow.runName":
            if tag is None:
                continue
            data = tag.encode()
        members[f"{top}/{rel}"] = data
    return members


def test_an_mlflow_run_folder_is_named_after_its_run_name(client):
    by_meta = _mlflow_members("feeb4a1b", "bert-base-ft", None)
    resp = _post(client, [("mlflow-run.zip", _zip(by_meta))])
    assert resp.status_code == 201, resp.text
    assert resp.json()["runs"][0]["name"] == "bert-base-ft"
    by_tag = _mlflow_members("0a1b2c3d", None, "distil-ft-2")
    resp = _post(client, list(by_tag.items()))  # the run folder's files, uploaded as a folder
    assert resp.status_code == 201, resp.text
    assert resp.json()["runs"][0]["name"] == "distil-ft-2"
