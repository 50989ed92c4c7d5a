"""The probes' runs become JSONL logs and normalised frames the classifiers can read."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from lossforensics.classifiers.frame import validate_frame

pytest.importorskip("torch")

from lossforensics.probes.runlog import frame_of, write_jsonl  # noqa: E402
from lossforensics.probes.train import TrainLog, stability  # noqa: E402


def _log() -> TrainLog:
    loss = np.array([2.0, 1.5, 3.0, math.nan])
    return TrainLog("run", loss, np.array([1.0, 2.0, 50.0, math.nan]), np.full(4, 0.1))


def test_jsonl_has_one_object_per_step_with_nan_kept(tmp_path):
    path = write_jsonl(_log(), tmp_path / "a" / "run.jsonl")
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    assert [r["step"] for r in rows] == [0, 1, 2, 3]
    assert set(rows[0]) == {"step", "loss", "grad_norm", "lr"}
    assert math.isnan(rows[3]["loss"])


def test_frame_of_a_log_has_the_roles_the_classifiers_read():
    frame = validate_frame(frame_of(_log(), "probe/run"))
    roles = dict(zip(frame["metric"].astype(str), frame["role"].astype(str), strict=False))
    assert roles == {"loss": "train_loss", "grad_norm": "grad_norm", "lr": "lr"}
    assert list(frame["step"][:3]) == [0, 0, 0] and len(frame) == 12
    assert frame["value"].isna().sum() == 2


def test_steps_a_grad_scaler_skipped_are_marked_and_hidden_from_the_classifiers(tmp_path):
    log = _log()
    log.skipped[2] = True
    rows = [
        json.loads(line) for line in write_jsonl(log, tmp_path / "s.jsonl").read_text().splitlines()
    ]
    assert rows[2]["scaler_skipped"] is True and "scaler_skipped" not in rows[1]
    frame = frame_of(log, "probe/run")
    grad = frame[frame["metric"] == "grad_norm"]
    assert list(grad["step"]) == [0, 1, 3] and len(frame) == 11


def test_stability_reads_a_blow_up_and_a_descent():
    rising = stability(np.geomspace(1.0, 100.0, 40))
    assert rising.diverged() and rising.first_nonfinite_step is None
    falling = stability(np.geomspace(2.0, 0.01, 40))
    assert not falling.diverged() and falling.best_loss == pytest.approx(0.01)
    broken = stability(np.array([1.0, 0.9, math.inf, 0.5]))
    assert broken.nonfinite and broken.first_nonfinite_step == 2 and broken.diverged()
