import numpy as np
import pytest
from lossforensics.classifiers.underfit import Underfit

from tests.classifiers._labelled import judge, real_outcomes, run_of

RNG = np.random.default_rng(6)
EP = np.arange(20)


def _knee(start, floor, tau=1.5, n=20, noise=0.005):
    ep = np.arange(n)
    return floor + (start - floor) * np.exp(-ep / tau) + noise * RNG.standard_normal(n)


def test_both_high_and_close_after_an_early_knee():
    train, val = _knee(1.6, 1.1), _knee(1.6, 1.12)
    f = judge(Underfit(), run_of(loss=(EP, train), val_loss=(EP, val)))
    assert f is not None and f.span.end_step == 19 and f.span.start_step <= 10
    assert 0.6 < f.evidence["kept"] < 0.8 and abs(f.evidence["gap_ratio"]) < 0.05
    assert f.confidence > 0.7
    assert "validation ends close to it" in f.summary


def test_a_validation_far_below_training_is_said_to_be_below_it():
    train, val = _knee(1.6, 1.1), _knee(0.8, 0.55)
    f = judge(Underfit(), run_of(loss=(EP, train), val_loss=(EP, val)))
    assert f is not None and f.evidence["gap_ratio"] < -0.4
    assert "validation ends below it" in f.summary


def test_per_step_train_with_sparse_val():
    steps = np.arange(4000)
    train = 1.0 + 0.6 * np.exp(-steps / 300) + 0.05 * RNG.standard_normal(len(steps))
    val_steps = steps[199::200]
    assert (
        judge(
            Underfit(),
            run_of(
                loss=(steps, train), val_loss=(val_steps, 1.02 + 0.6 * np.exp(-val_steps / 300))
            ),
        )
        is not None
    )


def test_healthy_fit_and_overfit_are_not_underfit():
    train = _knee(1.6, 0.05, tau=4)
    assert judge(Underfit(), run_of(loss=(EP, train), val_loss=(EP, train + 0.02))) is None
    assert (
        judge(Underfit(), run_of(loss=(EP, _knee(1.6, 1.1)), val_loss=(EP, _knee(1.6, 1.6))))
        is None
    )


def test_a_run_that_halved_its_loss_is_not_called_underfit():
    # a fine-tune or a language model converging on high-entropy text: flat, close, and still
    # about half of its starting loss; without the reachable loss that is not "high"
    train, val = _knee(2.08, 1.12, tau=3), _knee(2.08, 1.15, tau=3)
    assert judge(Underfit(), run_of(loss=(EP, train), val_loss=(EP, val))) is None
    # near miss: the same shape keeping two thirds of its start is underfit
    train, val = _knee(2.08, 1.45, tau=3), _knee(2.08, 1.48, tau=3)
    assert judge(Underfit(), run_of(loss=(EP, train), val_loss=(EP, val))) is not None


def test_near_miss_slow_steady_descent():
    slow = 8.8 * (1 + EP) ** -0.12
    assert judge(Underfit(), run_of(loss=(EP, slow), val_loss=(EP, slow * 1.02))) is None


def test_a_model_too_small_to_move_at_all_is_underfit():
    flat = np.full(20, 2.3) + 0.001 * RNG.standard_normal(20)
    f = judge(Underfit(), run_of(loss=(EP, flat), val_loss=(EP, flat)))
    assert f is not None and f.evidence["kept"] > 0.95


def test_negative_losses_are_not_judged_and_missing_val_is_skipped():
    neg = -_knee(1.6, 1.1)
    assert judge(Underfit(), run_of(loss=(EP, neg), val_loss=(EP, neg))) is None
    # 1.75 is no class count's chance level (ln 5 = 1.61, ln 6 = 1.79): no reference for "high"
    assert "no validation loss" in Underfit().skip_reason(run_of(loss=(EP, _knee(1.75, 1.2))))


def test_real_runs(real_runs):
    fired = [e for e, fired, _ in real_outcomes(real_runs, Underfit()) if fired]
    # known: the high-LR sweep member stuck at unigram loss with validation close by is
    # underfit by this rule; labels.json calls it plateau only (which also fires)
    assert all("highlr_stuck" in e for e in fired), fired


def test_a_tiny_model_creeping_near_its_start_without_a_knee_is_underfit():
    # 2.3 -> 2.1 at a steady rate (no knee), the second half gaining ~2%: it kept ~90% of its
    # starting loss and is not going anywhere
    creep = 2.3 - 0.01 * EP + 0.002 * RNG.standard_normal(20)
    f = judge(Underfit(), run_of(loss=(EP, creep), val_loss=(EP, creep * 1.01)))
    assert f is not None and f.evidence["kept"] > 0.9 and f.evidence["rate_ratio"] > 0.5


def test_near_miss_creeping_near_its_start_but_still_gaining_over_5_percent_late():
    creep = 2.3 - 0.03 * EP + 0.002 * RNG.standard_normal(20)  # kept ~0.76, late gain ~12%
    assert judge(Underfit(), run_of(loss=(EP, creep), val_loss=(EP, creep * 1.01))) is None
    creep = 2.3 * (1 - 0.01 * EP)  # kept ~0.81 but the second half still gains ~5.5%
    assert judge(Underfit(), run_of(loss=(EP, creep), val_loss=(EP, creep * 1.01))) is None


def test_a_second_half_that_rises_is_not_a_flat_high_line():
    # fell to 1.4 by the middle, then climbed back to 2.0: kept ~0.8 and close to val, but rising
    y = np.concatenate([_knee(2.4, 1.4, n=10), np.linspace(1.4, 2.0, 10)])
    assert judge(Underfit(), run_of(loss=(EP, y), val_loss=(EP, y * 1.02))) is None
    flat = np.concatenate([_knee(2.4, 1.4, n=10), np.full(10, 1.45)])  # same run, flat: fires
    assert judge(Underfit(), run_of(loss=(EP, flat), val_loss=(EP, flat * 1.02))) is not None


def test_stuck_flat_at_half_the_start_with_no_gap_is_underfit():
    # a model too small: loses ~45% of its chance-level start, then sits flat with val on train
    steps = np.arange(0, 3000, 10)
    rng = np.random.default_rng(6)
    train = 1.25 + 1.05 * np.exp(-steps / 150) + 0.003 * rng.standard_normal(len(steps))
    vx = steps[::10]
    val = 1.26 + 1.05 * np.exp(-vx / 150)
    f = judge(Underfit(), run_of(loss=(steps, train), val_loss=(vx, val)))
    assert f is not None and 0.5 <= f.evidence["kept"] < 0.6


def _train_only(start, end, seed=3):
    """200 epochs of a train-only log: from `start` a quick first drop, then a slow creep to
    `end` with a flat second half (no knee), 0.5% noise."""
    rng = np.random.default_rng(seed)
    ep = np.arange(1, 201)
    level = end + (start - end) * (0.55 * np.exp(-(ep - 1)) + 0.45 * np.exp(-(ep - 1) / 60))
    noise = 0.005 * rng.standard_normal(200)
    noise[0] = 0.0  # the untrained model's first mean sits on its level
    return run_of(Loss=(ep, level * (1 + noise)))


def test_a_train_only_binary_classifier_stuck_far_above_zero_from_chance_is_underfit():
    # starts at ln 2 (two classes, chance) and ends at 0.5: it never fit its own training data
    f = judge(Underfit(), _train_only(np.log(2), 0.5))
    assert f is not None and f.evidence["chance_classes"] == 2
    assert f.evidence["val_logged"] is False and "chance level of 2 classes" in f.summary


def test_a_train_only_classifier_that_learned_from_chance_is_not_underfit():
    assert judge(Underfit(), _train_only(np.log(2), 0.05)) is None


def test_a_train_only_loss_not_starting_at_chance_has_no_reference_and_is_skipped():
    run = _train_only(3.3, 2.6)
    reason = Underfit().skip_reason(run)
    assert reason is not None and "validation loss" in reason


@pytest.mark.slow
def test_real_rooftop_unet_stuck_near_chance_without_validation(real_runs_more):
    from lossforensics.classifiers.run import RunSeries

    from tests.classifiers._labelled import _load

    path = real_runs_more / "textlog_unet_rooftop_underfit"
    f = judge(Underfit(), RunSeries(_load(str(path))))
    assert f is not None and f.evidence["chance_classes"] == 2


def test_stuck_with_validation_right_on_training_after_losing_60_percent_is_underfit():
    # a capacity-limited model: the loss falls 60% early, then train and val sit together
    steps = np.arange(4000)
    train = 0.62 + 0.93 * np.exp(-steps / 80) + 0.01 * RNG.standard_normal(4000)
    ev = np.arange(0, 4000, 200)
    val = 0.625 + 0.9 * np.exp(-ev / 80) + 0.005 * RNG.standard_normal(len(ev))
    f = judge(Underfit(), run_of(loss=(steps, train), val_loss=(ev, val)))
    assert f is not None and 0.4 <= f.evidence["kept"] < 0.5 and f.evidence["plateau"]


def test_a_train_only_loss_stuck_after_losing_over_40_percent_of_chance_is_not_underfit():
    # the relaxation to 40% kept reads a validation loss sitting on training: with none, the
    # chance-level path keeps its own bar (60%): an LM fine-tune's first loss 2.31 that happens
    # to sit on ln 10 and halves to a flat 1.3 has learnt a good part of what it can
    steps = np.arange(10, 260, 10)
    loss = 1.32 + 0.99 * np.exp(-(steps - 10) / 30) + 0.004 * RNG.standard_normal(len(steps))
    loss[0] = 2.3136
    run = run_of(loss=(steps, loss))
    assert judge(Underfit(), run) is None
    # near miss: kept 70% of the same start, stuck, it stays underfit
    higher = 1.62 + 0.69 * np.exp(-(steps - 10) / 30) + 0.004 * RNG.standard_normal(len(steps))
    higher[0] = 2.3136
    f = judge(Underfit(), run_of(loss=(steps, higher)))
    assert f is not None and f.evidence["chance_classes"] == 10


def test_a_loss_near_1_beside_a_val_score_that_closed_its_room_is_not_underfit():
    # a Dice-style loss that barely leaves 1 while the segmentation's val accuracy climbs
    # 0.56 -> 0.82: the loss's scale hides a model that fits
    train, val = _knee(1.0, 0.91, tau=4), _knee(1.0, 0.93, tau=4)
    acc = 0.82 - 0.26 * np.exp(-EP / 6) + 0.004 * RNG.standard_normal(20)
    f = judge(Underfit(), run_of(loss=(EP, train), val_loss=(EP, val), val_accuracy=(EP, acc)))
    assert f is None
    # near miss: a val accuracy that closed under a third of its room (0.56 -> 0.62) says the
    # model learned little, as the loss does
    little = 0.62 - 0.06 * np.exp(-EP / 6) + 0.004 * RNG.standard_normal(20)
    f = judge(Underfit(), run_of(loss=(EP, train), val_loss=(EP, val), val_accuracy=(EP, little)))
    assert f is not None and f.evidence["score_gain_rel"] < 1 / 3


def test_a_validation_loss_still_falling_over_the_second_half_is_no_underfit():
    """A fine-tune whose train loss stalls high (kept ~70% of its start) while its validation
    loss still falls 14% from the middle of the run to its end: the model is still learning.
    Near miss: the same train beside a validation loss that flattened is underfit."""
    train = _knee(1.6, 1.1)
    still = 1.6 - 0.5 * (1 - np.exp(-EP / 1.5)) - 0.02 * np.maximum(EP - 8, 0)
    f = judge(Underfit(), run_of(loss=(EP, train), val_loss=(EP, still)))
    assert f is None
    m = Underfit().measure(run_of(loss=(EP, train), val_loss=(EP, still)))
    assert m["val_late_gain"] > 0.1
    assert judge(Underfit(), run_of(loss=(EP, train), val_loss=(EP, _knee(1.6, 1.12)))) is not None


def _slow_creep(train_acc: np.ndarray, name: str = "train_acc", start: int = 0):
    """A small network on a 10-class set: train and val both creep 3.2 -> 2.35 over 50 epochs,
    still improving 7% over the second half (no knee, not stalled), with a training accuracy;
    logged from epoch `start`."""
    ep = np.arange(50)
    train = 2.3 + 0.9 * np.exp(-ep / 30) + 0.005 * RNG.standard_normal(50)
    val = train + 0.1 + 0.005 * RNG.standard_normal(50)
    ep = ep + start
    return run_of(loss=(ep, train), val_loss=(ep, val), **{name: (ep, train_acc)})


def test_a_model_that_fits_under_half_of_its_training_examples_is_underfit():
    ep = np.arange(50)
    acc = 0.45 - 0.2 * np.exp(-ep / 15)  # 25% -> 45%: most training examples still wrong
    f = judge(Underfit(), _slow_creep(acc))
    assert f is not None and f.evidence["train_score_end"] < 0.5
    assert f.evidence["train_score_metric"] == "train_acc" and f.evidence["late_gain"] > 0.05
    in_percent = judge(Underfit(), _slow_creep(100 * acc, "Train acc"))
    assert in_percent is not None and in_percent.evidence["train_score_end"] < 0.5


def test_near_misses_of_a_model_fitting_under_half_of_its_training_examples():
    ep = np.arange(50)
    # 60% of the training examples right: the creeping loss is read as before (no knee: none)
    assert judge(Underfit(), _slow_creep(0.6 - 0.2 * np.exp(-ep / 15))) is None
    # a language model's token accuracy is no share of examples right
    low = 0.45 - 0.2 * np.exp(-ep / 15)
    assert judge(Underfit(), _slow_creep(low, "mean_token_accuracy")) is None
    # a sequence accuracy at 0 throughout is an unused metric as often as a failing model
    assert judge(Underfit(), _slow_creep(np.zeros(50), "seq_acc")) is None


def _knee_under_schedule(lr: np.ndarray, **extra: tuple[np.ndarray, np.ndarray]):
    """Train and val high and close after an early knee (the classic underfit shape), with the
    LR logged beside them; started off any chance level ln(k), which would be a reference."""
    train, val = _knee(1.75, 1.2), _knee(1.75, 1.22)
    return run_of(loss=(EP, train), val_loss=(EP, val), learning_rate=(EP, lr), **extra)


def test_a_loss_that_flattens_as_its_lr_anneals_to_zero_is_not_called_underfit():
    # a linear decay to zero: the second half runs at a quarter of the peak on average, so the
    # flattening is the schedule's, and "high" alone has no reference
    annealed = 1e-3 * (1 - EP / EP[-1])
    f = judge(Underfit(), _knee_under_schedule(annealed))
    assert f is None
    # the same curves at a constant LR stopped on their own: underfit
    constant = judge(Underfit(), _knee_under_schedule(np.full(len(EP), 1e-3)))
    assert constant is not None and constant.evidence["lr_late_share"] == pytest.approx(1.0)


def test_an_annealed_run_that_fits_under_half_of_its_examples_is_still_underfit():
    annealed = 1e-3 * (1 - EP / EP[-1])
    acc = 0.40 - 0.15 * np.exp(-EP / 3)
    f = judge(Underfit(), _knee_under_schedule(annealed, train_acc=(EP, acc)))
    assert f is not None and f.evidence["lr_late_share"] < 1 / 3


def test_an_lr_annealed_all_the_way_to_zero_counts_as_annealed():
    # a second half logged at exactly 0 (a step schedule's last cut, rounded): share 0, annealed
    cut = np.where(EP < 8, 1e-3, 0.0)
    assert judge(Underfit(), _knee_under_schedule(cut)) is None


def test_a_converged_held_out_accuracy_says_the_model_fits():
    """An epoch log whose first epoch already averaged the fall: the loss keeps its 'start'
    (0.078 -> 0.085, flat, val beside it), which reads as stuck high, but a validation accuracy
    at 99% over the run says the model gets the held-out data right: no underfit."""
    rng = np.random.default_rng(11)
    train = 0.08 + 0.006 * rng.standard_normal(20)
    val = 0.07 + 0.004 * rng.standard_normal(20)
    acc = 0.993 + 0.002 * rng.standard_normal(20)
    without = run_of(loss=(EP, train), val_loss=(EP, val))
    assert judge(Underfit(), without) is not None
    f = judge(Underfit(), run_of(loss=(EP, train), val_loss=(EP, val), val_accuracy=(EP, acc)))
    assert f is None


def test_a_window_from_mid_run_has_no_start_to_measure_the_share_kept_against():
    """A log starting at epoch 40 begins at a trained model's loss: "kept 95% of its start"
    says nothing about fit there. The same curves logged from epoch 0 are underfit."""
    flat = np.full(20, 2.3) + 0.001 * RNG.standard_normal(20)
    assert judge(Underfit(), run_of(loss=(EP, flat), val_loss=(EP, flat))) is not None
    late = EP + 40
    assert judge(Underfit(), run_of(loss=(late, flat), val_loss=(late, flat))) is None


def test_a_window_that_fits_under_half_of_its_training_examples_is_still_underfit():
    ep = np.arange(50)
    f = judge(Underfit(), _slow_creep(0.45 - 0.2 * np.exp(-ep / 15), start=200))
    assert f is not None and f.evidence["window"] == {"first_step": 200}
