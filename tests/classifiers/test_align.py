import numpy as np
import pytest
from lossforensics.classifiers._align import (
    closest_name,
    detrended_noise,
    finite_curve,
    levels_at,
    score_noise,
    shared_axis,
)

from tests.classifiers._labelled import run_of


def test_levels_at_takes_the_median_of_the_stretch_before_each_eval():
    steps = np.arange(1, 101)
    levels = levels_at(steps.astype(float), steps.astype(float), np.array([0.0, 10.0, 100.0]))
    assert np.isnan(levels[0])  # an eval before any training point
    assert levels[1] == pytest.approx(5.5) and levels[2] == pytest.approx(55.5)


def test_epoch_index_is_mapped_onto_optimizer_steps():
    mapped = shared_axis(np.arange(0, 15000.0), np.arange(10.0))
    assert mapped[0] == pytest.approx(1499.9, rel=1e-3) and mapped[-1] == pytest.approx(14999)
    same = shared_axis(np.arange(0, 100.0), np.array([10.0, 50.0, 99.0]))
    assert list(same) == [10.0, 50.0, 99.0]


def test_a_score_is_known_to_half_its_smallest_printed_step():
    """A validation accuracy on a small set at 0.5 six times and 0.56 once: its detrended noise
    is 0, against which its one move read as 714,286 sigmas of gain. A score on n examples moves
    in steps of 1/n; its noise is at least half its smallest step."""
    acc = np.array([0.5, 0.5, 0.5, 0.5, 0.5, 0.56, 0.5])
    assert detrended_noise(acc) == 0.0
    assert score_noise(acc) == pytest.approx(0.03)
    # a smoothly varying score keeps its own noise: its steps between values are far smaller
    smooth = 0.8 + 0.01 * np.sin(np.arange(30)) + 0.0001 * np.arange(30)
    assert score_noise(smooth) == pytest.approx(detrended_noise(smooth))


def test_detrended_noise_ignores_a_steady_trend():
    x = np.arange(50.0)
    assert detrended_noise(3.0 - 0.05 * x) == pytest.approx(0.0, abs=1e-12)
    noisy = 3.0 - 0.05 * x + 0.1 * np.random.default_rng(0).standard_normal(50)
    assert 0.05 < detrended_noise(noisy) < 0.2


def test_closest_name_pairs_eval_sets():
    names = ["eval_g0_accuracy", "eval_g3_accuracy", "eval_g5_accuracy"]
    assert closest_name(names, "eval_g3_loss") == "eval_g3_accuracy"
    assert closest_name([], "val_loss") is None


def test_closest_name_reads_the_whole_set_in_a_per_class_breakdown():
    # seqeval's scores per entity, then overall: one entity's F1 is not the run's
    per_entity = [f"eval_T{k:03d}_{s}" for k in (5, 7, 17) for s in ("f1", "precision", "recall")]
    overall = ["eval_overall_accuracy", "eval_overall_f1"]
    assert closest_name(per_entity + overall, "eval_loss") == "eval_overall_accuracy"
    # near miss: two scores of the whole set keep the given order (no breakdown to skip)
    assert closest_name(["eval_accuracy", "eval_macro_f1"], "eval_loss") == "eval_accuracy"
    assert closest_name(["val_F1_score", "val_accuracy"], "val_loss") == "val_F1_score"


def test_finite_curve_is_reduced_once_and_read_only():
    steps = np.arange(10000)
    run = run_of(loss=(steps, np.where(steps % 7 == 0, np.nan, 1.0 / (1 + steps))))
    x, y = finite_curve(run, "train_loss")
    assert len(y) <= 4000 and np.all(np.isfinite(y))
    assert finite_curve(run, "train_loss")[1] is y
    with pytest.raises(ValueError):
        y[0] = 1.0
    assert finite_curve(run, "val_loss")[0].size == 0


def test_levels_at_of_a_source_out_of_step_order_are_those_of_the_sorted_source():
    rng = np.random.default_rng(5)
    for _ in range(50):
        x = np.sort(rng.choice(5000, size=int(rng.integers(1, 400)), replace=False)).astype(float)
        y = np.round(rng.standard_normal(len(x)), 1) + 3.0
        at = np.sort(rng.choice(5000, size=int(rng.integers(1, 40)), replace=False)).astype(float)
        shuffled = rng.permutation(len(x))
        assert np.array_equal(
            levels_at(x[shuffled], y[shuffled], at), levels_at(x, y, at), equal_nan=True
        )
