"""benchmarks/evaluate.py and benchmarks/scoring.py: the scoring on hand-made outcomes, the
alarm and calibration figures, and agreement with ../shared/tools/score_sets.py (which runs the
CLI once a run) on a handful of runs."""

from __future__ import annotations

import importlib.util
import json
import shutil
import sys
from pathlib import Path

import numpy as np
import pytest

from benchmarks.evaluate import LabelledSet, evaluate_set
from benchmarks.scoring import Outcome, ece, loss_alarm, predicted_set, reliability, score
from tests.conftest import REPO, SAMPLE_RUNS

SCORE_SETS = REPO.parent / "shared" / "tools" / "score_sets.py"
EXTERNAL = REPO.parent / "shared" / "external_bench"
LABELS = ("nan", "exploding", "overfit", "plateau", "loss_spikes")


def _out(key, truth, pred, verdicts, conf=None, alarm="", status="ok", set_aside=()):
    return Outcome(key, truth, status, "", pred, verdicts, conf or {}, alarm, list(set_aside))


# a: overfit found; b: overfit + spikes (verdict overfit); c: overfit missed (plateau);
# d: healthy run flagged overfit; e: healthy called healthy; f: nan+exploding, only nan found;
# g: a crash (predicts nothing).
RUNS = [
    _out("a", ["overfit"], ["overfit"], ["overfit"], {"overfit": 0.9}),
    _out("b", ["overfit"], ["loss_spikes", "overfit"], ["overfit"], {"overfit": 0.8}),
    _out("c", ["overfit"], ["plateau"], ["plateau"], {"plateau": 0.7}),
    _out("d", ["healthy"], ["overfit"], ["overfit"], {"overfit": 0.6}),
    _out("e", ["healthy"], ["healthy"], ["healthy"], alarm="non-finite loss"),
    _out("f", ["nan", "exploding"], ["nan"], ["nan"], {"nan": 1.0}),
    _out("g", ["plateau"], [], [], status="crash"),
]


def test_scores_on_a_known_confusion() -> None:
    sc = score(RUNS, LABELS)
    t = sc["labels"]
    assert (t["overfit"]["tp"], t["overfit"]["fp"], t["overfit"]["fn"]) == (2, 1, 1)
    assert t["overfit"]["f1"] == pytest.approx(2 / 3)
    assert t["healthy"]["precision"] == 1.0 and t["healthy"]["recall"] == 0.5
    assert t["plateau"]["fn"] == 1 and t["plateau"]["fp"] == 1  # g missed, c wrongly
    # macro-F1 over every label in a truth or a prediction, support or not
    assert set(t) == {"exploding", "healthy", "loss_spikes", "nan", "overfit", "plateau"}
    assert sc["macro_f1"] == pytest.approx(sum(v["f1"] for v in t.values()) / 6)
    assert sc["verdict_is_primary"] == pytest.approx(4 / 7)  # a, b, e, f
    assert (sc["healthy_runs"], sc["healthy_false_alarms"]) == (2, 1)
    assert sc["healthy_false_alarm_rate"] == 0.5
    assert sc["crashes"] == 1
    assert sc["missed_alarms"] == 1 and sc["missed_alarm_runs"] == ["e"]


def test_a_missed_alarm_set_aside_by_the_check_that_judges_it_is_told_apart() -> None:
    rise = "loss level rose 5.8x above its earlier low"
    runs = [
        _out(
            "nan_told",
            ["healthy"],
            ["healthy"],
            ["healthy"],
            alarm="non-finite loss",
            set_aside=["nan"],
        ),
        _out(
            "rise_told", ["healthy"], ["healthy"], ["healthy"], alarm=rise, set_aside=["exploding"]
        ),
        # a reason from a check that does not judge the sign answers nothing
        _out(
            "rise_wrong_check", ["healthy"], ["healthy"], ["healthy"], alarm=rise, set_aside=["nan"]
        ),
        _out("silent", ["healthy"], ["healthy"], ["healthy"], alarm="non-finite loss"),
        # a run with a finding is no missed alarm, whatever it set aside
        _out("found", ["nan"], ["nan"], ["nan"], {"nan": 0.9}, alarm="non-finite loss"),
    ]
    sc = score(runs, LABELS)
    assert sc["missed_alarms"] == 4  # set aside or not, they are all still counted
    assert sc["missed_alarms_set_aside"] == 2
    assert sc["missed_alarm_runs_set_aside"] == ["nan_told", "rise_told"]


def test_predicted_set_is_formed_as_score_sets_forms_it() -> None:
    d1 = {"verdict": "healthy", "findings": []}
    d2 = {"verdict": "nan", "findings": [{"label": "nan"}, {"label": "exploding"}]}
    assert predicted_set([d1]) == (["healthy"], ["healthy"])
    assert predicted_set([d1, d2]) == (["exploding", "nan"], ["healthy", "nan"])
    assert predicted_set([{"verdict": "inconclusive", "findings": []}])[0] == ["inconclusive"]


def test_ece_on_known_pairs() -> None:
    conf = np.array([0.0, 0.0, 0.0, 0.0, 0.95, 0.95, 0.55, 0.55])
    hit = np.array([0, 0, 0, 1, 1, 1, 1, 0], dtype=float)
    # bin 0: conf 0 vs 0.25 hit; bin 9: 0.95 vs 1; bin 5: 0.55 vs 0.5
    expected = (4 * 0.25 + 2 * 0.05 + 2 * 0.05) / 8
    assert ece(conf, hit) == pytest.approx(expected)
    assert [n for _, _, n in reliability(conf, hit)] == [4, 2, 2]
    # the pairs: every (run, label), 0 where nothing was found
    sc = score(RUNS[:2], LABELS)
    assert sc["ece"] == pytest.approx((0.1 + 0.2) / 10)  # overfit 0.9 and 0.8, both true


def test_loss_alarm_catches_nan_and_a_sustained_rise_not_floor_noise() -> None:
    rng = np.random.default_rng(0)
    falling = 2.0 * np.exp(-np.arange(200) / 30) + 0.05
    assert loss_alarm([falling]) == ""
    assert loss_alarm([np.r_[falling, np.nan]]) == "non-finite loss"
    assert "rose" in loss_alarm([np.r_[falling, np.full(40, 0.6)]])  # 0.05 -> 0.6, sustained
    assert loss_alarm([np.r_[falling, 0.6, falling[-5:]]]) == ""  # one point is not a level
    floor = np.r_[falling[:100], 0.001 + 0.004 * rng.random(300)]  # noise near a zero floor
    assert loss_alarm([floor]) == ""


@pytest.mark.slow
def test_figures_agree_with_score_sets_on_a_handful_of_runs(tmp_path: Path) -> None:
    """The in-process evaluation and score_sets.py (the CLI once a run) give the same outcome
    per run and the same scores, on sample runs and, when present, a slice of external_bench."""
    if not SCORE_SETS.is_file():
        pytest.skip("../shared/tools/score_sets.py is absent (it exists beside the team checkout)")
    cli = shutil.which("lossforensics", path=str(Path(sys.executable).parent))
    if cli is None:
        pytest.skip("the lossforensics console script is not installed beside this Python")
    spec = importlib.util.spec_from_file_location("score_sets", SCORE_SETS)
    score_sets = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(score_sets)

    labelled = tmp_path / "set"
    (labelled / "runs").mkdir(parents=True)
    labels = json.loads((SAMPLE_RUNS / "labels.json").read_text())
    picked = {k: labels[k] for k in sorted(labels)[:4]}
    for k in picked:
        shutil.copytree(SAMPLE_RUNS / k, labelled / "runs" / k)
    if (EXTERNAL / "labels.json").is_file():
        ext = json.loads((EXTERNAL / "labels.json").read_text())
        for k in sorted(ext)[:4]:
            picked[k] = ext[k]
            shutil.copytree(EXTERNAL / "runs" / k, labelled / "runs" / k)
    (labelled / "labels.json").write_text(json.dumps(picked))

    mine = evaluate_set(LabelledSet("handful", labelled, False))
    tasks = score_sets.tasks_of(str(labelled), str(tmp_path / "copies"))
    theirs = [score_sets.run_one(cli, t, 300) for t in tasks]
    assert [(o.key, o.pred, o.verdicts) for o in mine] == [
        (r["key"], r["pred"], r["verdicts"]) for r in theirs
    ]
    ours = score(mine, LABELS)
    reference = score_sets.score(theirs)
    for key in ("runs", "macro_f1", "verdict_is_primary", "healthy_runs", "crashes"):
        assert ours[key] == pytest.approx(reference[key]), key
    assert ours["healthy_false_alarms"] == reference["healthy_false_alarms"]
    assert set(ours["labels"]) == set(reference["labels"])
    for label, row in reference["labels"].items():
        assert ours["labels"][label] == pytest.approx(row), label


@pytest.mark.slow
def test_evaluate_script_writes_one_json_for_the_sets_present(tmp_path: Path) -> None:
    from benchmarks.evaluate import main

    out = tmp_path / "eval.json"
    assert main(["--set", "sample_runs", "--out", str(out)]) == 0
    report = json.loads(out.read_text())
    sc = report["sets"]["sample_runs"]["scores"]
    assert sc["runs"] == len(json.loads((SAMPLE_RUNS / "labels.json").read_text()))
    assert sc["crashes"] == 0 and 0.0 <= sc["macro_f1"] <= 1.0 and sc["ece"] is not None
    assert main(["--path", str(tmp_path / "absent"), "--out", str(out)]) == 1
