import numpy as np
import pytest
from lossforensics.classifiers.diagnose import diagnose
from lossforensics.classifiers.distribution_mismatch import DistributionMismatch
from lossforensics.classifiers.overfit import Overfit

from tests.classifiers._labelled import assert_matches_real_labels, frame_of, judge, run_of

RNG = np.random.default_rng(11)


def _train(ep):
    return 0.1 + 2.0 * np.exp(-ep / 6)


def test_flat_val_while_train_falls_fires_over_the_whole_span():
    ep = np.arange(30)
    val = 2.3 + 0.02 * RNG.standard_normal(30)
    f = judge(DistributionMismatch(), run_of(loss=(ep, _train(ep)), val_loss=(ep, val)))
    assert f is not None and f.label == "distribution_mismatch"
    assert (f.span.start_step, f.span.end_step) == (0, 29)
    assert f.evidence["val_flat"] is True and -1.0 <= f.evidence["correlation"] <= 1.0
    assert f.evidence["val_follow_ratio"] < 0.1


def test_a_flat_val_loss_beside_a_converged_val_accuracy_is_no_mismatch():
    # a YOLOv8 classifier: train loss 2.1 -> 0.1, val loss flat at 2.3 (computed on softmaxed
    # outputs), top-1 accuracy 0.955 -> 0.99: the model gets the held-out data right
    ep = np.arange(30)
    val = 2.3 + 0.02 * RNG.standard_normal(30)
    top1 = 0.99 - 0.035 * np.exp(-ep / 3)
    series = {"loss": (ep, _train(ep)), "val_loss": (ep, val)}
    assert judge(DistributionMismatch(), run_of(**series, val_accuracy=(ep, top1))) is None
    # near miss: the same losses beside an accuracy stuck at 60% are a mismatch
    stuck = run_of(**series, val_accuracy=(ep, top1 - 0.39))
    assert judge(DistributionMismatch(), stuck) is not None


def test_a_squeezed_val_loss_beside_a_val_accuracy_still_climbing_is_no_mismatch():
    # a YOLOv8 classifier short of converging: val loss squeezed near its softmax floor (3.26 ->
    # 2.9), top-1 0.66 -> 0.92: the held-out data is learned with the training data
    ep = np.arange(20)
    val = 2.9 + 0.36 * np.exp(-ep / 4) + 0.01 * RNG.standard_normal(20)
    top1 = 0.92 - 0.26 * np.exp(-ep / 4)
    series = {"loss": (ep, _train(ep)), "val_loss": (ep, val)}
    assert judge(DistributionMismatch(), run_of(**series, val_accuracy=(ep, top1))) is None
    # near miss: the same losses beside an accuracy that closed a third of its room
    slow = 0.66 + (top1 - 0.66) * 0.5
    assert judge(DistributionMismatch(), run_of(**series, val_accuracy=(ep, slow))) is not None


def test_val_high_and_barely_improving_fires():
    ep = np.arange(30)
    val = 2.5 - 0.1 * (1 - np.exp(-ep / 6)) + 0.01 * RNG.standard_normal(30)
    assert judge(DistributionMismatch(), run_of(loss=(ep, _train(ep)), val_loss=(ep, val)))


def test_val_climbing_from_the_first_eval_fires_and_is_not_flat():
    ep = np.arange(1, 25)
    val = 2.75 + 1.5 * (1 - np.exp(-ep / 5)) + 0.005 * RNG.standard_normal(24)
    f = judge(DistributionMismatch(), run_of(loss=(ep, _train(ep)), val_loss=(ep, val)))
    assert f is not None and f.evidence["val_flat"] is False


def test_step_zero_eval_counts_as_the_val_improving():
    ep = np.arange(1, 31)
    val = np.concatenate(([5.7], 1.1 + 0.05 * np.arange(30)))
    run = run_of(loss=(ep, _train(ep)), eval_loss=(np.arange(31), val))
    assert judge(DistributionMismatch(), run) is None


def test_healthy_val_following_train_is_quiet():
    ep = np.arange(30)
    val = 0.3 + 1.2 * np.exp(-ep / 7) + 0.01 * RNG.standard_normal(30)
    assert judge(DistributionMismatch(), run_of(loss=(ep, _train(ep)), val_loss=(ep, val))) is None


def test_overfit_shape_is_left_to_overfit():
    ep = np.arange(30)
    val = np.where(ep < 8, 1.5 - 0.1 * ep, 0.7 + 0.08 * (ep - 8))
    assert judge(DistributionMismatch(), run_of(loss=(ep, _train(ep)), val_loss=(ep, val))) is None


def test_near_miss_first_eval_after_train_converged():
    steps = np.arange(25, 5001, 25)
    train = 0.3 * np.exp(-steps / 300) + 1e-3
    evals = np.arange(1000, 5001, 1000)
    val = np.array([0.40, 0.41, 0.40, 0.405, 0.41])
    assert judge(DistributionMismatch(), run_of(loss=(steps, train), val_loss=(evals, val))) is None


def test_train_that_barely_moves_is_not_a_mismatch():
    ep = np.arange(20)
    train = 7.6 - 0.01 * ep
    val = 7.9 + 0.05 * RNG.standard_normal(20)
    assert judge(DistributionMismatch(), run_of(loss=(ep, train), val_loss=(ep, val))) is None


def test_val_logged_sparsely_on_a_step_axis():
    steps = np.arange(0, 10001)
    evals = np.arange(500, 10001, 500)
    run = run_of(
        loss=(steps, 0.1 + 2.0 * np.exp(-steps / 2000)),
        val_loss=(evals, 2.2 + 0.01 * RNG.standard_normal(len(evals))),
    )
    f = judge(DistributionMismatch(), run)
    assert f is not None and f.span.start_step == 500


def test_negative_losses():
    ep = np.arange(30)
    val = -1.0 + 0.02 * RNG.standard_normal(30)
    run = run_of(loss=(ep, _train(ep) - 3.0), val_loss=(ep, val))
    assert judge(DistributionMismatch(), run) is not None


def test_judge_alone():
    m = {
        "train_improvement_pct": 80.0,
        "coverage": 0.9,
        "val_rise_vs_train": 0.0,
        "val_follow_ratio": 0.02,
        "val_improvement_pct": 1.0,
        "val_head": 2.3,
        "val_tail": 2.3,
        "train_head": 2.0,
        "train_tail": 0.2,
        "correlation": 0.1,
        "start_step": 0,
        "end_step": 9,
        "val_rebound": 0.0,
    }
    clf = DistributionMismatch()
    assert clf.judge(dict(m)) is not None
    assert clf.judge({**m, "coverage": 0.2}) is None
    assert clf.judge({**m, "val_follow_ratio": 0.5}) is None
    # a little improvement (up to widest_follow) counts as flat, kept or given back: beyond
    # that bar a val rising from an early minimum is overfit's
    assert clf.judge({**m, "val_follow_ratio": 0.15}) is not None
    assert clf.judge({**m, "val_follow_ratio": 0.15, "val_rebound": 0.9}) is not None
    assert clf.judge({**m, "val_follow_ratio": 0.25, "val_rebound": 0.9}) is None


@pytest.mark.parametrize(("seed", "label"), [(4, "distribution_mismatch"), (2, "overfit")])
def test_a_val_that_gave_back_a_small_early_gain_gets_exactly_one_label(seed, label):
    # a Keras history with a noisy small val split (20% a point): flat at its first level, one
    # low evaluation, then a climb to 2x while the train keeps falling. Whether the val followed
    # the train by under widest_follow (seed 4: 19%, a val that never followed) or over it
    # (seed 2: 22%, learned a little and lost it), one label takes it, never none
    rng = np.random.default_rng(seed)
    ep = np.arange(32)
    train = 0.0012 + 0.0077 * np.exp(-ep / 10)
    level = np.where(ep <= 8, 0.014, 0.012 + 0.0006 * (ep - 8))
    val = level * (1 + 0.2 * rng.standard_normal(32))
    val[8] = 0.009
    run = run_of(loss=(ep, train), val_loss=(ep, val))
    assert DistributionMismatch().measured(run)["val_rebound"] > 1  # it gave the gain back
    found = {c.label for c in (DistributionMismatch(), Overfit()) if judge(c, run) is not None}
    assert found == {label}


@pytest.mark.slow
def test_real_runs_agree_with_their_labels(real_runs):
    assert_matches_real_labels(real_runs, DistributionMismatch())


def test_a_first_evaluation_at_the_untrained_loss_that_only_climbs_is_a_mismatch():
    # most of the train's fall came before the first (per-epoch) evaluation, yet that evaluation
    # still sits at the untrained loss and the val only climbs: nothing reached the val set
    steps = np.arange(1, 1001)
    train = 2.3 * np.exp(-steps / 50) + 0.01
    vx = np.arange(100, 1001, 100)
    val = 2.35 + 2.0 * (vx - 100) / 900
    f = judge(DistributionMismatch(), run_of(loss=(steps, train), val_loss=(vx, val)))
    assert f is not None and f.evidence["val_first_untrained"]
    assert f.evidence["coverage"] < 0.5


def test_a_late_first_evaluation_of_a_converged_fine_tune_is_left_to_overfit():
    # a fine-tune starting at its pre-trained loss, converged before the first evaluation
    steps = np.arange(1, 1001)
    train = 0.3 * np.exp(-steps / 30) + 1e-3
    vx = np.arange(200, 1001, 200)
    val = 0.32 + 0.1 * (vx - 200) / 800
    assert judge(DistributionMismatch(), run_of(loss=(steps, train), val_loss=(vx, val))) is None


def test_a_flat_val_that_never_beat_the_untrained_loss_is_a_mismatch_however_late_its_first_eval():
    # the LR is crushed within the first 10% so training is done before the first evaluation;
    # the validation features are shifted: val sits at 3.8, far above the untrained 1.0
    steps = np.arange(5, 1505, 5)
    train = 0.35 + 0.67 * np.exp(-steps / 40) + 0.02 * RNG.standard_normal(len(steps))
    evals = np.arange(75, 1501, 75)
    val = np.r_[3.777, np.full(len(evals) - 1, 3.878)]
    series = {"train/loss": (steps, train), "eval/loss": (evals, val)}
    f = judge(DistributionMismatch(), run_of(**series))
    assert f is not None and f.evidence["val_never_learned"]
    assert judge(Overfit(), run_of(**series)) is None


def test_a_climbing_val_that_never_beat_the_untrained_loss_is_a_mismatch_however_late():
    # training is done before the first evaluation, which already sits at 3.8x the untrained
    # loss and only climbs from there: never generalised, so no minimum to overfit from
    steps = np.arange(5, 1505, 5)
    train = 0.35 + 0.67 * np.exp(-steps / 40) + 0.02 * RNG.standard_normal(len(steps))
    evals = np.arange(150, 1501, 75)
    val = 3.8 + 3.2 * (evals - 150) / 1350
    series = {"train/loss": (steps, train), "eval/loss": (evals, val)}
    f = judge(DistributionMismatch(), run_of(**series))
    assert f is not None and f.evidence["val_never_learned"]
    assert f.evidence["train_done_before_eval"] > 0.9 and f.evidence["val_change_rel"] > 0.5
    assert diagnose(frame_of(**series)).verdict == "distribution_mismatch"


def _broken_val_run(val_loss):
    """14 epochs of a 100-class classifier: train accuracy 0.82 -> 0.95 and its loss falling;
    the val accuracy at chance (0.01) while `val_loss` is what the val path logged."""
    ep = np.arange(14)
    acc = 0.82 + 0.13 * (1 - np.exp(-ep / 4))
    val_acc = 0.01 + 0.001 * RNG.standard_normal(14)
    return run_of(
        loss=(ep, 0.5 * np.exp(-ep / 6)),
        accuracy=(ep, acc),
        val_loss=(ep, val_loss),
        val_accuracy=(ep, np.abs(val_acc)),
    )


def test_val_accuracy_at_chance_beside_a_broken_val_loss_is_a_mismatch_from_the_scores():
    val_loss = np.r_[[np.nan] * 6, [2.6, 18.4, 4.6, 0.8, 5.6, 4.1, 4.4, 0.6]]
    f = judge(DistributionMismatch(), _broken_val_run(val_loss))
    assert f is not None and f.evidence["reading"] == "scores"
    assert f.evidence["score_ratio"] < 0.05 and f.evidence["val_loss_nonfinite"] == 6


def test_val_accuracy_at_chance_beside_a_val_loss_that_follows_training_is_the_metrics():
    # the val loss improves with training: the val data is fine, the metric is the suspect
    ep = np.arange(14)
    f = judge(DistributionMismatch(), _broken_val_run(0.6 * np.exp(-ep / 6) + 0.05))
    assert f is None


def test_a_val_only_nan_beside_a_score_gap_puts_the_mismatch_first():
    from lossforensics.classifiers.diagnose import diagnose_run

    val_loss = np.r_[[np.nan] * 6, [2.6, 18.4, 4.6, 0.8, 5.6, 4.1, 4.4, 0.6]]
    d = diagnose_run(_broken_val_run(val_loss))
    labels = [f.label for f in d.findings]
    assert labels[0] == "distribution_mismatch" and "nan" in labels
    assert d.findings[labels.index("nan")].evidence["val_only"] is True


@pytest.mark.slow
def test_real_mobilenetv3_val_at_chance_with_nan_val_loss(real_runs_more):
    from lossforensics.classifiers.diagnose import diagnose_run
    from lossforensics.classifiers.run import RunSeries

    from tests.classifiers._labelled import _load

    path = real_runs_more / "keras_csvlogger_mobilenetv3_val_nan_mismatch"
    d = diagnose_run(RunSeries(_load(str(path))))
    assert [f.label for f in d.findings][:2] == ["distribution_mismatch", "nan"]


def test_a_val_loss_that_never_changes_measures_nothing():
    # the class loss of a one-class detector is 0 at every evaluation: no mismatch to read
    ep = np.arange(30)
    run = run_of(loss=(ep, _train(ep)), val_loss=(ep, np.zeros(30)))
    assert judge(DistributionMismatch(), run) is None


def test_a_fine_tunes_val_that_had_learned_before_its_first_evaluation_is_no_mismatch():
    # evaluated each epoch: train 0.64 -> 0.26 (memorising), the val already at 0.555 when
    # first measured (below the untrained 0.64) then down 12% before flattening; it kept its
    # small gain, so by the follow ratio alone (up to 20% then) it would be a mismatch
    ep = np.arange(1, 6)
    train = np.array([0.642, 0.448, 0.364, 0.299, 0.264])
    val = np.array([0.555, 0.494, 0.485, 0.491, 0.492])
    run = run_of(loss=(ep * 1000, train), val_loss=(ep * 1000 + 98, val))
    m = DistributionMismatch().measure(run)
    assert m is not None and m["val_first_learned"] is True
    assert m["val_follow_ratio"] <= 0.2 and m["val_rebound"] <= 0.5
    assert judge(DistributionMismatch(), run) is None


def test_a_val_flat_after_a_learned_first_evaluation_converged_early():
    # the val already at 0.26 when first measured (training started at 1.7), flat after it
    # while training keeps falling: it generalised before anyone measured it
    steps = np.arange(1, 12)
    train = 0.2 + 1.5 * np.exp(-steps / 2.0)
    val = 0.262 + 0.003 * RNG.standard_normal(11)
    run = run_of(loss=(steps, train), val_loss=(steps, val))
    m = DistributionMismatch().measure(run)
    assert m is not None and m["val_first_learned"] is True and m["val_follow_ratio"] <= 0.1
    assert judge(DistributionMismatch(), run) is None


def test_a_val_at_the_untrained_level_that_dips_a_little_is_still_a_mismatch():
    # the same dip from a first evaluation at the untrained level: nothing had reached the val
    ep = np.arange(1, 31)
    val = 2.3 - 0.08 * np.exp(-((ep - 6.0) ** 2) / 8) + 0.005 * RNG.standard_normal(30)
    f = judge(DistributionMismatch(), run_of(loss=(ep, _train(ep)), val_loss=(ep, val)))
    assert f is not None and f.evidence["val_first_untrained"] is True


def test_the_verdict_read_without_the_correlation_is_the_verdict_read_with_it():
    """detect decides on the shared measurement, which leaves out the correlation (evidence
    only), and measures again with it for a run it finds: both agree on everything else."""
    rng = np.random.default_rng(17)
    clf, fired = DistributionMismatch(), 0
    for trial in range(60):
        n = int(rng.integers(5, 60))
        ep = np.arange(n)
        follow = rng.uniform(0, 1) if trial % 2 else rng.uniform(0, 0.1)
        val = 2.4 - follow * 2.0 * (1 - np.exp(-ep / 6)) + 0.02 * rng.standard_normal(n)
        run = run_of(loss=(ep, _train(ep)), val_loss=(ep, val))
        full, quick = clf.measure(run), clf.measure(run, correlation=False)
        if full is None:
            assert quick is None
            continue
        assert quick is not None and quick["correlation"] is None
        assert {**quick, "correlation": full["correlation"]} == full
        assert list(quick) == list(full)
        found = clf.judge(full)
        fired += found is not None
        assert clf.detect(run) == found
    assert 5 < fired < 50


def test_a_first_val_accuracy_that_kept_up_with_the_train_says_the_val_had_learned():
    """A Keras fine-tune, 6 epochs: train accuracy 0.916 in epoch 0, val accuracy 0.858 at its
    first evaluation, then val loss rising 0.340 -> 0.485 while train falls 0.211 -> 0.096. The
    first val loss sits above the first train value (an epoch's mean, already trained), which
    read alone calls it untrained; the accuracies say it had learned: overfit from the start."""
    ep = np.arange(6)
    loss = np.array([0.2110, 0.1702, 0.1412, 0.1222, 0.1159, 0.0957])
    val = np.array([0.3397, 0.3615, 0.3926, 0.4584, 0.4252, 0.4855])
    acc = np.array([0.9162, 0.9348, 0.9463, 0.9540, 0.9563, 0.9643])
    val_acc = np.array([0.8584, 0.8566, 0.8488, 0.8452, 0.8500, 0.8442])
    run = run_of(
        loss=(ep, loss), val_loss=(ep, val), accuracy=(ep, acc), val_accuracy=(ep, val_acc)
    )
    m = DistributionMismatch().measure(run)
    assert m["val_first_score_kept"] and not m["val_first_untrained"]
    assert judge(DistributionMismatch(), run) is None
    assert judge(Overfit(), run) is not None
    # near miss: a val accuracy far below the train's from the first evaluation did not learn
    shifted = run_of(
        loss=(ep, loss), val_loss=(ep, val), accuracy=(ep, acc), val_accuracy=(ep, val_acc - 0.4)
    )
    assert judge(DistributionMismatch(), shifted) is not None
