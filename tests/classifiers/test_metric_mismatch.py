import numpy as np
import pytest
from lossforensics.classifiers.frame import make_frame
from lossforensics.classifiers.metric_mismatch import MetricMismatch, name_direction
from lossforensics.classifiers.playbook import rank_causes
from lossforensics.classifiers.run import RunSeries

from tests.classifiers._labelled import assert_matches_real_labels, judge, run_of

RNG = np.random.default_rng(17)
EP = np.arange(20)


def _val_loss():
    return 0.4 + 1.5 * np.exp(-EP / 5) + 0.01 * RNG.standard_normal(20)


def test_loss_improves_but_accuracy_stays_at_chance():
    acc = 0.1 + 0.01 * RNG.standard_normal(20)
    f = judge(MetricMismatch(), run_of(val_loss=(EP, _val_loss()), val_acc=(EP, acc)))
    assert f is not None and f.label == "metric_mismatch"
    assert f.evidence["direction"] == "loss_improves"
    assert (f.span.start_step, f.span.end_step) == (0, 19)


def test_loss_improves_but_error_rate_rises():
    wer = 0.5 + 0.01 * EP + 0.005 * RNG.standard_normal(20)
    f = judge(MetricMismatch(), run_of(eval_loss=(EP, _val_loss()), eval_wer=(EP, wer)))
    assert f is not None and f.evidence["score_direction"] == "lower"


def test_metric_improves_while_loss_stays_flat():
    loss = 1.0 + 0.005 * RNG.standard_normal(20)
    acc = 0.5 + 0.4 * (1 - np.exp(-EP / 5)) + 0.005 * RNG.standard_normal(20)
    f = judge(MetricMismatch(), run_of(val_loss=(EP, loss), val_accuracy=(EP, acc)))
    assert f is not None and f.evidence["direction"] == "metric_improves"


def test_a_val_loss_that_never_changed_is_not_read():
    # a one-class detector's class loss is 0 at every evaluation while its mAP climbs: the
    # loss measures nothing, so the two cannot disagree
    map50 = 0.3 + 0.5 * (1 - np.exp(-EP / 10))
    run = run_of(**{"val/cls_loss": (EP, np.zeros(len(EP))), "val/mAP_0.5": (EP, map50)})
    assert MetricMismatch().measure(run) is None
    # near miss: a val loss that barely moves at all beside the same climb still is one
    flat = np.full(len(EP), 0.5) + 1e-4 * np.sin(EP)
    f = judge(MetricMismatch(), run_of(val_loss=(EP, flat), val_mAP=(EP, map50)))
    assert f is not None and f.evidence["direction"] == "metric_improves"


def test_a_noisy_val_loss_that_went_nowhere_beside_a_strongly_improving_wer():
    # Whisper fine-tune: the val loss wanders 0.21-0.27 (its noise) with no net move, while WER
    # falls 14 -> 10 (33 sigmas, 22% of its room): labelled metric_mismatch by inspection
    ep = np.arange(1000, 15001, 1000)
    loss = np.array(
        [
            0.2718,
            0.26,
            0.2386,
            0.2415,
            0.2389,
            0.253,
            0.2273,
            0.2433,
            0.2225,
            0.2621,
            0.2194,
            0.2088,
            0.2155,
            0.2494,
            0.2393,
        ]
    )
    wer = np.array(
        [
            14.31,
            12.47,
            12.36,
            11.52,
            11.17,
            10.56,
            10.73,
            10.44,
            10.18,
            9.97,
            9.92,
            9.86,
            9.77,
            9.75,
            9.62,
        ]
    )
    f = judge(MetricMismatch(), run_of(eval_loss=(ep, loss), eval_wer=(ep, wer)))
    assert f is not None and f.evidence["direction"] == "metric_improves"


def test_loss_creeping_near_chance_while_accuracy_climbs_is_consistent():
    loss = 2.39 - 0.13 * (EP / 19) ** 1.5 + 0.001 * RNG.standard_normal(20)
    acc = 0.10 + 0.15 * np.clip(EP - 6, 0, None) / 13 + 0.003 * RNG.standard_normal(20)
    assert judge(MetricMismatch(), run_of(eval_loss=(EP, loss), eval_accuracy=(EP, acc))) is None


def test_healthy_loss_down_accuracy_up_is_quiet():
    acc = 0.5 + 0.4 * (1 - np.exp(-EP / 5)) + 0.005 * RNG.standard_normal(20)
    assert judge(MetricMismatch(), run_of(val_loss=(EP, _val_loss()), val_acc=(EP, acc))) is None


def test_overfit_calibration_drift_is_left_to_overfit():
    loss = 0.3 + 0.02 * EP
    acc = 0.80 + 0.005 * EP
    assert judge(MetricMismatch(), run_of(val_loss=(EP, loss), val_acc=(EP, acc))) is None


def test_near_miss_saturated_accuracy_still_creeping_up():
    acc = 0.985 + 0.003 * (1 - np.exp(-EP / 5)) + 0.0001 * RNG.standard_normal(20)
    assert judge(MetricMismatch(), run_of(val_loss=(EP, _val_loss()), val_acc=(EP, acc))) is None


def test_accuracy_at_100_percent_after_its_first_evaluation_is_saturated():
    """0.9992 then exactly 1.0 for 19 evaluations while the val loss keeps falling: no room to
    disagree (a real phishing-URL classifier was called metric_mismatch at 0.91)."""
    acc = np.r_[0.99917, np.ones(19)]
    run = run_of(val_loss=(EP, _val_loss()), val_acc=(EP, acc))
    assert MetricMismatch().measure(run)["metric_saturated"]
    assert judge(MetricMismatch(), run) is None


def test_an_accuracy_within_five_points_of_its_bound_throughout_has_no_room_to_disagree():
    """An easy binary task: val accuracy 0.994 -> 0.991 -> 0.995 ... wobbling within a point of
    1 at every evaluation while the val loss falls 0.037 -> 0.022 (a real parking-spot CNN was
    called metric_mismatch at 0.94): the loss's gain is confidence on examples already right."""
    ep = np.arange(11)
    loss = np.array([0.0368, 0.0507, 0.0247, 0.022, 0.0236, 0.0227, 0.0226, 0.0245, 0.0258])
    loss = np.r_[loss, 0.0254, 0.0233]
    acc = np.array([0.994, 0.9909, 0.995, 0.995, 0.995, 0.995, 0.995, 0.994, 0.994, 0.994, 0.995])
    run = run_of(val_loss=(ep, loss), val_accuracy=(ep, acc))
    assert MetricMismatch().measure(run)["metric_converged"]
    assert judge(MetricMismatch(), run) is None


def test_an_accuracy_creeping_near_its_bound_beside_a_flat_loss_is_no_disagreement():
    """TensorFlow's quickstart, 5 epochs of MNIST: test loss 0.065, 0.061, 0.062, 0.061,
    0.063 while test accuracy goes 97.88% -> 98.15%, was called metric_mismatch at 0.95. A
    converged metric's last gains sit on examples the loss already counts as nearly right."""
    ep = np.arange(1, 6)
    loss = np.array([0.0647, 0.0609, 0.0615, 0.0614, 0.0627])
    acc = np.array([97.88, 97.97, 98.01, 98.10, 98.15])
    run = run_of(val_loss=(ep, loss), val_accuracy=(ep, acc))
    assert MetricMismatch().measure(run)["metric_converged"]
    assert judge(MetricMismatch(), run) is None
    # a climb far below its bound beside the same flat loss is a disagreement
    low = run_of(val_loss=(ep, loss), val_accuracy=(ep, np.array([60.0, 66, 71, 75, 78])))
    f = judge(MetricMismatch(), low)
    assert f is not None and f.evidence["direction"] == "metric_improves"


def test_an_accuracy_pinned_at_one_value_is_no_converged_metric():
    """Pixel accuracy at the background's share, 0.98660713 (float32 printing varies in the 7th
    digit), at every evaluation while the val loss falls 13x: the metric measures nothing, and
    that disagreement stays metric_mismatch's."""
    pinned = 0.98660713 + 1e-7 * RNG.integers(-1, 2, 20)
    run = run_of(val_loss=(EP, _val_loss()), val_accuracy=(EP, pinned))
    assert not MetricMismatch().measure(run)["metric_converged"]
    f = judge(MetricMismatch(), run)
    assert f is not None and f.evidence["direction"] == "loss_improves"


def test_an_accuracy_in_percent_has_its_room_to_100():
    """Val Accuracy 86 -> 92.5 (printed in percent) beside a falling val loss closed half its
    room to 100: it improved, no disagreement (its size, 92, made 2.6 points look like 3%)."""
    acc = 100 * (0.86 + 0.065 * (1 - np.exp(-EP / 5))) + 0.2 * RNG.standard_normal(20)
    run = run_of(val_loss=(EP, _val_loss()), val_acc=(EP, acc))
    assert MetricMismatch().measure(run)["metric_gain_rel"] > 0.3
    assert judge(MetricMismatch(), run) is None


def test_a_loss_that_fell_and_rose_back_is_no_noisy_flat_loss():
    """A V-shaped val loss (2.6 -> 1.5 -> 2.6) ends near where it started while accuracy
    climbs: that is overfit's rise after a minimum, not a flat loss beside a better metric."""
    ep = np.arange(40)
    loss = 1.5 + 1.1 * np.abs(ep - 19.5) / 19.5 + 0.01 * RNG.standard_normal(40)
    acc = 0.45 + 0.15 * (1 - np.exp(-ep / 6)) + 0.003 * RNG.standard_normal(40)
    m = MetricMismatch().measure(run_of(val_loss=(ep, loss), val_acc=(ep, acc)))
    assert m["loss_range_z"] > 10 and abs(m["loss_gain_rel"]) < 0.1
    assert judge(MetricMismatch(), run_of(val_loss=(ep, loss), val_acc=(ep, acc))) is None


def test_unknown_direction_comes_from_the_correlation():
    good = 0.5 + 0.4 * (1 - np.exp(-EP / 5))
    frame = make_frame(
        "r",
        ["val_loss"] * 20 + ["quality"] * 20,
        np.r_[EP, EP],
        np.r_[_val_loss(), good],
        roles={"quality": "val_score"},
    )
    m = MetricMismatch().measure(RunSeries(frame))
    assert m["direction_source"] == "correlation" and m["score_direction"] == "higher"
    assert MetricMismatch().judge(m) is None


def test_name_direction():
    assert name_direction("eval_accuracy") == 1 and name_direction("val/wer") == -1
    assert name_direction("eval_mean_token_accuracy") == 1 and name_direction("val_x") == 0
    assert name_direction("val_psnr") == 1 and name_direction("val_ssim") == 1  # higher: better
    assert name_direction("val_DSC") == 1  # the Dice similarity coefficient
    # torchmetrics' class names (`MulticlassJaccardIndex` logged lowercased) and plurals
    assert name_direction("val_multiclassjaccardindex") == 1
    assert name_direction("val_binaryf1score") == 1 and name_direction("test_accuracies") == 1


def test_pairs_the_score_of_the_same_eval_set():
    loss0, loss1 = _val_loss(), _val_loss()
    chance = 0.1 + 0.01 * RNG.standard_normal(20)
    good = 0.5 + 0.4 * (1 - np.exp(-EP / 5))
    run = run_of(
        eval_g0_loss=(EP, loss0),
        eval_g0_accuracy=(EP, good),
        eval_g1_loss=(EP, loss1),
        eval_g1_accuracy=(EP, chance),
    )
    assert judge(MetricMismatch(), run) is None


@pytest.mark.slow
def test_real_runs_agree_with_their_labels(real_runs):
    assert_matches_real_labels(real_runs, MetricMismatch())


def test_val_loss_rising_while_accuracy_keeps_improving_is_reported_with_its_advice():
    # over-confidence: after its minimum the val loss climbs 10% while accuracy gains far more
    ep = np.arange(20)
    val_loss = np.where(ep < 6, 1.5 - 0.03 * ep, 1.32 + 0.012 * (ep - 6))
    acc = 0.5 + 0.3 * (1 - np.exp(-ep / 6))
    run = run_of(val_loss=(ep, val_loss), val_accuracy=(ep, acc), loss=(ep, 1.6 - 0.02 * ep))
    f = judge(MetricMismatch(), run)
    assert f is not None and f.evidence["direction"] == "loss_rises_metric_improves"
    assert f.evidence["loss_min_step"] == 6
    top = rank_causes("metric_mismatch", f.evidence)[0]
    assert "over-confidence" in top.cause and any("calibration" in c for c in top.checks)


def test_a_loss_soaring_past_a_nudged_metric_is_overfit_not_a_mismatch():
    ep = np.arange(20)
    val_loss = np.where(ep < 6, 1.5 - 0.03 * ep, 1.32 * (1 + 0.08 * (ep - 6)))
    acc = 0.7 + 0.01 * ep / 19
    run = run_of(val_loss=(ep, val_loss), val_accuracy=(ep, acc), loss=(ep, 1.6 - 0.05 * ep))
    assert judge(MetricMismatch(), run) is None


def test_error_rate_acronyms_read_as_lower_is_better_scores():
    from lossforensics.classifiers.metric_mismatch import name_direction
    from lossforensics.classifiers.roles import infer_role

    # PER (phoneme error rate) as the name's last token; wacc = word accuracy
    assert infer_role("val_per") == "val_score" and name_direction("val_per") == -1
    assert infer_role("val_wacc") == "val_score" and name_direction("val_wacc") == 1
    # 'per' inside a phrase is not an error rate
    assert infer_role("tokens_per_step") != "val_score"
    assert name_direction("loss_per_token") == 0


@pytest.mark.slow
def test_real_whisper_wer_improves_while_loss_wanders(real_runs_more):
    from tests.classifiers._labelled import _load

    path = real_runs_more / "hf_whisper_flemish_loss_flat_wer_improves"
    f = judge(MetricMismatch(), RunSeries(_load(str(path))))
    assert f is not None and f.evidence["direction"] == "metric_improves"


def _creep_run(creep: float, seed: int):
    """200 noisy evaluations: the val loss falls to its minimum at 80, then climbs by `creep`
    (relative) to the end, with per-evaluation scatter of 8% that hides it from one sigma's
    view; accuracy keeps improving from 0.94 to 0.97 after the minimum."""
    rng = np.random.default_rng(seed)
    ep = np.arange(200)
    base = np.where(ep < 80, 0.1 + 0.3 * np.exp(-ep / 15), 0.1 * (1 + creep * (ep - 80) / 119))
    val_loss = base * (1 + 0.08 * rng.standard_normal(200))
    acc = np.clip(0.7 + 0.27 * (1 - np.exp(-ep / 60)) + 0.002 * rng.standard_normal(200), 0, 1)
    return run_of(val_loss=(ep, val_loss), val_wacc=(ep, acc), loss=(ep, 1.0 * np.exp(-ep / 40)))


def test_a_steady_creep_over_many_noisy_evaluations_is_a_rise():
    f = judge(MetricMismatch(), _creep_run(0.12, seed=3))
    assert f is not None and f.evidence["direction"] == "loss_rises_metric_improves"
    assert f.evidence["loss_trend_after_min_p"] <= 0.01


def test_a_flat_noisy_val_after_its_minimum_is_no_rise():
    for seed in range(5):
        f = judge(MetricMismatch(), _creep_run(0.0, seed=seed))
        assert f is None or f.evidence["direction"] != "loss_rises_metric_improves"


@pytest.mark.slow
def test_real_g2p_val_loss_creeps_up_while_phoneme_error_rate_falls(real_runs_more):
    from tests.classifiers._labelled import _load

    path = real_runs_more / "csv_g2p_transformer_valloss_up_wacc_up"
    f = judge(MetricMismatch(), RunSeries(_load(str(path))))
    assert f is not None and f.evidence["direction"] == "loss_rises_metric_improves"


def test_a_metric_at_its_best_at_every_evaluation_has_no_room_to_disagree():
    # a tiny, easy validation set: accuracy 100% at every epoch while the loss still falls
    ep = np.arange(8)
    loss = 0.22 * np.exp(-ep / 2.5)
    for best in (1.0, 100.0):
        run = run_of(loss=(ep, loss * 2), val_loss=(ep, loss), val_accuracy=(ep, np.full(8, best)))
        assert judge(MetricMismatch(), run) is None
    # near miss: stuck at a lower constant (a broken metric) while the loss falls disagrees
    run = run_of(loss=(ep, loss * 2), val_loss=(ep, loss), val_accuracy=(ep, np.full(8, 0.5)))
    f = judge(MetricMismatch(), run)
    assert f is not None and f.evidence["direction"] == "loss_improves"


def test_a_multi_output_models_total_loss_has_no_partner_among_its_heads_scores():
    """Keras with three heads: the total val_loss falls 0.46 -> 0.22 while the audio head's
    accuracy stands still (its own loss barely moves) and the fused head's climbs. Paired by
    the shared `val_` prefix, the audio head's accuracy gave a mismatch the run does not have."""
    ep = np.arange(15)
    fall = np.exp(-ep / 5)
    run = run_of(
        loss=(ep, 0.3 + 0.5 * fall),
        val_loss=(ep, 0.2 + 0.26 * fall),
        val_audio_pred_accuracy=(ep, 0.73 + 0.005 * RNG.standard_normal(15)),
        val_audio_pred_loss=(ep, 0.11 + 0.01 * fall),
        val_fused_pred_accuracy=(ep, 0.85 - 0.16 * fall),
        val_fused_pred_loss=(ep, 0.05 + 0.06 * fall),
    )
    clf = MetricMismatch()
    assert "pairs with its own loss" in clf.skip_reason(run)
    assert clf.detect(run) is None


def _dice_beside(frozen: np.ndarray):
    """A segmentation run: the val loss improves and so does the val Dice (the score that
    pairs with it by name, read first: no disagreement there), while a val accuracy reads
    `frozen`."""
    dice = 0.70 + 0.08 * (1 - np.exp(-EP / 5)) + 0.005 * RNG.standard_normal(20)
    return run_of(
        val_seg_loss=(EP, _val_loss()), val_seg_dice=(EP, dice), val_accuracy=(EP, frozen)
    )


def test_another_val_score_frozen_while_the_loss_improves_is_a_mismatch():
    f = judge(MetricMismatch(), _dice_beside(np.full(20, 0.0135)))
    assert f is not None and f.evidence["direction"] == "loss_improves"
    assert f.evidence["score_metric"] == "val_accuracy" and f.evidence["metric_pinned"]


def test_near_misses_of_a_frozen_second_score():
    # frozen at its best possible value: an easy set, nothing to disagree with
    assert judge(MetricMismatch(), _dice_beside(np.ones(20))) is None
    # a second score that moves, however little it gains, is not frozen: the score paired
    # with the loss (the Dice, improving with it) is the one read
    moving = 0.5 + 0.01 * RNG.standard_normal(20)
    assert judge(MetricMismatch(), _dice_beside(moving)) is None


def test_a_map_at_zero_beside_a_falling_training_loss_and_no_val_loss():
    """mmdetection logs its training losses and `bbox_mAP: 0.0000` at every evaluation, and no
    validation loss: the run was not judged (metric_mismatch needs a validation loss), though
    "the loss falls and mAP stays 0" is the FAQ of detection trainers. Near misses: a mAP that
    rises once, a training loss that did not fall by half, a lower-is-better score at 0."""
    steps, evals = np.arange(0, 800, 10), np.arange(100, 801, 100)
    train = 2.3 / (1 + steps / 100)
    zero = run_of(loss=(steps, train), **{"val/bbox_mAP": (evals, np.zeros(8))})
    assert MetricMismatch().skip_reason(zero) is None
    f = judge(MetricMismatch(), zero)
    assert f is not None and f.evidence["reading"] == "score_at_zero"
    assert f.evidence["evaluations"] == 8 and "read exactly 0" in f.summary
    rises = np.r_[np.zeros(7), 0.01]
    assert judge(MetricMismatch(), run_of(loss=(steps, train), val_mAP=(evals, rises))) is None
    flat = np.full(len(steps), 1.2)
    assert judge(MetricMismatch(), run_of(loss=(steps, flat), val_mAP=(evals, np.zeros(8)))) is None
    assert (
        judge(MetricMismatch(), run_of(loss=(steps, train), val_wer=(evals, np.zeros(8)))) is None
    )


def test_one_evaluation_off_a_pinned_score_is_no_metric_improving():
    """A binary video classifier: val_accuracy 0.5 at six of 7 evaluations and 0.56 once,
    beside a val loss flat at ln 2. Its one move read as 714,286 sigmas of gain (a MAD noise of
    0), and metric_mismatch said the metric improved while the loss stood still."""
    ep = np.arange(1, 8)
    run = run_of(
        loss=(ep, np.array([0.7078, 0.6959, 0.6947, 0.6857, 0.6896, 0.6957, 0.6945])),
        val_loss=(ep, np.array([0.693, 0.6947, 0.7013, 0.6876, 0.6928, 0.693, 0.6921])),
        val_accuracy=(ep, np.array([0.5, 0.5, 0.5, 0.5, 0.5, 0.56, 0.5])),
    )
    assert judge(MetricMismatch(), run) is None


def test_a_val_loss_held_at_chance_while_the_score_learns_is_a_mismatch():
    # a binary segmentation run: val BCE starts at ln 2 and creeps 0.695 -> 0.660 (5%, smooth,
    # many sigmas) while training falls 18x and val Dice climbs 0.70 -> 0.89: a val loss that
    # never left chance level measures no learning; the two disagree
    ep = np.arange(100)
    val = 0.6946 - 0.035 * (1 - np.exp(-ep / 30)) + 0.001 * RNG.standard_normal(100)
    dice = 0.70 + 0.19 * (1 - np.exp(-ep / 25)) + 0.004 * RNG.standard_normal(100)
    train = 0.027 + 0.47 * np.exp(-ep / 15)
    run = run_of(loss=(ep, train), val_loss=(ep, val), val_dice=(ep, dice))
    f = judge(MetricMismatch(), run)
    assert f is not None and f.evidence["direction"] == "metric_improves"
    assert f.evidence["loss_at_chance"] == 2
    # near miss: the same loss creep from a start off chance (a fine-tune at 0.80) is a loss
    # that moved, as before: no finding
    run = run_of(loss=(ep, train), val_loss=(ep, val + 0.11), val_dice=(ep, dice))
    assert judge(MetricMismatch(), run) is None
