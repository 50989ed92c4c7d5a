"""A held-out score that stood still while the training loss collapsed (no validation loss):
plateau of what the run is for, with overfit's memorisation beside it."""

import numpy as np
import pytest
from lossforensics.classifiers._score_stall import held_out_stall
from lossforensics.classifiers.diagnose import diagnose
from lossforensics.classifiers.overfit import Overfit
from lossforensics.classifiers.plateau import Plateau

from tests.classifiers._labelled import frame_of, judge, run_of


def _series(score: np.ndarray, train_end: float = 0.004, with_val_loss: bool = False) -> dict:
    """20 epochs of 100 train steps, the train loss falling from 2.0 to `train_end`
    exponentially; `score` logged at 10 evaluations (every 2 epochs)."""
    rng = np.random.default_rng(0)
    steps = np.arange(1, 2001)
    loss = 2.0 * (train_end / 2.0) ** (steps / 2000) * (1 + 0.05 * rng.standard_normal(2000))
    evals = np.arange(200, 2001, 200)
    series = {"train_loss": (steps, loss), "val_bleu": (evals, score)}
    if with_val_loss:
        series["val_loss"] = (evals, np.linspace(1.0, 1.2, 10))
    return series


FLAT_BLEU = np.array([65.8, 67.6, 66.9, 66.8, 66.9, 67.0, 67.8, 68.3, 67.6, 68.3])


def test_a_flat_held_out_score_beside_a_collapsing_train_loss_is_a_plateau_and_overfit():
    run = run_of(**_series(FLAT_BLEU))
    plateau, overfit = judge(Plateau(), run), judge(Overfit(), run)
    assert plateau is not None and plateau.evidence["kind"] == "held_out_stall"
    assert overfit is not None and overfit.evidence["reading"] == "held_out_stall"
    assert plateau.evidence["score_metric"] == "val_bleu"
    assert plateau.evidence["train_fall_log_after_stall"] > np.log(4)


def test_the_stall_leads_the_verdict_and_both_labels_stay():
    d = diagnose(frame_of(**_series(FLAT_BLEU)))
    assert d.verdict == "plateau"
    assert {f.label for f in d.findings} >= {"plateau", "overfit"}


def test_a_score_still_climbing_is_quiet():
    climbing = np.linspace(40.0, 68.0, 10)
    run = run_of(**_series(climbing))
    assert judge(Plateau(), run) is None and judge(Overfit(), run) is None


def test_a_score_already_at_its_ceiling_has_converged():
    # 98.6% accuracy from the first third on: nothing left to gain, not a stall
    acc = np.array([0.67, 0.93, 0.986, 0.987, 0.986, 0.988, 0.986, 0.989, 0.986, 0.989])
    series = _series(acc)
    series["val_accuracy"] = series.pop("val_bleu")
    run = run_of(**series)
    assert held_out_stall(run) is not None
    assert judge(Plateau(), run) is None and judge(Overfit(), run) is None


def test_a_train_loss_that_falls_only_a_little_is_not_memorising():
    run = run_of(**_series(FLAT_BLEU, train_end=0.9))
    assert judge(Overfit(), run) is None


def test_a_score_that_fell_is_overfit_alone():
    falling = np.array([60.0, 64.0, 66.0, 63.0, 61.0, 60.0, 58.0, 57.0, 56.0, 55.0])
    run = run_of(**_series(falling))
    assert judge(Overfit(), run) is not None
    assert judge(Plateau(), run) is None


def test_with_a_validation_loss_the_score_is_read_by_overfit_and_metric_mismatch_instead():
    run = run_of(**_series(FLAT_BLEU, with_val_loss=True))
    assert held_out_stall(run) is None


@pytest.mark.slow
def test_real_t5_bleu_plateau(real_runs_more):
    from lossforensics.ingest import load_run

    d = diagnose(load_run(str(real_runs_more / "textlog_t5_bleu_plateau_train_to_zero")).frame)
    assert d.verdict == "plateau"
    labels = {f.label: f for f in d.findings}
    assert labels["overfit"].evidence["reading"] == "held_out_stall"
