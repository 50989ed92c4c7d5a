"""Loading sample runs (idempotent, never fatal) and re-diagnosing stored runs, store-side."""

from __future__ import annotations

from pathlib import Path

import pytest
from lossforensics.classifiers.diagnosis import Diagnosis
from lossforensics.classifiers.errors import EmptyInputError, LimitExceededError
from lossforensics.cli import main
from lossforensics.store import RunStore
from lossforensics.store.pipeline import diagnose_result, ingest, load_samples, rediagnose_all

from tests.app.api import logs


@pytest.fixture()
def samples(tmp_path: Path) -> Path:
    root = tmp_path / "samples"
    for name, overfit in (("healthy_jsonl", False), ("overfit_jsonl", True)):
        (root / name).mkdir(parents=True)
        logs.write_jsonl(root / name / "log.jsonl", n=300, overfit=overfit)
    (root / "broken").mkdir()
    (root / "broken" / "empty.jsonl").write_bytes(b"")
    return root


def test_load_samples_is_idempotent_and_skips_unreadable(tmp_path, samples):
    store = RunStore.open(tmp_path / "data")
    first = load_samples(store, samples, ["default", "other"], max_points=10_000)
    assert sorted(r.origin for r in first if r.project == "default") == [
        "sample:healthy_jsonl",
        "sample:overfit_jsonl",
    ]
    assert load_samples(store, samples, ["default", "other"], max_points=10_000) == []
    assert store.list("default").total == 2 and store.list("other").total == 2
    assert store.list("default", label="overfit").total == 1
    store.close()


def test_points_limit_and_empty_input(tmp_path, samples):
    result = ingest(samples / "overfit_jsonl")
    with pytest.raises(LimitExceededError):
        diagnose_result(result, max_points=100)
    with pytest.raises(EmptyInputError):
        ingest(samples / "broken" / "empty.jsonl")


def test_rediagnose_all_restores_the_current_verdict(tmp_path, samples, capsys, monkeypatch):
    data = tmp_path / "data"
    store = RunStore.open(data)
    (rec,) = [
        r
        for r in load_samples(store, samples, ["p"], max_points=10_000)
        if r.origin == "sample:overfit_jsonl"
    ]
    store.replace_diagnosis("p", rec.id, Diagnosis(run=rec.name, verdict="healthy"))  # stale
    assert store.get("p", rec.id).verdict == "healthy"
    store.close()

    monkeypatch.delenv("LOSSFORENSICS_DATABASE_URL", raising=False)
    assert main(["rediagnose", "--data-dir", str(data)]) == 0
    out = capsys.readouterr().out
    assert f"{rec.id}  p/{rec.name}: healthy -> overfit" in out
    assert "rediagnosed 2 run(s); 1 verdict(s) changed" in out

    store = RunStore.open(data)
    assert store.get("p", rec.id).verdict == "overfit"
    assert rediagnose_all(store)[0][0].verdict == rediagnose_all(store)[0][1]
    store.close()
