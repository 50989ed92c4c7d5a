"""Every log format, uploaded as the run directory a user would zip: one sample run per format
from sample_runs/ (real runs written by each framework's writer)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.app.api import logs
from tests.app.api.calls import upload
from tests.conftest import SAMPLE_RUNS


def _one_per_format() -> list[tuple[str, str]]:
    labels = SAMPLE_RUNS / "labels.json"
    if not labels.is_file():
        return []
    seen: dict[str, str] = {}
    for name, entry in sorted(json.loads(labels.read_text()).items()):
        if (SAMPLE_RUNS / name).is_dir():
            seen.setdefault(entry["format"], name)
    return sorted(seen.items())


FORMATS = _one_per_format()


@pytest.mark.skipif(not FORMATS, reason="sample_runs/labels.json is absent")
@pytest.mark.parametrize(("fmt", "name"), FORMATS, ids=[f for f, _ in FORMATS])
def test_each_format_uploads_as_a_zipped_run_dir(client, tmp_path: Path, fmt: str, name: str):
    archive = logs.zip_dir(SAMPLE_RUNS / name, tmp_path / f"{name}.zip")
    resp = upload(client, archive)
    assert resp.status_code == 201, resp.text
    runs = resp.json()["runs"]
    # labels.json names layouts more finely ('tensorboard_keras', 'hf_trainer_state')
    assert runs and all(fmt.startswith(r["format"]) for r in runs), [r["format"] for r in runs]
    assert all(r["points"] > 0 and r["diagnosis"]["metrics"] for r in runs)


def test_numpy_curves_upload_raw_and_are_diagnosed(client, tmp_path: Path):
    """`np.savez(f, **history)` and `np.save("train_loss.npy", ...)` uploaded as they are: the
    `.npz` is a zip by its bytes, and is read as a history, not unpacked as an upload archive."""
    import numpy as np

    loss = np.exp(-np.arange(60) / 12.0) + 0.1
    val = np.r_[loss[:20] + 0.05, loss[19] + 0.05 + np.linspace(0.0, 0.6, 40)]
    np.savez(tmp_path / "history.npz", loss=loss, val_loss=val)
    np.save(tmp_path / "train_loss.npy", loss)
    for path, fmt, verdict in (
        (tmp_path / "history.npz", "history_json", "overfit"),
        (tmp_path / "train_loss.npy", "series_file", "healthy"),
    ):
        resp = upload(client, path)
        assert resp.status_code == 201, resp.text
        (run,) = resp.json()["runs"]
        assert (run["format"], run["diagnosis"]["verdict"]) == (fmt, verdict)
