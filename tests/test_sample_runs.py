"""Every sample run loads, holds a loss series, and its expected labels are found."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from lossforensics.classifiers.labels import ALL_LABELS, HEALTHY
from lossforensics.ingest import load_run

from tests.conftest import SAMPLE_RUNS

LABELS: dict = json.loads((SAMPLE_RUNS / "labels.json").read_text())
FORMATS = {
    "tensorboard",
    "tensorboard_keras",
    "wandb_csv",
    "jsonl",
    "hf_trainer_state",
    "lightning_csv",
    "keras_csv",
    "mlflow",
}


def test_labels_cover_every_format_and_the_main_labels() -> None:
    assert {e["format"] for e in LABELS.values()} == FORMATS
    seen = {lab for e in LABELS.values() for lab in e["label"]}
    assert set(ALL_LABELS) <= seen
    for name, entry in LABELS.items():
        assert set(entry["label"]) <= set(ALL_LABELS), name
        for f in entry["files"]:
            assert (SAMPLE_RUNS / name / f).is_file(), f"{name}: {f} listed but missing"


def test_sample_runs_stay_small() -> None:
    size = sum(p.stat().st_size for p in SAMPLE_RUNS.rglob("*") if p.is_file())
    assert size < 3_000_000


@pytest.mark.parametrize("name", sorted(LABELS))
def test_sample_run_loads_with_a_loss(name: str) -> None:
    result = load_run(SAMPLE_RUNS / name)
    roles = set(result.frame["role"].astype(str))
    assert "train_loss" in roles, f"{name}: no train loss among {sorted(roles)}"
    assert len(result.frame) >= 10
    assert not [w for w in result.warnings if "skipped" in str(w).lower()], result.warnings


def _diagnose(path: Path) -> set[str]:
    from lossforensics.classifiers.diagnose import diagnose_all

    result = load_run(path)
    # a finding another explains (classifiers.explains) is still found: it is reported as
    # evidence of its cause
    findings = [f for d in diagnose_all(result.frame) for f in d.findings]
    return {f.label for f in findings} | {
        e["label"] for f in findings for e in f.evidence.get("explains", ())
    }


# Sample runs whose induced label the current classifiers miss (2026-11-22);
# benchmarks/evaluate.py reports the same kinds of miss across the whole corpus. Strict: a
# classifier change that finds one of them fails here until the entry is removed, so this list
# always says exactly what is missed.
KNOWN_MISSES = {
    "lr_decayed_too_early_jsonl": "the LR fell 10x within 9% of the run, before the loss had "
    "moved at all (no progress cut short to see): nothing found",
}


def _cases() -> list:
    return [
        pytest.param(n, marks=pytest.mark.xfail(reason=KNOWN_MISSES[n], strict=True))
        if n in KNOWN_MISSES
        else n
        for n in sorted(LABELS)
    ]


@pytest.mark.parametrize("name", _cases())
def test_expected_label_is_found(name: str) -> None:
    """Each sample run demonstrates one pathology (its first label, the one induced): the
    classifiers must find it; a healthy sample must get no finding at all. Labels a pathology
    brought along (a ramped LR's spikes, a decayed LR's plateau) are scored by
    benchmarks/evaluate.py, not here."""
    primary = LABELS[name]["label"][0]
    found = _diagnose(SAMPLE_RUNS / name)
    if primary == HEALTHY:
        assert not found, f"{name} is healthy but got {sorted(found)}"
    else:
        assert primary in found, f"{name}: expected {primary}, found {sorted(found)}"
