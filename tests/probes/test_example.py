"""examples/broken_model.py runs end to end: trains a broken model, diagnoses its JSONL log and
confirms the learning-rate cause with the probes."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.conftest import REPO

pytest.importorskip("torch")


@pytest.mark.slow  # a subprocess that imports torch and pandas: ~10-25 s on a busy machine
@pytest.mark.parametrize("device", ["cpu", pytest.param("cuda", marks=pytest.mark.gpu)])
def test_broken_model_example_confirms_the_lr_cause(tmp_path, device):
    example = [sys.executable, str(REPO / "examples" / "broken_model.py")]
    out = subprocess.run(
        [*example, "--out", str(tmp_path), "--device", device],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode == 0, out.stdout[-2000:] + out.stderr[-2000:]
    assert "LR cause: confirmed" in out.stdout
    assert f"probes on {device}" in out.stdout
    assert (tmp_path / "train.jsonl").is_file()
    assert sorted(p.name for p in (tmp_path / "probes" / "lr_drop").iterdir()) == [
        "lr.jsonl",
        "lr_div10.jsonl",
        "lr_div3.jsonl",
    ]
    saved = json.loads((tmp_path / "confirmation.json").read_text())
    assert saved["device"].startswith(device), saved["device"]
    lr = [c for f in saved["findings"] for c in f["causes"] if c["probe"] == "lr_drop"]
    assert lr and all(c["verdict"] == "confirmed" for c in lr)
