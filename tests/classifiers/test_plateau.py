import numpy as np
from lossforensics.classifiers.plateau import Plateau

from tests.classifiers._labelled import judge, real_outcomes, run_of

RNG = np.random.default_rng(3)
STEPS = np.arange(3000)


def _noise(n, s=0.01):
    return s * RNG.standard_normal(n)


def test_stuck_after_an_early_drop_reports_where_it_stalled():
    loss = np.maximum(2.3 * np.exp(-STEPS / 150), 0.0) + 0.7 + _noise(len(STEPS))
    f = judge(Plateau(), run_of(loss=(STEPS, loss)))
    assert f is not None and f.evidence["kind"] == "stuck_after_drop"
    assert f.evidence["stuck_fraction"] >= 0.6 and f.span.end_step == 2999
    assert f.span.start_step <= 1300


def test_flat_from_step_one():
    loss = 2.3 + _noise(len(STEPS), 0.05)
    f = judge(Plateau(), run_of(loss=(STEPS, loss), lr=(STEPS, np.full(len(STEPS), 1e-8))))
    assert f.evidence["kind"] == "flat_from_start" and f.span.start_step == 0
    assert f.causes == ()  # causes are attached by diagnose, not by detect


def test_flat_loss_beside_a_score_that_learned_says_so():
    """A softmax before CrossEntropyLoss: the loss barely moves while the accuracy climbs. The
    run is still a flat loss, and the evidence names the score that shows the model learned."""
    ep = np.arange(30)
    loss = 2.30 + _noise(len(ep), 0.01)
    acc = 0.1 + 0.8 * (1 - np.exp(-ep / 6)) + _noise(len(ep), 0.01)
    f = judge(Plateau(), run_of(loss=(ep, loss), accuracy=(ep, acc)))
    assert f is not None and f.evidence["kind"] == "flat_from_start"
    assert f.evidence["score_metric"] == "accuracy"
    assert f.evidence["score_start"] < 0.3 < 0.8 < f.evidence["score_end"]
    assert "the loss does not show it" in f.summary
    # an accuracy that drifts by its noise learned nothing: no such evidence
    still = 0.1 + _noise(len(ep), 0.01)
    f = judge(Plateau(), run_of(loss=(ep, loss), accuracy=(ep, still)))
    assert f is not None and "score_metric" not in f.evidence


def test_per_epoch_knee_then_flat_ten_points():
    ep = np.arange(10)
    loss = np.array([332.7, 297.6, 270.3, 248.3, 239.0, 238.0, 235.7, 235.4, 235.1, 234.8])
    assert judge(Plateau(), run_of(loss=(ep, loss))) is not None


def test_negative_loss_stuck_after_drop_is_judged_linearly():
    loss = -1.0 - 3.0 * (1 - np.exp(-STEPS / 100)) + _noise(len(STEPS))
    f = judge(Plateau(), run_of(loss=(STEPS, loss)))
    assert f is not None and f.evidence["log_scale"] is False


def test_slow_steady_fine_tune_is_not_a_plateau():
    loss = 2.0 - 0.25 * STEPS / STEPS[-1] + _noise(len(STEPS), 0.03)
    assert judge(Plateau(), run_of(loss=(STEPS, loss))) is None


def test_power_law_and_converged_to_zero_are_not_plateaus():
    power = 4.0 * (1 + STEPS / 10.0) ** -0.5 + 1.0 + _noise(len(STEPS), 0.005)
    assert judge(Plateau(), run_of(loss=(STEPS, power))) is None
    ep = np.arange(10)
    to_zero = np.array([0.77, 0.2, 0.09, 0.044, 0.023, 0.01, 0.009, 0.0086, 0.0097, 0.005])
    assert judge(Plateau(), run_of(loss=(ep, to_zero))) is None


def test_near_miss_converged_only_for_the_last_fifth():
    knee = int(0.8 * len(STEPS))
    loss = np.r_[np.linspace(3.0, 1.0, knee), np.full(len(STEPS) - knee, 1.0)]
    assert judge(Plateau(), run_of(loss=(STEPS, loss + _noise(len(STEPS))))) is None


def test_rising_loss_is_not_a_plateau():
    assert judge(Plateau(), run_of(loss=(STEPS, 1 + STEPS / 1000))) is None


def test_real_runs(real_runs):
    rows = real_outcomes(real_runs, Plateau())
    missed = [e for e, fired, want in rows if want and not fired]
    # known: this run ends far above where it started (8 -> 12): exploding, not "stuck"
    assert all("token_to_char1729587337" in e for e in missed), missed
    false = sorted(e for e, fired, want in rows if fired and not want)
    # known: detectron2 stalls where its LR was cut 20x (labelled lr_decayed_too_early only;
    # the brats run with the same shape is labelled both)
    assert len(false) <= 1 and all("detectron2" in e for e in false), false
    # the augmented nanoGPT run converges, then two spikes leave its tail above its best: that
    # tail got worse, which loss_spikes reports; it is not a flat line
    assert not any("augmented" in e for e, fired, _ in rows if fired)


def test_a_tail_that_got_worse_is_not_flat():
    x = np.arange(600)
    converge = 3.4 + 7.0 * np.exp(-x / 40.0) + _noise(len(x), 0.01)
    worse = converge + np.where(x > 420, 0.0025 * (x - 420), 0.0)  # +12% by the end, no gain
    assert judge(Plateau(), run_of(loss=(x, worse))) is None
    # near miss: the same run without the late climb is stuck after its drop
    assert judge(Plateau(), run_of(loss=(x, converge))) is not None


def test_slow_creep_witnessed_by_a_flat_validation_loss():
    ep = np.arange(19)  # a fast drop, then a creep too gradual to show a knee on its own
    train = np.array(
        [
            1.062,
            0.646,
            0.588,
            0.576,
            0.579,
            0.574,
            0.565,
            0.566,
            0.56,
            0.557,
            0.554,
            0.552,
            0.551,
            0.55,
            0.55,
            0.546,
            0.547,
            0.546,
            0.544,
        ]
    )
    assert judge(Plateau(), run_of(loss=(ep, train))) is None
    val = 0.62 + 0.16 * np.exp(-ep / 0.8) + 0.002 * RNG.standard_normal(19)
    f = judge(Plateau(), run_of(loss=(ep, train), val_loss=(ep, val)))
    assert f is not None and f.evidence["val_late_gain"] < 0.025
    # the creep path's gains are shares of the loss, and the summary says so
    assert 0.01 < f.evidence["tail_improvement"] < 0.025
    gained = f"{f.evidence['tail_improvement']:.1%}"
    assert f"second half of the run it improved by {gained}" in f.summary
    # the same losses beside a val accuracy still climbing over the second half: the losses
    # creep by their scale, the run still pays off
    acc = 0.55 + 0.3 * (1 - np.exp(-ep / 10)) + 0.004 * RNG.standard_normal(19)
    climbing = run_of(loss=(ep, train), val_loss=(ep, val), val_accuracy=(ep, acc))
    assert judge(Plateau(), climbing) is None
    # near miss: a val accuracy that stood still over the second half witnesses the stall
    flat_acc = np.minimum(acc, acc[8]) + 0.004 * RNG.standard_normal(19)
    stood = run_of(loss=(ep, train), val_loss=(ep, val), val_accuracy=(ep, flat_acc))
    assert judge(Plateau(), stood) is not None
    # the same creep with validation still improving is a slow, healthy descent
    still = 0.5 + 0.3 * np.exp(-ep / 8)
    assert judge(Plateau(), run_of(loss=(ep, train), val_loss=(ep, still))) is None


def test_a_steady_descent_at_one_rate_is_no_creep_after_a_drop():
    """GPT-TS's epochs 81-88: train 20.53 -> 19.65 at 0.6% an epoch, validation 10.45 -> 9.95:
    each half of the window gains under 2.5%, but the second as fast as the first. A stall
    slows down; this window of a long run has not."""
    ep = np.arange(81, 89)
    train = np.array([20.5275, 20.4313, 20.2594, 20.1387, 20.015, 19.89, 19.7743, 19.6527])
    val = np.array([10.4499, 10.3774, 10.2359, 10.1645, 10.1931, 10.0868, 10.1171, 9.9544])
    assert judge(Plateau(), run_of(loss=(ep, train), val_loss=(ep, val))) is None


def test_a_level_that_climbed_3x_and_came_back_is_not_flat_from_the_start():
    # net change ~0 (log scale) but the smoothed level rose 3x mid-run and recovered: no flat
    # line from step one (the last half, back at its old best and making no progress, may still
    # read as stuck after the recovery)
    bump = 1.0 + 2.0 * np.exp(-(((STEPS - 1000) / 300) ** 2))
    loss = 0.6 * bump + _noise(len(STEPS))
    f = judge(Plateau(), run_of(loss=(STEPS, loss)))
    assert f is None or (f.evidence["kind"] == "stuck_after_drop" and f.span.start_step >= 1200)
    noisy = 0.6 * bump * np.exp(_noise(len(STEPS), 0.3))  # within a noisy log: not flat either
    f = judge(Plateau(), run_of(loss=(STEPS, noisy)))
    assert f is None or f.evidence["kind"] != "flat_from_start"


def test_a_loss_with_zeros_is_judged_in_its_own_units():
    # one logged 0.0 turns off the log scale: a level swinging 0.4 <-> 1.4 (noise ~0.3) with no
    # net progress is not flat within the noise; the same loss sitting at 1.0 is
    swing = 0.9 + 0.5 * np.sin(STEPS / 150)
    loss = np.abs(swing + _noise(len(STEPS), 0.3))
    loss[500] = 0.0
    assert judge(Plateau(), run_of(loss=(STEPS, loss))) is None
    flat = np.abs(1.0 + _noise(len(STEPS), 0.3))
    flat[500] = 0.0
    f = judge(Plateau(), run_of(loss=(STEPS, flat)))
    assert f is not None and f.evidence["kind"] == "flat_from_start"
    assert not f.evidence["log_scale"]


def test_a_blow_up_that_came_part_way_back_is_not_flat():
    # rose from 1 to ~50 mid-run and ended at ~20 with zeros logged among the values (no log
    # scale): the net change is within the huge noise, but this is exploding's, not a plateau
    level = np.where(STEPS < 1000, 1.0, np.where(STEPS < 2000, 50.0, 20.0))
    loss = np.abs(level * (1 + _noise(len(STEPS), 0.5)))
    loss[::200] = 0.0
    assert judge(Plateau(), run_of(loss=(STEPS, loss))) is None


def test_a_noisy_per_step_log_that_dropped_then_stuck_is_judged():
    # small batches: each point swings ~12% (log), more than half the 20% early drop, but the
    # head and end levels (medians of 150 points each) are far better known than one point
    loss = (1.0 + 0.25 * np.exp(-STEPS / 100)) * np.exp(_noise(len(STEPS), 0.12))
    f = judge(Plateau(), run_of(loss=(STEPS, loss)))
    assert f is not None and f.evidence["kind"] == "stuck_after_drop"


def test_near_miss_a_short_noisy_log_whose_drop_is_within_its_noise():
    ep = np.arange(12)
    wobble = np.exp(0.12 * np.random.default_rng(8).standard_normal(12))
    loss = (1.0 + 0.25 * np.exp(-ep / 2)) * wobble
    assert judge(Plateau(), run_of(loss=(ep, loss))) is None


def test_noisy_short_logs_that_dropped_then_stuck_are_mostly_found():
    # a linear model on a hard task, logged every step: +-15% batch noise hides the flat tail
    # from a best-so-far that keeps finding lower values by chance. Over 20 noise draws most are
    # found (6 of 20 before new bests were discounted by the level's noise)...
    x = np.arange(176)
    found = improving_flagged = 0
    for seed in range(20):
        rng = np.random.default_rng(seed)
        stuck = (0.55 + 0.45 * np.exp(-x / 20.0)) * np.exp(0.15 * rng.standard_normal(len(x)))
        f = judge(Plateau(), run_of(loss=(x, stuck)))
        found += f is not None and f.evidence["kind"] == "stuck_after_drop"
        # ...and none of the same noise on a run still improving steadily to its end
        improving = (1.0 - 0.45 * x / x[-1]) * np.exp(0.15 * rng.standard_normal(len(x)))
        improving_flagged += judge(Plateau(), run_of(loss=(x, improving))) is not None
    assert found >= 12 and improving_flagged == 0, (found, improving_flagged)


def test_a_loss_that_reached_exactly_zero_converged():
    # a classifier that memorised its data: 0.85 -> 1e-4 within 20 steps, then logged as 0.0
    x = np.arange(150)
    loss = np.where(x < 20, 0.85 * np.exp(-x / 2.0), 0.0)
    loss[20:60] = 1e-4
    assert judge(Plateau(), run_of(loss=(x, loss))) is None
    # near miss: the same drop stuck at a third of its start is a plateau, judged linearly too
    # (one logged 0.0 rules out the log scale)
    stuck = np.maximum(0.85 * np.exp(-x / 25.0), 0.3) + np.where(x % 7 == 0, 0.01, 0.0)
    stuck[100] = 0.0
    assert judge(Plateau(), run_of(loss=(x, stuck))) is not None


def test_a_loss_logged_as_zero_from_its_second_point_converged():
    """A QLoRA fine-tune on a handful of examples: 0.0328 at its first log, then exactly 0.0 at
    the 99 after. Smoothed, the level is 0 from the start; the first value says it fell."""
    x = np.arange(10, 1010, 10)
    loss = np.where(x == 10, 0.0328, 0.0)
    assert judge(Plateau(), run_of(loss=(x, loss))) is None
    # near miss: zero from the very first log never moved (a loss masked to nothing)
    f = judge(Plateau(), run_of(loss=(x, np.zeros(len(x)))))
    assert f is not None and f.evidence["kind"] == "flat_from_start"


def test_a_drop_inside_the_first_few_percent_then_flat_is_stuck_after_a_drop():
    # per-step log: the loss halves within the first 2% of the run, then stays flat and noisy;
    # the head's 5% median already sits after the drop, but the first points say it learned
    steps = np.arange(10_000)
    loss = 0.7 + 0.85 * np.exp(-steps / 60) + 0.05 * RNG.standard_normal(10_000)
    f = judge(Plateau(), run_of(loss=(steps, loss)))
    assert f is not None and f.evidence["kind"] == "stuck_after_drop"


def test_a_flat_training_loss_beside_a_validation_loss_still_improving_is_no_plateau():
    # dropout keeps the epoch-mean training loss on a floor from epoch 13 while the validation
    # loss keeps falling 9% to its best at the last epoch: the run still pays off
    rng = np.random.default_rng(8)
    ep = np.arange(30)
    train = np.maximum(0.28, 0.76 * np.exp(-ep / 3.5)) + 0.006 * rng.standard_normal(30)
    improving = 0.19 + 0.18 * np.exp(-ep / 8) + 0.002 * rng.standard_normal(30)
    assert judge(Plateau(), run_of(loss=(ep, train), val_loss=(ep, improving))) is None
    # near miss: the validation loss on a floor too, from where the training loss stalled
    flat = np.where(ep < 6, improving, 0.27 + 0.002 * rng.standard_normal(30))
    f = judge(Plateau(), run_of(loss=(ep, train), val_loss=(ep, flat)))
    assert f is not None and f.evidence["kind"] == "stuck_after_drop"


def test_a_flat_training_loss_beside_a_validation_score_still_improving_is_no_plateau():
    # a fine-tune whose training loss sits on its floor from early on while the validation
    # accuracy still climbs 0.90 -> 0.96 over the second half: the run still pays off
    rng = np.random.default_rng(9)
    steps = np.arange(0, 4000, 10)
    train = np.maximum(0.7, 1.9 * np.exp(-steps / 40)) + 0.08 * rng.standard_normal(len(steps))
    evals = np.arange(400, 4001, 400)
    val = 1.25 + 0.003 * rng.standard_normal(len(evals))
    acc = 0.97 - 0.08 * np.exp(-evals / 1500) + 0.002 * rng.standard_normal(len(evals))
    series = {"train_loss": (steps, train), "val_loss": (evals, val)}
    climbing = run_of(**series, val_acc=(evals, acc))
    assert judge(Plateau(), climbing) is None
    # near miss: the same run with the accuracy on its floor too is stuck
    flat = run_of(**series, val_acc=(evals, 0.93 + 0.002 * rng.standard_normal(len(evals))))
    assert judge(Plateau(), flat) is not None


def test_a_short_log_at_chance_that_never_moves_beyond_its_noise_is_flat_from_the_start():
    """A Lightning probe, 28 logs: the loss swings 2.6-4.0 around 2.95 from its second log on
    (train accuracy at chance, ~0.1): too noisy for its level to stay within 30%, but its
    thirds agree and nothing trends down. Near miss: the same noise around a steady fall."""
    x = np.arange(49, 1400, 50)
    loss = np.array([2.3472, 2.7919, 3.4139, 2.9378, 2.6248, 3.1253, 3.2811, 2.652, 3.2077])
    loss = np.concatenate(
        [loss, [2.8205, 3.3816, 3.9783, 2.8217, 2.7287, 3.9868, 2.8747, 2.9512, 3.1089]]
    )
    loss = np.concatenate(
        [loss, [3.1065, 2.7065, 2.6896, 2.6597, 3.2925, 2.7767, 3.2286, 3.3271, 2.9539, 2.7272]]
    )
    f = judge(Plateau(), run_of(loss=(x, loss)))
    assert f is not None and f.evidence["kind"] == "flat_from_start"
    falling = loss * np.geomspace(1.0, 0.4, len(loss))
    assert judge(Plateau(), run_of(loss=(x, falling))) is None


def test_a_level_the_loss_climbed_to_in_its_first_points_is_no_flat_start():
    """1.8 at the first log, then 15 and flat for 20 logs (an LSTM at lr 0.1 blown up at once):
    the smoothed level is flat but sits 8x above where the loss started; exploding's, not a
    plateau from the start."""
    ep = np.arange(21)
    loss = np.r_[1.8, 15.0 + 0.3 * np.random.default_rng(2).standard_normal(20)]
    assert judge(Plateau(), run_of(loss=(ep, loss))) is None
    stuck = np.r_[15.2, 15.0 + 0.3 * np.random.default_rng(2).standard_normal(20)]
    f = judge(Plateau(), run_of(loss=(ep, stuck)))
    assert f is not None and f.evidence["kind"] == "flat_from_start"


def _majority_class_run(val_acc, val_loss, epochs=9):
    """A skin-lesion classifier of 9 epochs whose validation accuracy is the majority class's
    share at every epoch; the training loss falls a little as it learns the class prior."""
    ep = np.arange(1, epochs + 1)
    train = 1.32 * np.geomspace(1.0, 0.88, epochs)
    return run_of(loss=(ep, train), val_loss=(ep, val_loss), val_accuracy=(ep, val_acc))


def test_a_validation_accuracy_frozen_at_every_epoch_beside_a_flat_val_loss_is_a_plateau():
    # the validation loss drops at epoch 3, then finds no new best beyond 1.3%: nothing that
    # reaches the model's held-out answers was learned
    val = np.array([1.215, 1.17, 1.115, 1.13, 1.12, 1.125, 1.121, 1.128, 1.1])
    f = judge(Plateau(), _majority_class_run(np.full(9, 0.6697736), val))
    assert f is not None and f.evidence["kind"] == "frozen_predictions"
    assert f.evidence["score_metric"] == "val_accuracy" and f.evidence["evaluations"] == 9
    assert "0.669774" in f.summary and (f.span.start_step, f.span.end_step) == (1, 9)


def test_near_misses_of_a_frozen_validation_accuracy():
    frozen, flat = np.full(9, 0.6697736), np.array([1.2, 1.18, 1.17, 1.19, 1.18] + [1.18] * 4)
    moving = frozen + np.r_[0, 0.01, 0, 0, 0, 0, 0, 0, 0]
    assert judge(Plateau(), _majority_class_run(moving, flat)) is None  # one answer changed
    # the validation loss fell 30% after the first third: learning the score cannot show yet
    falling = np.geomspace(1.2, 0.84, 9)
    assert judge(Plateau(), _majority_class_run(frozen, falling)) is None
    for value in (0.0, 0.99, 1.0):  # no metric at all, or a converged model
        assert judge(Plateau(), _majority_class_run(np.full(9, value), flat)) is None


def test_a_frozen_validation_accuracy_is_judged_from_four_epochs_and_no_training_loss():
    # a Keras CSV of 4 rows (too few for plateau's training-loss rules) and a val-only log
    ep = np.arange(4)
    acc, val = np.full(4, 0.7334802), np.array([0.597, 0.607, 0.585, 0.586])
    train = np.array([0.81, 0.585, 0.569, 0.532])
    four = run_of(loss=(ep, train), val_loss=(ep, val), val_accuracy=(ep, acc))
    assert judge(Plateau(), four).evidence["kind"] == "frozen_predictions"
    val_only = run_of(val_loss=(ep, np.full(4, 0.8132617)), val_acc=(ep, np.full(4, 50.0)))
    assert judge(Plateau(), val_only).evidence["score_value"] == 50.0
    three = run_of(
        loss=(ep[:3], train[:3]), val_loss=(ep[:3], val[:3]), val_accuracy=(ep[:3], acc[:3])
    )
    assert Plateau().skip_reason(three) is not None


def test_a_validation_loss_identical_at_every_epoch_while_training_moves_is_a_plateau():
    """A triplet-loss model whose embeddings collapsed: `val_loss: 0.2000` (the margin) at all
    7 epochs while the training loss swings by orders of magnitude, was called healthy. A loss
    moves with any change of the outputs; identical at every evaluation, they never changed."""
    ep = np.arange(1, 8)
    train = np.array([270.3, 3.53, 2520.0, 0.21, 95.1, 0.2, 12.4])
    f = judge(Plateau(), run_of(loss=(ep, train), val_loss=(ep, np.full(7, 0.2))))
    assert f is not None and f.evidence["kind"] == "frozen_predictions"
    assert f.evidence["frozen"] == "val_loss" and "0.2 at all 7 evaluations" in f.summary
    # near misses: a val loss that moved once, one of exactly 0, three evaluations only
    moved = np.r_[0.2, 0.2, 0.2001, np.full(4, 0.2)]
    assert judge(Plateau(), run_of(loss=(ep, train), val_loss=(ep, moved))) is None
    assert judge(Plateau(), run_of(loss=(ep, train), val_loss=(ep, np.zeros(7)))) is None
    three = run_of(loss=(ep, train), val_loss=(ep[:3], np.full(3, 0.2)))
    assert judge(Plateau(), three) is None


def test_a_run_whose_training_loss_was_logged_once_is_judged_by_its_validation_loss():
    """A Lightning run whose logging interval outlasted it: one training-loss row, ten
    validation losses within 0.5% of 1.054 (nothing learned). Near misses: a fine-tune's val
    loss levelling off over its last 40% is convergence; one flat over its last 80% is stuck."""
    ep = np.arange(10)
    flat = np.array([1.0541, 1.0541, 1.059, 1.057, 1.0522, 1.05, 1.0509, 1.0539, 1.0517, 1.0493])
    once = {"loss": (np.array([49]), np.array([1.2496]))}
    f = judge(Plateau(), run_of(**once, val_loss=(ep, flat)))
    assert f is not None and f.evidence["series"] == "val"
    assert f.evidence["kind"] == "flat_from_start" and f.summary.startswith("Validation loss")
    converging = np.array([0.60, 0.268, 0.201, 0.144, 0.130, 0.118, 0.102, 0.106, 0.103, 0.104])
    assert judge(Plateau(), run_of(**once, val_loss=(ep, converging))) is None
    stuck = np.r_[0.267, 0.1293, 0.1289 + 0.0001 * np.sin(ep[2:])]
    f = judge(Plateau(), run_of(**once, val_loss=(ep, stuck)))
    assert f is not None and f.evidence["kind"] == "stuck_after_drop"
    assert f.evidence["stuck_fraction"] >= 0.6


def test_a_log_whose_fall_stays_within_its_noise_is_flat_from_the_start():
    """40 epochs at 0.9 +- 3%: the level fell 5% over the run, more than 3% but within the
    noise of its head and end levels, and never wandered: nothing measurable was learned.
    Near miss: the same noise around a 40% fall is progress."""
    rng = np.random.default_rng(4)
    ep = np.arange(40)
    noise = np.exp(0.03 * rng.standard_normal(40))
    f = judge(Plateau(), run_of(loss=(ep, 0.9 * np.linspace(1.0, 0.95, 40) * noise)))
    assert f is not None and f.evidence["kind"] == "flat_from_start"
    assert f.evidence["total_improvement"] > 0.03
    falling = 0.9 * np.linspace(1.0, 0.6, 40) * noise
    assert judge(Plateau(), run_of(loss=(ep, falling))) is None


def test_a_slow_convergence_logged_sparsely_has_no_knee_and_is_no_plateau():
    # an exponential decay to its floor, logged every other step with 20% jitter: the window
    # before the flat tail fell by less than the level's chance margin, so the slope ratio of
    # the two windows is noise, not a stall after progress
    rng = np.random.default_rng(8)
    s = np.arange(0, 176, 2)
    loss = (0.25 + 1.5 * np.exp(-s / 30)) * np.exp(0.2 * rng.standard_normal(len(s)))
    assert judge(Plateau(), run_of(loss=(s, loss))) is None
    # the same fall made by step 60 and flat after it is a knee: stuck after the drop
    knee = np.where(s < 60, 1.75 - 1.5 * s / 60, 0.25) * np.exp(0.2 * rng.standard_normal(len(s)))
    f = judge(Plateau(), run_of(loss=(s, knee)))
    assert f is not None and f.evidence["kind"] == "stuck_after_drop"


def _at_chance_run(fall: float):
    """A 10-class classifier's loss from chance level (ln 10) drifting down by `fall` of it over
    40 epochs, its validation loss flat at chance beside it."""
    ep = np.arange(40)
    train = np.log(10) * (1 - fall * ep / 39) + _noise(40, 0.004)
    train[0] = np.log(10)
    val = np.log(10) + 0.01 + _noise(40, 0.004)
    return {"loss": (ep, train), "val_loss": (ep, val)}


def test_a_loss_that_never_left_its_chance_level_is_a_plateau_not_underfit():
    """Started at ln(10) and never a tenth below it: nothing learned, whatever the drift (a
    7% creep is over the 3% a flat line may move)."""
    from lossforensics.classifiers.diagnose import diagnose

    from tests.classifiers._labelled import frame_of

    f = judge(Plateau(), run_of(**_at_chance_run(0.07)))
    assert f is not None and f.evidence["kind"] == "flat_from_start"
    assert f.evidence["at_chance"] == 10
    assert diagnose(frame_of(**_at_chance_run(0.07))).verdict == "plateau"


def test_a_window_that_starts_mid_run_has_no_chance_level_start():
    """A caffe2 log pasted from iteration 1660 of a 101-class model: its first loss, 2.1906,
    sits within 0.5% of ln 9 by chance and was read as a 9-class classifier at its chance
    level, so a slow descent was called a plateau. A loss starts at chance only where the run
    starts: the same curve logged from its first steps still is one."""
    run = _at_chance_run(0.07)
    late = {k: (x + 1660, y) for k, (x, y) in run.items()}
    f = judge(Plateau(), run_of(**late))
    assert f is None or "at_chance" not in f.evidence
    g = judge(Plateau(), run_of(**run))
    assert g is not None and g.evidence["at_chance"] == 10


def test_a_loss_that_fell_a_fifth_below_its_chance_level_learned_something():
    f = judge(Plateau(), run_of(**_at_chance_run(0.2)))
    assert f is None or "at_chance" not in f.evidence


def _short_hf_log(val: np.ndarray, train: np.ndarray):
    """An HF Trainer log of a small set: an evaluation every epoch, a training loss every 500
    steps (2 points), too few for the course rules."""
    evals = 294 * np.arange(1, len(val) + 1)
    return run_of(loss=(np.array([500, 1000]), train), eval_loss=(evals, val))


def test_a_short_log_whose_val_sat_at_chance_at_every_evaluation_is_a_plateau():
    # a binary classifier: train 0.707, 0.695 and eval 0.700 ... 0.671, all at ln 2
    run = _short_hf_log(np.array([0.700, 0.693, 0.692, 0.6708]), np.array([0.7066, 0.6954]))
    assert Plateau().skip_reason(run) is None
    f = judge(Plateau(), run)
    assert f is not None and f.evidence["kind"] == "held_at_chance"
    assert f.evidence["at_chance"] == 2 and f.evidence["evaluations"] == 4
    assert "chance level of 2 classes" in f.summary


def test_near_misses_of_a_short_log_at_chance():
    at_ln2 = np.array([0.700, 0.693, 0.692, 0.6708])
    train = np.array([0.7066, 0.6954])
    # three evaluations: too few to tell a level from a pass through it
    assert judge(Plateau(), _short_hf_log(at_ln2[:3], train)) is None
    # the training loss got a tenth below chance: the model learned something
    assert judge(Plateau(), _short_hf_log(at_ln2, np.array([0.70, 0.55]))) is None
    # a val that came down through ln 3 from far above it, then below it
    passing = np.array([1.35, 1.1, 1.0986, 1.097, 1.05])
    assert judge(Plateau(), _short_hf_log(passing, np.array([1.5, 1.2]))) is None
    # an evaluation a tenth below chance learned
    assert judge(Plateau(), _short_hf_log(np.array([0.70, 0.69, 0.693, 0.60]), train)) is None


def _flat_noisy(n=40, level=0.9, start=0, every=1):
    steps = start + every * np.arange(n)
    return steps, level * np.exp(_noise(n, 0.012))


def test_a_window_still_drifting_down_is_set_aside_not_a_plateau():
    """A window pasted from iteration 15925 whose loss gains only 2% over it but falls at
    nearly every print: its first point is a trained model's loss, so a small, steady gain is
    a run converging late. The same curve logged from its first step is flat from the start."""
    steps = 25 * np.arange(40)
    loss = 0.9 * np.exp(-0.0005 * np.arange(40) + _noise(40, 0.002))
    from_start = run_of(loss=(steps, loss))
    f = judge(Plateau(), from_start)
    assert f is not None and f.evidence["kind"] == "flat_from_start"
    assert Plateau().set_aside(from_start) is None
    window = run_of(loss=(steps + 15925, loss))
    assert judge(Plateau(), window) is None
    why = Plateau().set_aside(window)
    assert why is not None and "starts mid-run (at step 15925)" in why and "drifts down" in why


def test_a_flat_window_with_no_downward_trend_is_a_plateau_of_the_span_it_shows():
    """The same window with no downward trend (noise around one level, Kendall's tau near 0)
    did not improve over the span it shows: a plateau, whose summary says where the log starts
    so the user compares it with the loss where the run began."""
    steps, loss = _flat_noisy(every=25)
    window = run_of(loss=(steps + 15925, loss))
    f = judge(Plateau(), window)
    assert f is not None and f.evidence["kind"] == "flat_from_start"
    assert f.evidence["window"] == {"first_step": 15925}
    assert "starts mid-run (at step 15925)" in f.summary
    assert Plateau().set_aside(window) is None


def test_near_misses_of_a_flat_window_one_repeated_value_or_chance_level_is_still_stuck():
    """Wherever the log starts, a loss printed as one value at every log (2.3026, 2.3026, ...)
    changes nothing: weights or outputs are frozen. That stays a plateau."""
    steps = 33 + np.arange(10)
    repeated = np.full(10, 2.3026)
    repeated[[2, 7]] = 2.3025
    f = judge(Plateau(), run_of(loss=(steps, repeated)))
    assert f is not None and f.evidence["kind"] == "flat_from_start"


def _hf_dicts(first_epoch: float) -> str:
    """An HF Trainer's printed log dicts: no step, a fractional epoch (every 0.02 here), the
    loss drifting down by 0.15% a log."""
    rng = np.random.default_rng(82)
    lines = []
    for i in range(13):
        loss = 0.09 * np.exp(-0.0015 * i + 0.002 * rng.standard_normal())
        lr = 9.66e-05 * (1 - 0.01 * i)
        lines.append(
            f"{{'loss': {loss:.4f}, 'grad_norm': {2 + rng.random():.4f}, "
            f"'learning_rate': {lr:.6g}, 'epoch': {first_epoch + 0.02 * i:.2f}}}"
        )
    return "\n".join(lines) + "\n"


def test_hf_trainer_dicts_from_mid_epoch_are_a_window_read_by_their_epoch(tmp_path):
    """Printed HF dicts carry no step (the frame's steps are their line order), but their epoch
    says where the log starts: from epoch 0.38 the loss, gaining little but still drifting
    down, is a window of a fine-tune, set aside; from epoch 0.02 it is the run's start, and
    so little gain from there is a plateau."""
    from lossforensics.classifiers.diagnose import diagnose
    from lossforensics.ingest import load_run

    verdicts = {}
    for first in (0.38, 0.02):
        path = tmp_path / f"from_{first}.log"
        path.write_text(_hf_dicts(first))
        d = diagnose(load_run(path).frame)
        verdicts[first] = (d.verdict, [s.reason for s in d.set_aside if s.label == "plateau"])
    assert verdicts[0.02] == ("plateau", [])
    verdict, why = verdicts[0.38]
    assert verdict == "healthy" and len(why) == 1 and "(at epoch 0.38)" in why[0]


def test_a_drop_down_to_chance_level_then_stuck_is_held_at_chance():
    """Lasagne's MNIST example broken: the training loss falls from 2.47 (above chance, as an
    untrained 10-class model starts) to 2.31 and stops, the validation loss sits at 2.3016 =
    ln 10 at every epoch. The drop took the loss to chance, not below it: nothing was learned,
    which plateau reports (explaining underfit's high, flat loss) rather than a stall after
    progress."""
    from lossforensics.classifiers.diagnose import diagnose

    from tests.classifiers._labelled import frame_of

    ep = np.arange(1, 21)
    train = 2.31 + 0.16 * np.exp(-(ep - 1) / 1.5) + _noise(20, 0.002)
    val = np.log(10) - 0.0009 + _noise(20, 0.0003)
    f = judge(Plateau(), run_of(loss=(ep, train), val_loss=(ep, val)))
    assert f is not None and f.evidence["kind"] == "held_at_chance"
    assert f.evidence["at_chance"] == 10
    assert diagnose(frame_of(loss=(ep, train), val_loss=(ep, val))).verdict == "plateau"
