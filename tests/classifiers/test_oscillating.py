import numpy as np
from lossforensics.classifiers.oscillating import Oscillating

from tests.classifiers._labelled import judge, real_outcomes, run_of

RNG = np.random.default_rng(4)
STEPS = np.arange(600)


def test_large_swings_around_a_flat_trend():
    loss = 1.2 + 0.4 * np.sin(STEPS / 6.0) + 0.05 * RNG.standard_normal(len(STEPS))
    f = judge(Oscillating(), run_of(loss=(STEPS, loss)))
    assert f is not None and f.span.start_step == 0 and f.span.end_step == 599
    assert f.evidence["swing_ratio"] > 0.15 and f.evidence["trend_move"] < 0.3
    assert f.confidence > 0.7


def test_negative_loss_swinging():
    loss = -2.0 + 0.5 * np.sin(STEPS / 5.0) + 0.02 * RNG.standard_normal(len(STEPS))
    assert judge(Oscillating(), run_of(loss=(STEPS, loss))) is not None


def test_healthy_noisy_descent_is_not_oscillating():
    loss = 0.2 + 2.0 * np.exp(-STEPS / 150) + 0.03 * RNG.standard_normal(len(STEPS))
    assert judge(Oscillating(), run_of(loss=(STEPS, loss))) is None


def test_near_miss_swings_that_ride_a_falling_trend():
    loss = 3.0 * np.exp(-STEPS / 200) + 0.3 + 0.1 * np.sin(STEPS / 4.0)
    assert judge(Oscillating(), run_of(loss=(STEPS, loss))) is None


def test_per_epoch_logging_is_skipped_with_a_reason():
    ep = np.arange(15)
    run = run_of(loss=(ep, 1 + 0.5 * (-1.0) ** ep))
    assert "needs at least 30" in Oscillating().skip_reason(run)


def test_no_real_run_is_called_oscillating_where_it_is_not(real_runs):
    assert not [
        e for e, fired, want in real_outcomes(real_runs, Oscillating()) if fired and not want
    ]
