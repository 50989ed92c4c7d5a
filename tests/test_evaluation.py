"""benchmarks/evaluate.py: the scoring functions on a hand-made confusion, and the script end to
end on a small labelled slice written by the corpus writers."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from benchmarks.scoring import (
    Scored,
    confusion,
    false_alarm_rate,
    macro_f1,
    normalise,
    per_label,
    summary,
)
from tests.conftest import REPO, SAMPLE_RUNS


def S(name: str, truth: list[str], pred: set[str]) -> Scored:  # noqa: N802
    return Scored(name, tuple(truth), frozenset(normalise(pred)))


# 6 runs: overfit TP x2 + FN x1 (predicted plateau), one FP overfit on a healthy run,
# one clean healthy, one nan+exploding run where only nan is found.
RUNS = [
    S("a", ["overfit"], {"overfit"}),
    S("b", ["overfit"], {"overfit", "loss_spikes"}),
    S("c", ["overfit"], {"plateau"}),
    S("d", ["healthy"], {"overfit"}),
    S("e", ["healthy"], set()),
    S("f", ["nan", "exploding"], {"nan"}),
]


def test_precision_recall_f1_on_a_known_confusion() -> None:
    t = per_label(RUNS)
    assert t["overfit"]["tp"] == 2 and t["overfit"]["support"] == 3
    assert t["overfit"]["precision"] == pytest.approx(2 / 3)
    assert t["overfit"]["recall"] == pytest.approx(2 / 3)
    assert t["overfit"]["f1"] == pytest.approx(2 / 3)
    # healthy: 2 true, predicted healthy only on "e"
    assert t["healthy"]["precision"] == pytest.approx(1.0)
    assert t["healthy"]["recall"] == pytest.approx(0.5)
    assert t["healthy"]["f1"] == pytest.approx(2 / 3)
    assert t["exploding"]["recall"] == 0.0 and t["exploding"]["f1"] == 0.0
    assert t["nan"]["f1"] == pytest.approx(1.0)
    # labels only predicted, never true, have no support and stay out of the macro average
    assert t["plateau"]["support"] == 0 and t["loss_spikes"]["support"] == 0
    expected = (2 / 3 + 2 / 3 + 0.0 + 1.0) / 4  # overfit, healthy, exploding, nan
    assert macro_f1(t) == pytest.approx(expected)


def test_false_alarms_agreement_and_confusion() -> None:
    assert false_alarm_rate(RUNS) == pytest.approx(0.5)
    assert false_alarm_rate([S("x", ["nan"], {"nan"})]) is None
    agrees = {s.name: s.agrees for s in RUNS}
    # b: primary found, verdict overfit (more severe than loss_spikes) is true -> agrees
    assert agrees == {"a": True, "b": True, "c": False, "d": False, "e": True, "f": True}
    # a more severe unexpected label makes the verdict wrong
    assert not S("g", ["overfit"], {"overfit", "exploding"}).agrees
    assert S("f", ["nan", "exploding"], {"nan"}).verdict == "nan"
    conf = confusion(RUNS)
    assert conf["overfit"] == {"overfit": 2, "loss_spikes": 1, "plateau": 1}
    assert conf["healthy"] == {"overfit": 1, "healthy": 1}
    res = summary(RUNS)
    assert res["agreement"] == pytest.approx(4 / 6)
    assert res["exact_match"] == pytest.approx(2 / 6)  # a and e
    assert res["worst_label"] == ("exploding", 0.0)


def test_normalise_treats_healthy_as_no_finding() -> None:
    assert normalise([]) == {"healthy"}
    assert normalise(["healthy", "nan"]) == {"nan"}


@pytest.mark.slow
def test_evaluate_script_on_a_small_labelled_slice(tmp_path: Path) -> None:
    """The script reads a corpus folder (runs/ + labels.json), diagnoses it, prints JSON."""
    labels = json.loads((SAMPLE_RUNS / "labels.json").read_text())
    names = sorted(labels)[:4]
    runs = tmp_path / "runs"
    runs.mkdir()
    for n in names:
        (runs / n).symlink_to(SAMPLE_RUNS / n, target_is_directory=True)
    (tmp_path / "labels.json").write_text(json.dumps({n: labels[n] for n in names}))
    proc = subprocess.run(
        [
            sys.executable,
            str(REPO / "benchmarks" / "evaluate.py"),
            "--corpus",
            "--json",
            "--corpus-path",
            str(tmp_path),
        ],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=REPO,
    )
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    corpus = report["corpus"]
    assert corpus["runs"] == 4
    assert {r["name"] for r in corpus["runs_detail"]} == set(names)
    for r in corpus["runs_detail"]:
        assert r["truth"] == labels[r["name"]]["label"]
    assert 0.0 <= corpus["macro_f1"] <= 1.0
    assert "real" not in report


@pytest.mark.slow
def test_evaluate_script_on_the_committed_corpus_slice() -> None:
    corpus = REPO / "benchmarks" / "corpus" / "corpus.tar.xz"
    if not corpus.is_file():
        pytest.skip("benchmarks/corpus/corpus.tar.xz not generated")
    proc = subprocess.run(
        [
            sys.executable,
            str(REPO / "benchmarks" / "evaluate.py"),
            "--corpus",
            "--json",
            "--limit",
            "3",
        ],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=REPO,
    )
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert 3 <= report["corpus"]["runs"] <= 9  # a W&B entry expands to its runs
    assert not [m for m in report["messages"] if "unreadable" in m], report["messages"]
