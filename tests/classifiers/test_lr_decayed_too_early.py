import numpy as np
import pytest
from lossforensics.classifiers.lr_decayed_too_early import LrDecayedTooEarly

from tests.classifiers._labelled import assert_matches_real_labels, judge, run_of

RNG = np.random.default_rng(3)
STEPS = np.arange(0, 4000, 20)


def _loss_that_follows(lr, steps=STEPS, noise=0.02):
    """Progress proportional to the LR: the loss stops where the LR vanishes."""
    progress = np.cumsum(lr / lr.max()) / len(steps)
    return 0.8 + 2.0 * np.exp(-4 * progress) + noise * RNG.standard_normal(len(steps))


def _warmup_cosine(steps=STEPS, warm=0.05):
    t = steps / steps[-1]
    return np.where(t < warm, t / warm, 0.5 * (1 + np.cos(np.pi * (t - warm) / (1 - warm))))


def test_step_cut_early_fires_with_its_span():
    lr = np.where(STEPS < 1500, 5e-5, 2.5e-6)
    run = run_of(total_loss=(STEPS, _loss_that_follows(lr)), lr=(STEPS, lr))
    f = judge(LrDecayedTooEarly(), run)
    assert f is not None and f.label == "lr_decayed_too_early"
    assert f.span.start_step == 1500 and f.span.end_step == STEPS[-1]
    assert f.evidence["lr_drop_factor"] == pytest.approx(20.0)
    assert 0.3 < f.evidence["decay_fraction"] < 0.45 and f.evidence["cuts"] == 1


def test_plateau_scheduler_cuts_in_epochs_fire():
    ep = np.arange(24)
    lr = 1e-3 * 0.2 ** np.minimum(np.searchsorted([4, 8, 13, 16], ep, side="right"), 4)
    loss = 0.026 + 0.03 * np.exp(-np.cumsum(lr / 1e-3) / 2.5)
    f = judge(LrDecayedTooEarly(), run_of(loss=(ep, loss), lr=(ep, lr)))
    assert f is not None and f.evidence["cuts"] >= 3


def test_cosine_to_zero_at_the_end_is_healthy():
    lr = 3e-4 * _warmup_cosine()
    run = run_of(loss=(STEPS, _loss_that_follows(lr)), lr=(STEPS, lr))
    assert judge(LrDecayedTooEarly(), run) is None


def test_linear_decay_with_warmup_is_healthy():
    t = STEPS / STEPS[-1]
    lr = np.where(t < 0.1, t / 0.1, (1 - t) / 0.9) * 1e-2 + 1e-5
    run = run_of(loss=(STEPS, _loss_that_follows(lr)), lr=(STEPS, lr))
    assert judge(LrDecayedTooEarly(), run) is None


def test_near_miss_early_cut_but_loss_keeps_improving():
    lr = np.where(STEPS < 1500, 5e-5, 2.5e-6)
    loss = 0.5 + 2.0 * np.exp(-STEPS / 1500) + 0.01 * RNG.standard_normal(len(STEPS))
    assert judge(LrDecayedTooEarly(), run_of(loss=(STEPS, loss), lr=(STEPS, lr))) is None


def test_near_miss_progress_slows_after_a_cut_but_continues():
    lr = np.where(STEPS < 1200, 1e-3, 1e-4)
    t = STEPS / STEPS[-1]
    loss = np.where(t < 0.3, 1.8 - 5.3 * t, 0.21 - 0.14 * (t - 0.3) / 0.7)
    loss = loss + 0.005 * RNG.standard_normal(len(STEPS))
    assert judge(LrDecayedTooEarly(), run_of(loss=(STEPS, loss), lr=(STEPS, lr))) is None


def test_near_miss_cut_after_the_loss_had_already_converged():
    lr = np.where(STEPS < 1500, 5e-5, 2.5e-6)
    loss = 1.0 + 2.0 * np.exp(-STEPS / 150) + 0.01 * RNG.standard_normal(len(STEPS))
    assert judge(LrDecayedTooEarly(), run_of(loss=(STEPS, loss), lr=(STEPS, lr))) is None


def test_warm_restarts_do_not_count_as_staying_low():
    lr = 1e-3 * (0.5 * (1 + np.cos(np.pi * (STEPS % 1000) / 1000)))
    run = run_of(loss=(STEPS, _loss_that_follows(lr)), lr=(STEPS, lr))
    assert judge(LrDecayedTooEarly(), run) is None


def test_constant_lr_and_zero_lr_are_quiet():
    loss = 0.5 + np.exp(-STEPS / 500)
    for lr in (np.full(len(STEPS), 1e-3), np.zeros(len(STEPS))):
        assert judge(LrDecayedTooEarly(), run_of(loss=(STEPS, loss), lr=(STEPS, lr))) is None


def test_negative_loss_and_sparse_lr_logging():
    lr_steps = STEPS[::10]
    lr = np.where(lr_steps < 1200, 1e-3, 1e-5)
    full_lr = np.where(STEPS < 1200, 1e-3, 1e-5)
    run = run_of(loss=(STEPS, _loss_that_follows(full_lr) - 5.0), lr=(lr_steps, lr))
    assert judge(LrDecayedTooEarly(), run) is not None


@pytest.mark.slow
def test_real_runs_agree_with_their_labels(real_runs):
    assert_matches_real_labels(real_runs, LrDecayedTooEarly())


def test_a_cut_no_schedule_plans_fires_though_the_loss_still_creeps_down():
    # milestones set in steps instead of epochs: x0.01 at 3% and again at 6% of the run; the
    # loss keeps creeping down at 1e-4 of its LR, slower by far than before the cuts
    lr = np.where(STEPS < 120, 0.07, np.where(STEPS < 240, 7e-4, 7e-6))
    loss = 1.0 + 1.2 * np.exp(-STEPS / 60) + 0.3 * (1 - STEPS / STEPS[-1]) ** 2
    loss += 0.01 * RNG.standard_normal(len(STEPS))
    f = judge(LrDecayedTooEarly(), run_of(loss=(STEPS, loss), lr=(STEPS, lr)))
    assert f is not None and f.evidence["post_gain"] > 0.1
    # the same creep after a planned 10x step at 40% of the run is a schedule doing its job
    planned = np.where(STEPS < 1600, 0.07, 7e-3)
    assert judge(LrDecayedTooEarly(), run_of(loss=(STEPS, loss), lr=(STEPS, planned))) is None


def test_the_screened_verdict_is_the_verdict_on_the_whole_measurement():
    """detect turns a run down on the drop's timing and the LR's staying low before it reads
    the loss: only runs that judge turns down on those, with the same finding otherwise."""
    rng = np.random.default_rng(23)
    clf, screened = LrDecayedTooEarly(), 0
    for trial in range(60):
        cut = int(rng.integers(100, 3900))
        lr = np.where(STEPS < cut, 1e-3, 1e-3 * rng.choice([0.01, 0.2, 0.6]))
        if trial % 3 == 0:  # a restart that does not stay low
            lr = np.where(STEPS > cut + int(rng.integers(100, 800)), 1e-3, lr)
        run = run_of(loss=(STEPS, _loss_that_follows(lr)), lr=(STEPS, lr))
        full = clf.measure(run)
        quick = clf.measure(run, screen=True)
        assert quick is None or quick == full
        screened += quick is None and full is not None
        assert clf.detect(run) == (None if full is None else clf.judge(full))
    assert screened > 10


def test_cuts_that_follow_a_stall_at_the_full_rate_are_no_early_decay():
    """ReduceLROnPlateau halving the LR after the loss stopped at 1e-3: each cut buys a little,
    but the loss was flat before the first one, so the decay did not stop it (a json8-like
    chess-engine history). The same cuts while the loss still fell are the finding."""
    ep = np.arange(120)
    lr = 1e-3 * 0.5 ** np.clip((ep - 20) // 6 + 1, 0, 12)
    flat_then_cuts = 0.0232 + 0.0020 * np.exp(-ep / 4) + 0.0001 * (lr / 1e-3) * (ep >= 20)
    m = LrDecayedTooEarly().measure(run_of(loss=(ep, flat_then_cuts), lr=(ep, lr)))
    assert m is not None and m["gain_before_first_cut"] < 0.005
    assert judge(LrDecayedTooEarly(), run_of(loss=(ep, flat_then_cuts), lr=(ep, lr))) is None
    still_falling = 0.02 + 0.03 * np.exp(-np.cumsum(lr / 1e-3) / 12)
    f = judge(LrDecayedTooEarly(), run_of(loss=(ep, still_falling), lr=(ep, lr)))
    assert f is not None and f.evidence["gain_before_first_cut"] > 0.005
