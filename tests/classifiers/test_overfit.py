import numpy as np
import pytest
from lossforensics.classifiers.diagnose import diagnose
from lossforensics.classifiers.overfit import Overfit

from tests.classifiers._labelled import assert_matches_real_labels, judge, run_of

RNG = np.random.default_rng(7)


def _train(steps, lo=0.05):
    return lo + 2.0 * np.exp(-steps / (0.25 * steps[-1]))


def _overfit_val(steps, min_at, rise=0.6, noise=0.01):
    base = 0.6 + 1.5 * np.exp(-steps / (0.3 * min_at))
    after = np.clip(steps - min_at, 0, None) / (steps[-1] - min_at)
    return base + rise * after + noise * RNG.standard_normal(len(steps))


def test_fires_after_the_val_minimum_with_its_span():
    ep = np.arange(40)
    run = run_of(loss=(ep, _train(ep)), val_loss=(ep, _overfit_val(ep, min_at=15)))
    f = judge(Overfit(), run)
    assert f is not None and f.label == "overfit"
    assert 12 <= f.span.start_step <= 18 and f.span.end_step == 39
    assert f.evidence["val_rise_pct"] > 20 and 0.25 < f.evidence["val_min_fraction"] < 0.5
    assert f.confidence > 0.8


def test_val_logged_100x_less_often_and_in_other_units_of_time():
    steps = np.arange(0, 20001)
    evals = np.arange(1000, 20001, 1000)
    run = run_of(
        loss=(steps, _train(steps) + 0.05 * RNG.standard_normal(len(steps))),
        val_loss=(evals, _overfit_val(evals, min_at=6000)),
    )
    f = judge(Overfit(), run)
    assert f is not None and 5000 <= f.span.start_step <= 8000


def test_five_evaluations_are_enough_when_the_rise_is_clear():
    steps = np.arange(25, 5001, 25)
    evals = np.array([1000, 2000, 3000, 4000, 5000])
    run = run_of(
        loss=(steps, 0.3 * np.exp(-steps / 250) + 2e-4),
        eval_loss=(evals, np.array([0.321, 0.3585, 0.3937, 0.4123, 0.42])),
    )
    assert judge(Overfit(), run) is not None


def test_step_zero_eval_before_training_does_not_hide_the_minimum():
    ep = np.arange(1, 31)
    val = np.concatenate(([5.7], 1.1 + 0.05 * np.arange(30)))
    run = run_of(loss=(ep, _train(ep)), eval_loss=(np.arange(31), val))
    f = judge(Overfit(), run)
    assert f is not None and f.span.start_step <= 2


def test_healthy_val_still_improving_is_quiet():
    ep = np.arange(30)
    val = 0.3 + 1.0 * np.exp(-ep / 8) + 0.005 * RNG.standard_normal(30)
    assert judge(Overfit(), run_of(loss=(ep, _train(ep)), val_loss=(ep, val))) is None


def test_val_below_train_from_dropout_is_quiet():
    ep = np.arange(20)
    train = 0.2 + np.exp(-ep / 5)
    assert judge(Overfit(), run_of(loss=(ep, train), val_loss=(ep, 0.8 * train))) is None


def test_near_miss_converged_run_whose_val_wobbles_at_its_floor():
    ep = np.arange(30)
    train = np.where(ep < 12, 0.7 - 0.04 * ep, 0.24) + 0.002 * RNG.standard_normal(30)
    val = np.where(ep < 12, 0.36 - 0.009 * ep, 0.253) + 0.0015 * RNG.standard_normal(30)
    assert judge(Overfit(), run_of(loss=(ep, train), val_loss=(ep, val))) is None


def test_train_rising_too_is_not_a_train_val_split():
    ep = np.arange(30)
    val = _overfit_val(ep, min_at=10)
    train = 2.0 - 0.05 * ep + np.where(ep > 10, 0.1 * (ep - 10), 0)
    assert judge(Overfit(), run_of(loss=(ep, train), val_loss=(ep, val))) is None


def test_negative_losses_work():
    ep = np.arange(40)
    run = run_of(loss=(ep, _train(ep) - 10), val_loss=(ep, _overfit_val(ep, 15) - 10))
    assert judge(Overfit(), run) is not None


def test_skips_without_enough_evaluations():
    ep = np.arange(20)
    run = run_of(loss=(ep, _train(ep)), val_loss=(ep[:1], np.array([1.0])))
    assert "needs at least" in Overfit().skip_reason(run)
    two = run_of(loss=(ep, _train(ep)), val_loss=(ep[:2], np.array([1.0, 1.2])))
    assert Overfit().skip_reason(two) is None  # read as a short fine-tune's evaluations


def _epochs_of_steps(per_epoch=100, epochs=3, start=0.39, end=0.11):
    """A fine-tune's per-step training loss over `epochs` epochs, and the epoch-end steps."""
    steps = np.arange(1, per_epoch * epochs + 1)
    loss = end + (start - end) * np.exp(-3 * steps / steps[-1])
    return steps, loss + 0.01 * RNG.standard_normal(len(steps)), steps[per_epoch - 1 :: per_epoch]


def test_three_epochs_whose_val_rises_at_each_evaluation_are_overfit():
    # a 3-epoch BERT fine-tune evaluated once an epoch: 0.318, 0.320, 0.443 while the training
    # loss falls 0.39 -> 0.11 (a real Keras CSVLogger log, 3 rows)
    steps, loss, evals = _epochs_of_steps()
    run = run_of(loss=(steps, loss), val_loss=(evals, np.array([0.318, 0.320, 0.443])))
    f = judge(Overfit(), run)
    assert f is not None and f.evidence["reading"] == "few_evaluations"
    assert f.evidence["evaluations"] == 3 and f.span.start_step == evals[0]
    assert f.evidence["val_rise_pct"] == pytest.approx(39.3, abs=0.1)
    assert f.confidence == 0.5  # inferred: the rise is beyond real val noise, not measured


def test_two_epochs_whose_val_rose_20_percent_are_overfit():
    # a 2-epoch review classifier: eval loss 0.3695 -> 0.4540 (+23%) while the training loss
    # falls from ln 2 to 0.17; near miss: a 10% rise is what two noisy evaluations differ by
    steps = np.arange(1, 201)
    loss = 0.69 - 0.52 * steps / 200 + 0.01 * RNG.standard_normal(200)
    evals = np.array([100, 200])
    f = judge(Overfit(), run_of(loss=(steps, loss), val_loss=(evals, np.array([0.3695, 0.454]))))
    assert f is not None and f.evidence["reading"] == "few_evaluations"
    assert f.evidence["evaluations"] == 2 and f.confidence == 0.5
    small = run_of(loss=(steps, loss), val_loss=(evals, np.array([0.256, 0.281])))
    assert judge(Overfit(), small) is None


def test_few_evaluations_within_real_val_noise_or_with_a_dip_are_not_read():
    steps, loss, evals = _epochs_of_steps(epochs=4)
    for val in ([0.40, 0.32, 0.35, 0.37], [0.40, 0.30, 0.39, 0.37]):  # 16% rise; a dip after
        run = run_of(loss=(steps, loss), val_loss=(evals, np.array(val)))
        assert judge(Overfit(), run) is None, val


def test_four_evaluations_rising_three_times_in_a_row_need_a_smaller_rise():
    # a Whisper-style fine-tune evaluated 4 times, the val rising at each evaluation after the
    # first by 17% in all while the training loss keeps falling: three rises in a row are
    # rarer by chance than two, so a 15% rise suffices
    steps, loss, evals = _epochs_of_steps(epochs=4)
    run = run_of(loss=(steps, loss), val_loss=(evals, np.array([0.300, 0.322, 0.341, 0.351])))
    f = judge(Overfit(), run)
    assert f is not None and f.evidence["reading"] == "few_evaluations"
    assert f.evidence["rises"] == 3 and f.evidence["val_rise_pct"] == pytest.approx(17.0)
    # near misses: the same rise in two steps after a later minimum; a 12% rise in three
    for val in ([0.33, 0.300, 0.322, 0.351], [0.300, 0.310, 0.322, 0.336]):
        run = run_of(loss=(steps, loss), val_loss=(evals, np.array(val)))
        assert judge(Overfit(), run) is None, val


def test_few_evaluations_of_a_val_that_never_learned_are_not_overfit():
    # the val starts above the untrained training loss and only climbs, while training had
    # barely begun at the first evaluation: it never followed (distribution_mismatch's)
    steps = np.arange(1, 301)
    loss = 0.1 + 2.2 * np.exp(-steps / 100)
    run = run_of(loss=(steps, loss), val_loss=(np.array([10, 150, 300]), np.array([2.5, 3.1, 3.8])))
    assert judge(Overfit(), run) is None


def test_few_evaluations_beside_a_blow_up_after_the_last_are_not_overfit():
    steps, loss, evals = _epochs_of_steps()
    loss = loss.copy()
    loss[-20:] = 50.0  # the training loss blew up after the last evaluation's stretch
    run = run_of(loss=(steps, loss), val_loss=(evals, np.array([0.318, 0.40, 0.50])))
    assert judge(Overfit(), run) is None


def test_judge_is_separate_from_measure():
    clf = Overfit()
    m = {
        "evaluations_after": 5,
        "train_drop": 0.9,
        "train_fall_after": 0.3,
        "val_rise_z": 10.0,
        "val_rise_frac": 0.5,
        "val_min_fraction": 0.3,
        "val_min": 1.0,
        "val_late": 1.5,
        "val_rise_pct": 50.0,
        "val_min_step": 3,
        "val_end_step": 9,
        "val_drop_before_z": 5.0,
        "train_done_before_eval": 0.1,
    }
    assert clf.judge(m) is not None
    assert clf.judge({**m, "val_rise_z": 0.2}) is None
    assert clf.judge({**m, "train_drop": 0.01}) is None
    assert clf.judge({**m, "val_drop_before_z": 0.0}) is None  # never improved: not overfit
    assert clf.judge({**m, "val_drop_before_z": 0.0, "train_done_before_eval": 0.9})


def test_val_climbing_from_an_early_first_eval_is_not_overfit():
    ep = np.arange(1, 25)
    val = 2.75 + 0.5 * (1 - np.exp(-ep / 5)) + 0.005 * RNG.standard_normal(24)
    assert judge(Overfit(), run_of(loss=(ep, _train(ep)), val_loss=(ep, val))) is None


def test_nan_bursts_and_repeated_steps_survive():
    ep = np.arange(40)
    val = _overfit_val(ep, 15)
    val[[5, 20, 21]] = np.nan
    steps = np.concatenate((ep, ep[30:]))
    train = np.concatenate((_train(ep), _train(ep)[30:]))
    assert judge(Overfit(), run_of(loss=(steps, train), val_loss=(ep, val))) is not None


@pytest.mark.slow
def test_real_runs_agree_with_their_labels(real_runs):
    assert_matches_real_labels(real_runs, Overfit())


def test_a_fine_tune_whose_val_climbs_from_its_first_evaluation_is_overfit():
    # Whisper-style fine-tune: train 0.89 -> 0.0002, evaluations every 1000 steps; 86% of the
    # train's fall came before the first one, whose val (0.31) was already far below the
    # train's start: the val had improved unseen, then climbs on every evaluation
    steps = np.arange(25, 5001, 25)
    train = 0.89 * np.exp(-steps / 500) + 2e-4
    evals = np.arange(1000, 5001, 1000)
    val = np.array([0.307, 0.356, 0.421, 0.452, 0.468])
    f = judge(Overfit(), run_of(loss=(steps, train), val_loss=(evals, val)))
    assert f is not None and f.evidence["val_first_below_train_start"] is True
    # near miss: a first evaluation already worse than the untrained model was never a fit
    # that then degraded (distribution_mismatch's business), so overfit does not claim it
    worse = val + 0.7
    assert judge(Overfit(), run_of(loss=(steps, train), val_loss=(evals, worse))) is None


def test_minimum_at_a_learned_first_evaluation_is_still_a_minimum():
    # a fine-tune evaluated late: its first evaluation already beat the untrained loss, then the
    # val only climbs while the train memorises (falls 1000x)
    steps = np.arange(1, 2001)
    train = 2.3 * np.exp(-steps / 150) + 1e-3
    vx = np.arange(400, 2001, 100)
    val = 0.45 + 0.25 * (vx - 400) / 1600 + 0.005 * np.sin(vx)
    f = judge(Overfit(), run_of(loss=(steps, train), val_loss=(vx, val)))
    assert f is not None and f.evidence["val_min_fraction"] == 0.0
    assert f.span.start_step == 400


def test_a_learned_first_evaluation_then_a_clear_rise_is_overfit_without_memorisation():
    # per-epoch log whose val never improved after its first evaluation: train falls 11x (not
    # the 20x of memorisation), the val climbs 70% on every evaluation from a first one that
    # had already learned (well below the train's start)
    ep = np.arange(1, 21)
    train = 2.6 * np.exp(-ep / 8.5)
    val = 1.79 + 1.28 * ((ep - 1) / 19) ** 1.5
    f = judge(Overfit(), run_of(loss=(ep, train), val_loss=(ep, val)))
    assert f is not None and f.evidence["val_min_fraction"] == 0.0
    # near miss: the same val creeping up 4% is no clear rise from an unmeasured minimum
    creep = 1.79 + 0.07 * (ep - 1) / 19 + 0.01 * np.sin(ep)
    assert judge(Overfit(), run_of(loss=(ep, train), val_loss=(ep, creep))) is None


def test_an_early_minimum_after_a_val_that_followed_the_train_is_overfit():
    # a Keras fine-tune whose first evaluation is gone (the real deepfake Xception log without
    # epoch 0): the val's smoothed minimum is its third evaluation, the dip before it is within
    # its noise, but the val had followed the train's fall (over 20% of it, more than
    # distribution_mismatch allows a val that did not), then rose 2.6x
    ep = np.arange(1, 12)
    train = np.array([22.1, 17.4, 14.4, 12.3, 10.7, 9.39, 8.16, 7.26, 6.34, 5.73, 5.22]) * 1e-3
    val = np.array([76.5, 141.7, 82.9, 106.0, 112.2, 138.7, 185.2, 206.8, 218.6, 210.1, 237.3])
    run = run_of(loss=(ep, train), val_loss=(ep, val * 1e-3))
    f = judge(Overfit(), run)
    assert f is not None and f.evidence["val_follow_ratio"] > 0.2
    # near misses: the same minimum past the first third of the evaluations (the val stood
    # still first), or a val that followed no more than distribution_mismatch allows
    m = {**f.evidence, "val_end_step": 11}
    assert Overfit().judge({**m, "val_min_fraction": 0.5}) is None
    assert Overfit().judge({**m, "val_follow_ratio": 0.15}) is None
    # ... and a val that stood still from its first evaluation, then rose
    still = np.concatenate((0.14 + 0.001 * np.sin(ep[:5]), val[5:] * 1e-3))
    assert judge(Overfit(), run_of(loss=(ep, train), val_loss=(ep, still))) is None


def test_val_climbing_from_the_untrained_level_is_not_overfit():
    # the first evaluation sits at the untrained loss: nothing transferred (distribution_mismatch)
    steps = np.arange(1, 2001)
    train = 2.3 * np.exp(-steps / 150) + 1e-3
    vx = np.arange(1, 2001, 100)
    val = 2.3 + 3.0 * (vx - 1) / 2000
    assert judge(Overfit(), run_of(loss=(steps, train), val_loss=(vx, val))) is None


def test_a_val_loss_creeping_up_under_2pct_while_its_score_improves_is_not_overfit():
    # a seq2seq fine-tune: eval loss flattens and creeps up 1.3% while ROUGE keeps improving
    steps = np.arange(549, 5491, 549)[:9]
    train = np.array([1.141, 0.642, 0.521, 0.448, 0.398, 0.364, 0.324, 0.299, 0.274])
    val = np.array([0.660, 0.555, 0.519, 0.494, 0.489, 0.4853, 0.487, 0.491, 0.492])
    rouge = np.array([46.5, 48.1, 48.9, 49.6, 50.0, 50.3, 50.8, 50.9, 51.3])
    series = {"loss": (steps, train), "eval_loss": (steps, val)}
    alone = judge(Overfit(), run_of(**series))
    assert alone is not None  # the widening gap alone reads as a stall
    assert judge(Overfit(), run_of(**series, eval_rouge1=(steps, rouge))) is None
    # the same score beside a val loss that rose 8% is overfitting all the same
    rising = val * np.r_[np.ones(6), 1.03, 1.06, 1.08]
    assert (
        judge(
            Overfit(),
            run_of(loss=(steps, train), eval_loss=(steps, rising), eval_rouge1=(steps, rouge)),
        )
        is not None
    )


def _per_step(levels_at_epoch, *, inside=0.0, lr=None, seed=5):
    """4 epochs of 200 logged steps: the loss sits at its epoch's level and moves by `inside`
    (relative) across each epoch; an `epoch` metric counts them."""
    rng = np.random.default_rng(seed)
    steps = np.arange(1, 801)
    ep = (steps - 1) / 200.0
    phase = ep - np.floor(ep)
    level = np.asarray(levels_at_epoch)[np.floor(ep).astype(int)]
    loss = level * (1 - inside * phase) * (1 + 0.03 * rng.standard_normal(800))
    series = {"loss": (steps, loss), "epoch": (steps, ep)}
    if lr is not None:
        series["learning_rate"] = (steps, lr(ep))
    return run_of(**series)


def test_a_loss_falling_in_steps_at_the_epoch_boundaries_is_memorisation():
    f = judge(Overfit(), _per_step([1.5, 1.1, 0.7, 0.4]))
    assert f is not None and f.evidence["reading"] == "staircase"
    assert f.evidence["boundary_drops"] == 3 and f.evidence["boundary_share"] > 0.9


def test_a_loss_falling_steadily_within_the_epochs_is_no_staircase():
    # the same fall spread over the epochs (shuffled data, learning as it goes)
    assert judge(Overfit(), _per_step([1.5, 1.1, 0.7, 0.4], inside=0.3)) is None


def test_a_sawtooth_that_climbs_back_within_each_epoch_is_no_staircase():
    assert judge(Overfit(), _per_step([1.0, 1.0, 1.0, 1.0], inside=-0.4)) is None


def test_drops_where_the_learning_rate_steps_down_each_epoch_are_the_schedules():
    lr = lambda ep: 1e-3 * 0.3 ** np.floor(ep)  # noqa: E731 - a per-epoch step schedule
    assert judge(Overfit(), _per_step([1.5, 1.1, 0.7, 0.4], lr=lr)) is None


def test_a_train_only_log_without_epochs_is_still_skipped_for_want_of_a_val_loss():
    steps = np.arange(100)
    reason = Overfit().skip_reason(run_of(loss=(steps, np.exp(-steps / 30))))
    assert reason is not None and "validation loss" in reason


def test_a_train_only_log_with_one_epoch_boundary_says_why_it_is_not_judged():
    # an SFT run saved at epoch 1.73: one boundary, where the staircase reading needs two
    s = np.arange(0, 600, 5)
    loss = np.where(s < 350, 0.17, 0.065)
    reason = Overfit().skip_reason(run_of(loss=(s, loss), epoch=(s, s / 347)))
    assert reason == (
        "no validation loss logged; the log marks 1 epoch boundary, and the epoch-staircase "
        "reading needs 2"
    )
    assert Overfit().skip_reason(run_of(loss=(s, loss))) == "no validation loss logged"


def test_a_validation_loss_beside_two_training_points_is_not_judged_by_overfit():
    # a Lightning log whose only dense series is its validation MSE (`Valid MSE`, 100 points:
    # its validation loss) and whose training loss was logged twice: nothing can say the
    # training loss fell while the val rose, so overfit does not judge it; plateau judges the
    # val loss alone, so the run is not inconclusive either
    ep = np.arange(100)
    run = run_of(loss=(np.array([49, 99]), np.array([0.9, 0.8])), val_mse=(ep, 1 / (ep + 1)))
    reason = Overfit().skip_reason(run)
    assert reason is not None and "training loss has 2 point(s)" in reason
    d = diagnose(run.frame)
    assert "plateau" not in {s.label for s in d.skipped} and d.verdict != "inconclusive"


@pytest.mark.slow
def test_real_medalpaca_epoch_staircase(real_runs_more):
    from lossforensics.classifiers.run import RunSeries

    from tests.classifiers._labelled import _load

    path = real_runs_more / "hf_medalpaca13b_epoch_staircase_memorisation"
    f = judge(Overfit(), RunSeries(_load(str(path))))
    assert f is not None and f.evidence["reading"] == "staircase"


def test_the_screened_measurement_stops_only_where_judge_turns_the_run_down():
    """detect measures with the screen: a run judge's first tests turn down is measured no
    further (its split tests alone), any other is measured whole."""
    rng = np.random.default_rng(29)
    clf, stopped, fired = Overfit(), 0, 0
    for trial in range(60):
        ep = np.arange(int(rng.integers(8, 60)))
        train = _train(ep) if trial % 4 else _train(ep)[::-1]  # a train loss that rose
        val = (
            _overfit_val(ep, min_at=int(rng.integers(1, len(ep))), rise=rng.uniform(-0.3, 0.8))
            if trial % 3
            else 0.6 + 1.5 * np.exp(-ep / 10.0)  # healthy: its minimum at the end
        )
        run = run_of(loss=(ep, train), val_loss=(ep, val))
        full, quick = clf.measure(run), clf.measure(run, screen=True)
        if full is None:
            assert quick is None
            continue
        if quick != full:
            assert quick == {k: full[k] for k in quick} and clf.judge(full) is None
            stopped += 1
        fired += clf.judge(full) is not None
    assert stopped > 10 and fired > 5


def test_a_val_that_learned_before_its_first_evaluation_then_rose_late_is_overfit():
    # a Keras epoch log: the first val comes after a whole epoch, already below the training
    # loss's start (it learned before anyone measured it); it stands about still to a minimum
    # near the middle of the run, then rises clearly while the training loss keeps falling
    rng = np.random.default_rng(12)
    ep = np.arange(29)
    train = 0.25 + 0.38 * np.exp(-ep / 9) + 0.004 * rng.standard_normal(29)
    val = np.where(ep <= 16, 0.534 - 0.0008 * ep, 0.521 + 0.013 * (ep - 16))
    val = val + 0.015 * rng.standard_normal(29)
    f = judge(Overfit(), run_of(loss=(ep, train), val_loss=(ep, val)))
    assert f is not None and f.evidence["val_first_below_train_start"]
    assert f.evidence["val_drop_before_z"] < 2 and f.evidence["val_min_fraction"] > 1 / 3
    # near miss: the same val starting at the untrained level learned nothing first (the
    # rise from a val that never generalised is distribution_mismatch's to judge)
    untrained = val + (train[0] - val[0]) * 1.02
    assert judge(Overfit(), run_of(loss=(ep, train), val_loss=(ep, untrained))) is None


def test_an_epoch_log_whose_val_falls_then_rises_is_overfit_below_the_first_epochs_mean():
    # a Keras history: the first train value is the first epoch's mean, already trained, and
    # the val never gets 10% below it; the val still falls clearly to a minimum and climbs
    # 4 epochs in a row after it while the training loss keeps falling: a U, learned and lost
    ep = np.arange(10)
    train = np.array([0.517, 0.476, 0.455, 0.440, 0.421, 0.404, 0.380, 0.367, 0.339, 0.316])
    val = np.array([0.512, 0.477, 0.4725, 0.4772, 0.4751, 0.4651, 0.4836, 0.4901, 0.4981, 0.505])
    f = judge(Overfit(), run_of(loss=(ep, train), val_loss=(ep, val)))
    assert f is not None and not f.evidence["val_ever_below_train_start"]
    assert f.evidence["val_rise_pct"] < 5 and f.evidence["val_drop_before_z"] >= 2
    # near miss: the same val standing still instead of rising after its minimum never
    # generalised beyond its first evaluation and barely moved: nothing to overfit
    flat = np.concatenate((val[:6], val[5] + np.array([0.002, -0.001, 0.0015, 0.0])))
    assert judge(Overfit(), run_of(loss=(ep, train), val_loss=(ep, flat))) is None


def test_a_noisy_val_20pct_above_its_best_beside_a_memorised_train_is_a_weak_overfit():
    # a small validation split: every val wobbles by 12% of its level, so a 23% rise stands
    # about 2 sigmas above the minimum; the training loss fell 20x early and stays low, so it
    # is no longer falling after the val's minimum
    rng = np.random.default_rng(3)
    ep = np.arange(30)
    level = np.where(ep < 18, 0.3 + 1.2 * np.exp(-ep / 3.0), 0.3 + 0.006 * (ep - 18))
    val = level * (1 + 0.12 * rng.standard_normal(30))
    memorised = 1.9 * np.exp(-ep / 3.0) + 0.06
    f = judge(Overfit(), run_of(loss=(ep, memorised), val_loss=(ep, val)))
    assert f is not None and f.evidence["val_rise_z"] < 2.5
    assert f.evidence["val_rise_pct"] >= 20 and f.evidence["train_fall_log"] >= 3
    assert f.evidence["train_fall_log_after"] < 0.4 and f.evidence["train_fall_after"] < 0.05
    assert f.confidence < 0.55  # a stall's confidence: the rise is not beyond the noise
    # near miss: the same val beside a train that fell only 5x has no memorisation to say
    # which way the gap goes
    fell_5x = 0.35 * np.exp(-ep / 3.0) + 0.09
    assert judge(Overfit(), run_of(loss=(ep, fell_5x), val_loss=(ep, val))) is None


def test_a_stalled_val_whose_last_evaluation_is_its_best_is_no_overfit():
    """A Keras LSTM's val loss, as logged: flat at 0.0112-0.0125 for its last 18 epochs while
    the training loss creeps down 4%, its last evaluation the best of all. Smoothed, the level
    after the minimum reads a few percent higher; logged, the val never stopped improving."""
    train = [0.0189, 0.0183, 0.0177, 0.0174, 0.0168, 0.0167, 0.0162, 0.0161, 0.0156, 0.0145]
    train += [0.0134, 0.0129, 0.0125, 0.0123, 0.012, 0.0118, 0.0116, 0.0115, 0.0114, 0.0112]
    train += [0.0111, 0.0111, 0.0111, 0.011, 0.0108, 0.0108, 0.0107, 0.0107, 0.0112, 0.0106]
    train += [0.0106, 0.0107, 0.0106, 0.0105, 0.0106, 0.0105, 0.0105, 0.0105, 0.0104, 0.0105]
    train += [0.0104, 0.0103, 0.0105, 0.0103, 0.0102, 0.0103, 0.0103, 0.0102, 0.0102]
    val = [0.0352, 0.0287, 0.0286, 0.0312, 0.0275, 0.0286, 0.0282, 0.0226, 0.0206, 0.0175]
    val += [0.0163, 0.0155, 0.013, 0.0136, 0.0124, 0.0136, 0.013, 0.0123, 0.0124, 0.0127]
    val += [0.0127, 0.0128, 0.0121, 0.0123, 0.012, 0.0139, 0.0133, 0.0129, 0.0123, 0.012]
    val += [0.0113, 0.0117, 0.0113, 0.0124, 0.0118, 0.012, 0.0116, 0.0115, 0.0119, 0.0116]
    val += [0.0117, 0.014, 0.0121, 0.0125, 0.0122, 0.0117, 0.0123, 0.0119, 0.0112]
    ep = np.arange(1, 50)
    run = run_of(loss=(ep, np.array(train)), val_loss=(ep, np.array(val)))
    m = Overfit().measure(run)
    assert m is not None and m["val_last_is_best"]
    assert judge(Overfit(), run) is None
    # the same measurements with a last evaluation that is not the best: a stall
    assert Overfit().judge({**m, "val_last_is_best": False}) is not None


def test_a_short_epoch_log_is_read_from_its_raw_evaluations():
    """A Keras CNN, 9 epochs: val 0.552 -> 0.136 (epoch 5), then 0.154, 0.220, 0.190 while the
    training loss keeps falling. A running median of 3 erases the one-epoch minimum and the
    first epochs' fall swamps the noise estimate; read raw, the val never came back to its
    best. Near misses: a minimum that is one lucky evaluation between two ordinary ones, and a
    val that came back to within 5% of its best."""
    ep = np.arange(9)
    train = np.array([0.9245, 0.4974, 0.2912, 0.1945, 0.1352, 0.1168, 0.0910, 0.0795, 0.0786])
    val = np.array([0.5524, 0.4171, 0.2719, 0.1745, 0.1818, 0.1358, 0.1538, 0.2203, 0.1896])
    f = judge(Overfit(), run_of(loss=(ep, train), val_loss=(ep, val)))
    assert f is not None and f.evidence["reading"] == "short_log"
    assert f.evidence["val_min_step"] == 5 and f.evidence["val_rise_pct"] > 30
    dip = val.copy()
    dip[5] = 0.08  # both neighbours twice it: a lucky evaluation, no level
    assert judge(Overfit(), run_of(loss=(ep, train), val_loss=(ep, dip))) is None
    back = val.copy()
    back[7] = 0.140  # came back to its best: not a val that stayed above it
    assert judge(Overfit(), run_of(loss=(ep, train), val_loss=(ep, back))) is None


def _frozen_after(ep, level_from, level_to, at, end_level):
    """A curve that falls from level_from to level_to at `at`, then sits at end_level with
    noise in its seventh digit (a net that stopped changing)."""
    head = np.geomspace(level_from, level_to, at + 1)
    tail = end_level + 1e-7 * RNG.standard_normal(len(ep) - at - 1)
    return np.concatenate([head, tail])


def test_a_train_loss_that_rose_with_the_val_opened_no_gap():
    """Train and val both sit ~3-4% above their minima after epoch 17, frozen to the sixth
    digit: their rise together is no overfit, however many sigmas a frozen curve's noise
    makes of it. The same val beside a train that stayed at its minimum is overfit."""
    ep = np.arange(100)
    val = np.concatenate(
        [np.linspace(0.0293, 0.0243, 18), 0.0267856 + 1e-7 * RNG.standard_normal(82)]
    )
    rose = np.concatenate([[26.4], _frozen_after(ep[1:], 0.0285, 0.0256, 16, 0.0280550)])
    assert judge(Overfit(), run_of(loss=(ep, rose), val_loss=(ep, val))) is None
    stayed = np.concatenate([[26.4], _frozen_after(ep[1:], 0.0285, 0.0256, 16, 0.0255)])
    f = judge(Overfit(), run_of(loss=(ep, stayed), val_loss=(ep, val)))
    assert f is not None and f.label == "overfit"


def test_a_window_cut_late_from_training_with_an_open_gap_is_overfit_not_a_mismatch():
    """Epochs 86-90 pasted from an issue: val 2.7x the train and flat while the train falls
    23%. The run's start is not in the log, so it is no val 'flat from the start'
    (distribution_mismatch); the open, widening gap is overfit's, inferred. The same curves
    from epoch 1 are left to distribution_mismatch."""
    from lossforensics.classifiers.distribution_mismatch import DistributionMismatch

    ep = np.arange(86, 91)
    train = np.array([0.1033, 0.0888, 0.0919, 0.0813, 0.0792])
    val = np.array([0.2777, 0.2726, 0.2895, 0.2690, 0.2793])
    run = run_of(loss=(ep, train), val_loss=(ep, val))
    assert judge(DistributionMismatch(), run) is None
    f = judge(Overfit(), run)
    assert f is not None and f.evidence["reading"] == "late_window_gap"
    assert f.evidence["log_start_share"] > 0.9 and f.evidence["val_gap_ratio"] > 2
    early = run_of(loss=(ep - 85, train), val_loss=(ep - 85, val))
    assert judge(Overfit(), early) is None


def test_a_late_window_of_a_memorised_train_far_below_its_val_is_overfit():
    """Epochs 69-77 pasted from an issue: the train loss at its floor (0.031, drifting to 0.035)
    and the val 110x above it, easing 3.5 -> 3.4. The train no longer falls, so the widening-gap
    reading found nothing, and the run was called healthy; a val that far above a memorised
    train is overfit. A val closing the gap, or one only a few times the train, is not read so."""
    ep = np.arange(69, 78)
    train = np.array([0.031, 0.030, 0.033, 0.032, 0.031, 0.034, 0.033, 0.036, 0.035])
    val = np.array([3.53, 3.49, 3.55, 3.44, 3.47, 3.41, 3.45, 3.40, 3.41])
    f = judge(Overfit(), run_of(loss=(ep, train), val_loss=(ep, val)))
    assert f is not None and f.evidence["reading"] == "late_window_gap"
    assert f.evidence["val_gap_ratio"] > 100 and "memorised" in f.summary
    closing = val * np.linspace(1.0, 0.7, len(ep))  # the val gaining 30% across the window
    assert judge(Overfit(), run_of(loss=(ep, train), val_loss=(ep, closing))) is None
    narrow = run_of(loss=(ep, train), val_loss=(ep, val / 20))  # 5x: no memorisation to read
    assert judge(Overfit(), narrow) is None


def test_a_stalled_val_that_ends_back_at_its_best_is_no_overfit():
    # a Whisper fine-tune: eval loss flattens for the last quarter a little above its best and
    # its last evaluation comes back within 0.0008 of it (half a sigma, under 1%): the stall
    # ended where it began, no rise to report
    rng = np.random.default_rng(6)
    s = np.arange(50, 2001, 50)
    val = 0.342 + 0.23 * np.exp(-s / 250) + 0.006 * rng.standard_normal(len(s))
    val[s > 1450] += 0.006
    val[-1] = val[:-1].min() + 0.0008
    ts = np.arange(25, 2001, 25)
    train = 0.2 + 0.35 * np.exp(-ts / 700) + 0.04 * rng.standard_normal(len(ts))
    assert judge(Overfit(), run_of(loss=(ts, train), eval_loss=(s, val))) is None
    # near miss: the same stall ending 3% above its best is still one
    val[-1] = val[:-1].min() * 1.03
    assert judge(Overfit(), run_of(loss=(ts, train), eval_loss=(s, val))) is not None
