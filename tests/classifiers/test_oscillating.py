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
    # with a validation loss at the same epochs the short path judges it
    assert (
        Oscillating().skip_reason(
            run_of(loss=(ep, 1 + 0.5 * (-1.0) ** ep), val_loss=(ep, ep + 1.0))
        )
        is None
    )


def test_no_real_run_is_called_oscillating_where_it_is_not(real_runs):
    assert not [
        e for e, fired, want in real_outcomes(real_runs, Oscillating()) if fired and not want
    ]


def test_an_epoch_loss_jittering_beside_a_calm_val_loss_is_noise_not_oscillation():
    # a segmentation U-Net, 35 epochs: the train loss settles at 0.06 and jitters +-10% from
    # epoch to epoch while the val loss, evaluated every epoch, glides down smoothly
    ep = np.arange(35)
    rng = np.random.default_rng(3)
    train = np.r_[[1.39, 0.48, 0.105, 0.078], 0.058 + 0.016 * rng.standard_normal(31)]
    val = np.r_[[0.785, 0.196, 0.074], 0.057 + 0.013 * np.exp(-np.arange(32) / 6)]
    ev = Oscillating().measure(run_of(loss=(ep, train), val_loss=(ep, val)))
    assert ev is not None and ev["swing_ratio"] >= 0.1  # the train alone would read as swings
    assert judge(Oscillating(), run_of(loss=(ep, train), val_loss=(ep, val))) is None


def test_a_short_epoch_log_whose_val_loss_swings_wildly_while_training_stalls_oscillates():
    # 9 epochs of a small classifier: val loss jumps between 0.2 and 2.0, train barely moves
    ep = np.arange(9)
    train = np.array([0.602, 0.605, 0.555, 0.548, 0.481, 0.510, 0.458, 0.507, 0.527])
    val = np.array([0.572, 0.531, 0.542, 0.756, 0.218, 0.445, 1.150, 0.316, 2.032])
    f = judge(Oscillating(), run_of(loss=(ep, train), val_loss=(ep, val)))
    assert f is not None and f.summary.startswith("Validation loss swings")
    # the same val beside a training loss that falls sixfold: training learns (not a swing)
    falling = 0.5 * np.exp(-ep / 4) + 0.08
    assert judge(Oscillating(), run_of(loss=(ep, falling), val_loss=(ep, val))) is None
    # and the training loss alone is too short to judge
    assert judge(Oscillating(), run_of(loss=(ep, train))) is None


def test_a_converged_models_val_loss_swinging_near_zero_is_no_oscillation():
    # 8 epochs at 99.5-100% val accuracy: the val loss moves 0.0007-0.011, swings of the
    # confidence of a handful of examples; the same val beside an accuracy of 80% oscillates
    ep = np.arange(8)
    train = np.array([0.0031, 0.0029, 0.0027, 0.0030, 0.0026, 0.0028, 0.0025, 0.0027])
    val = np.array([0.0028, 0.0053, 0.0011, 0.0007, 0.0024, 0.0109, 0.0011, 0.0018])
    top = np.array([0.995, 0.995, 1.0, 1.0, 0.995, 0.995, 1.0, 1.0])
    run = run_of(loss=(ep, train), val_loss=(ep, val), val_accuracy=(ep, top))
    assert judge(Oscillating(), run) is None
    low = run_of(loss=(ep, train), val_loss=(ep, val), val_accuracy=(ep, top - 0.2))
    f = judge(Oscillating(), low)
    assert f is not None and f.summary.startswith("Validation loss swings")


def test_a_loss_bouncing_ever_higher_oscillates_its_rise_is_no_progress():
    # Adam at 80x its LR with beta1 0.99: the loss bounces between 0.3 and 6 with a trend that
    # drifts up; a trend that moved is progress only when it fell
    steps = np.arange(0, 520, 2)
    trend = 1.0 + 1.5 * steps / steps[-1]
    loss = trend * np.exp(0.7 * np.sin(steps / 9.0) + 0.3 * RNG.standard_normal(len(steps)))
    f = judge(Oscillating(), run_of(loss=(steps, loss)))
    assert f is not None and f.evidence["trend_progress"] < 0 and f.evidence["trend_move"] > 0.3


def test_the_verdict_read_without_lag1_is_the_verdict_read_with_it():
    """detect decides on a measurement without the residuals' autocorrelation (evidence only)
    and measures again with it for a run that swings: both readings agree on everything else."""
    rng = np.random.default_rng(41)
    clf, swung = Oscillating(), 0
    for trial in range(80):
        n = int(rng.integers(30, 900))
        x = np.arange(n)
        amp = rng.uniform(0, 0.6)
        loss = 1.0 + rng.uniform(-3, 1) * (trial % 2) + amp * np.sin(x / rng.uniform(2, 20))
        loss += rng.uniform(0, 1) * np.exp(-x / 100) + 0.05 * rng.standard_normal(n)
        run = run_of(loss=(x, loss))
        full, quick = clf.measure(run), clf.measure(run, lag1=False)
        assert full is not None and quick is not None and quick["lag1"] is None
        assert {**quick, "lag1": full["lag1"]} == full
        assert list(quick) == list(full)
        # the screen (the trend's ends first) turns down only what does not oscillate, and
        # measures the rest exactly as the whole trend does
        screened = clf.measure(run, lag1=False, screen=True)
        assert screened == quick if screened is not None else not clf.oscillates(full)
        swung += clf.oscillates(full)
        assert clf.detect(run) == (clf.judge(full) if clf.oscillates(full) else None)
    assert 10 < swung < 70


def test_swings_that_keep_their_size_as_the_lr_decays_are_batch_noise():
    """A chat fine-tune at batch size 1: each logged loss is a few samples', swinging +-35%
    around a level that barely moves, while a linear schedule takes the LR from 5e-5 to 0.
    A step too large for the loss surface swings less as the step shrinks; these swings keep
    their size to the end: the batches' noise, not oscillation. The near miss, the same swings
    shrinking with the LR, oscillates."""
    rng = np.random.default_rng(8)
    steps = np.arange(10, 3010, 10)
    lr = 5e-5 * (1 - steps / 3000)
    noise = rng.standard_normal(len(steps))
    kept = 0.18 * (1 + 0.35 * noise)
    assert judge(Oscillating(), run_of(loss=(steps, kept), lr=(steps, lr))) is None
    shrinking = 0.18 * (1 + 0.35 * noise * (0.1 + lr / 5e-5))
    f = judge(Oscillating(), run_of(loss=(steps, shrinking), lr=(steps, lr)))
    assert f is not None
    # without a logged LR nothing says which: the swings are read as they are
    assert judge(Oscillating(), run_of(loss=(steps, kept))) is not None
