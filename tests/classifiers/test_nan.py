import numpy as np
from lossforensics.classifiers.nan import NaN
from lossforensics.classifiers.playbook import rank_causes

from tests.classifiers._labelled import judge, real_outcomes, run_of

RNG = np.random.default_rng(1)
STEPS = np.arange(1000)


def _loss():
    return 0.3 + 2.0 * np.exp(-STEPS / 200) + 0.02 * RNG.standard_normal(len(STEPS))


def test_nan_after_a_grad_norm_spike_points_at_a_blowup():
    loss, grad = _loss(), 1.0 + 0.05 * RNG.standard_normal(len(STEPS))
    grad[795:800] = [5, 20, 80, 300, 900]
    loss[800:] = np.nan
    f = judge(NaN(), run_of(loss=(STEPS, loss), grad_norm=(STEPS, grad)))
    assert f is not None and f.span.start_step == 800 and f.span.end_step == 999
    assert f.confidence >= 0.95 and not f.evidence["early"] and not f.evidence["recovered"]
    assert f.evidence["grad_norm_jump"] > 100 and f.evidence["grad_norm_calm"] is False
    assert rank_causes("nan", f.evidence)[0].probe == "lr_drop"


def test_nan_with_a_calm_grad_norm_points_at_data_or_numerics():
    loss, grad = _loss(), 1.0 + 0.05 * RNG.standard_normal(len(STEPS))
    loss[600:] = np.inf
    f = judge(NaN(), run_of(loss=(STEPS, loss), grad_norm=(STEPS, grad)))
    assert f.evidence["kind"] == "inf" and f.evidence["grad_norm_calm"] is True
    assert rank_causes("nan", f.evidence)[0].probe in {"batch_inspect", "nan_origin"}


def test_nan_at_the_first_steps_points_at_init_or_data():
    loss = _loss()
    loss[1:] = np.nan
    f = judge(NaN(), run_of(loss=(STEPS, loss)))
    assert f.evidence["early"] is True
    top = rank_causes("nan", f.evidence)[:2]
    assert {c.probe for c in top} <= {"batch_inspect", "activation_health", "nan_origin"}
    assert "learning rate" not in top[0].cause


def test_one_isolated_nan_that_recovered_is_a_weaker_finding():
    loss = _loss()
    loss[500] = np.nan
    f = judge(NaN(), run_of(loss=(STEPS, loss)))
    assert f.evidence["recovered"] is True and f.evidence["nonfinite_count"] == 1
    assert 0.7 <= f.confidence < 0.9 and f.span.start_step == f.span.end_step == 500


def test_a_loss_nan_on_and_off_that_ends_nan_is_not_said_to_have_stayed_nan():
    """fp16 overflow in an HF fine-tune: NaN at 6 of the 15 logs from step 5, finite values
    coming back between, the last one NaN. The summary said the loss became NaN `and stayed
    non-finite`, which the log contradicts."""
    steps = np.arange(20)
    loss = 6.0 - steps / 10
    loss[[5, 8, 9, 13, 16, 19]] = np.nan
    f = judge(NaN(), run_of(loss=(steps, loss)))
    assert not f.evidence["recovered"] and not f.evidence["stayed_nonfinite"]
    assert "on and off" in f.summary and "stayed" not in f.summary
    loss[5:] = np.nan
    stayed = judge(NaN(), run_of(loss=(steps, loss)))
    assert stayed.evidence["stayed_nonfinite"] and "stayed non-finite" in stayed.summary


def test_validation_nan_counts_and_a_finite_run_is_healthy():
    val = np.linspace(2, 1, 20)
    val[15:] = np.nan
    f = judge(NaN(), run_of(loss=(STEPS, _loss()), val_loss=(STEPS[::50], val)))
    assert f is not None and f.evidence["series"] == "val_loss" and f.span.start_step == 750
    assert judge(NaN(), run_of(loss=(STEPS, _loss()))) is None


def test_a_validation_nan_beside_a_training_one_is_reported_too():
    # a Keras log: the loss is NaN for one epoch (26), the val loss at the last (30)
    ep = np.arange(21, 31)
    loss = 2.2 - 0.04 * (ep - 21)
    loss[5] = np.nan
    val = 3.8 + 0.07 * (ep - 21)
    val[-1] = np.nan
    f = judge(NaN(), run_of(loss=(ep, loss), val_loss=(ep, val)))
    assert f.evidence["series"] == "loss" and f.evidence["also_nonfinite"] == {"val_loss": 30}
    assert "Also non-finite: val_loss (from step 30)." in f.summary
    alone = judge(NaN(), run_of(loss=(ep, loss), val_loss=(ep, 3.8 + 0.07 * (ep - 21))))
    assert alone.evidence["also_nonfinite"] == {} and "Also" not in alone.summary


def test_near_miss_a_single_inf_grad_norm_from_a_loss_scaler_is_not_nan():
    grad = 1.0 + 0.05 * RNG.standard_normal(len(STEPS))
    grad[[100, 400]] = np.inf
    assert judge(NaN(), run_of(loss=(STEPS, _loss()), grad_norm=(STEPS, grad))) is None
    # but a grad norm that stays NaN while the loss stops improving is: every update skipped
    grad[500:] = np.nan
    loss = _loss()
    loss[500:] = loss[495:500].mean() + 0.02 * RNG.standard_normal(500)
    f = judge(NaN(), run_of(loss=(STEPS, loss), grad_norm=(STEPS, grad)))
    assert f is not None and f.evidence["grad_norm_only"] and f.confidence == 0.6


def test_a_per_epoch_inf_grad_norm_beside_a_loss_still_improving_is_not_nan():
    """A BEiT-style fine-tune in fp16, 16 epochs: the logged grad norm is each epoch's mean,
    inf whenever one step of it overflowed (every epoch), the loss finite and falling 0.48 ->
    0.43 throughout: the loss scaler skipped those steps and the rest landed."""
    ep = np.arange(16)
    loss = 0.42 + 0.06 * np.exp(-ep / 5) + 0.001 * RNG.standard_normal(16)
    grad = np.full(16, np.inf)
    run = run_of(loss=(ep, loss), grad_norm=(ep, grad))
    assert judge(NaN(), run) is None
    why = NaN().set_aside(run)
    assert why is not None and "16 point(s) in a row from step 0" in why
    assert "improved by" in why and "updates landed" in why
    # near miss: the same grad norms beside a loss that stopped moving are a run that barely
    # trains
    stuck = 0.45 + 0.001 * RNG.standard_normal(16)
    f = judge(NaN(), run_of(loss=(ep, stuck), grad_norm=(ep, grad)))
    assert f is not None and f.evidence["grad_norm_only"] and f.evidence["kind"] == "inf"


def test_a_loss_scalers_scattered_skips_in_a_short_log_are_not_nan():
    """A TRL DPO run in fp16, 75 logged steps: grad_norm NaN at steps 1, 2, 18 and 74 (5% of
    them), finite at the next step each time, the loss finite throughout."""
    steps = np.arange(1, 76)
    loss = 0.69 - 0.2 * (1 - np.exp(-steps / 30)) + 0.02 * RNG.standard_normal(len(steps))
    grad = 10.0 + 3.0 * RNG.standard_normal(len(steps))
    grad[[0, 1, 17, 73]] = np.nan
    run = run_of(loss=(steps, loss), grad_norm=(steps, grad))
    assert judge(NaN(), run) is None
    why = NaN().set_aside(run)
    assert why is not None and "at 4 of its 75 points" in why and "loss scaler" in why
    grad[40:43] = np.nan  # three skipped updates in a row: the scaler did not recover ...
    loss[40:] = loss[35:40].mean() + 0.002 * RNG.standard_normal(35)  # ... nor the training
    f = judge(NaN(), run_of(loss=(steps, loss), grad_norm=(steps, grad)))
    assert f is not None and f.evidence["grad_norm_only"]


def test_one_point_run_that_is_nan():
    f = judge(NaN(), run_of(loss=(np.array([0]), np.array([np.nan]))))
    assert f is not None and f.evidence["early"]


def test_no_real_run_is_nan(real_runs):
    assert not [e for e, fired, _ in real_outcomes(real_runs, NaN()) if fired]


def test_a_three_point_validation_only_log_ending_in_nan_is_a_finding():
    from lossforensics.classifiers.diagnose import diagnose

    from tests.classifiers._labelled import frame_of

    d = diagnose(frame_of(eval_loss=(np.array([100, 200, 300]), np.array([0.9, 0.8, np.nan]))))
    assert d.verdict == "nan"
    assert d.findings[0].evidence["first_nonfinite_step"] == 300


def test_a_lone_nan_at_the_first_evaluation_is_not_yet_computed():
    # YOLO's first-epoch eval before any prediction: NaN once, finite after
    ep = np.arange(20)
    val = np.r_[0.06, np.nan, 0.05 - 0.001 * ep[2:]]
    run = run_of(train_loss=(ep, 0.1 - 0.002 * ep), val_loss=(ep, val))
    assert judge(NaN(), run) is None
    # ... and the diagnosis says it saw the NaN and why it let it pass
    why = NaN().set_aside(run)
    assert why is not None and "val_loss (NaN at step 1)" in why and "evaluation 2 of 20" in why
    val2 = np.r_[np.nan, np.nan, 0.05 - 0.001 * ep[2:]]  # two: a finding
    assert judge(NaN(), run_of(train_loss=(ep, 0.1 - 0.002 * ep), val_loss=(ep, val2)))
    # a finite run has nothing to set aside
    finite = run_of(train_loss=(ep, 0.1 - 0.002 * ep), val_loss=(ep[2:], val2[2:]))
    assert NaN().set_aside(finite) is None


def test_a_nan_session_restarted_over_the_same_steps_is_still_a_finding():
    # a session logs NaN from its first report and is abandoned; the next session logs the
    # same steps again with finite values: the step-sorted curve keeps only the later writes
    steps = np.r_[np.arange(0, 60, 20), np.arange(0, 400, 20)]
    loss = np.r_[[np.nan] * 3, 2.0 + np.exp(-np.arange(20) / 5)]
    f = judge(NaN(), run_of(loss=(steps, loss)))
    assert f is not None and f.evidence["first_nonfinite_step"] == 0
    assert f.evidence["nonfinite_count"] == 3 and f.evidence["recovered"]
    clean = np.r_[[3.0, 2.9, 2.8], 2.0 + np.exp(-np.arange(20) / 5)]
    assert judge(NaN(), run_of(loss=(steps, clean))) is None


def test_a_loss_head_other_than_the_primary_that_is_nan_is_a_finding():
    """A two-head model (class + box regression, as a Lightning log writes it): the box head
    is NaN at every step while the class head, the primary, stays finite. The total of the
    heads is NaN, so the run is: nan names the head."""
    steps = np.arange(49, 1300, 50)
    cls = 5.3 + 0.01 * RNG.standard_normal(len(steps))
    box = np.full(len(steps), np.nan)
    run = run_of(classification_loss=(steps, cls), regression_loss=(steps, box))
    assert run.primary("train_loss") == "classification_loss"
    f = judge(NaN(), run)
    assert f is not None and f.evidence["series"] == "regression_loss"
    assert f.evidence["early"] is True and f.confidence >= 0.95
    # a second validation loss NaN at its first evaluation only had nothing to measure yet
    val_cls = np.linspace(1.5, 0.6, 26)
    val_obj = np.linspace(0.9, 0.3, 26)
    val_obj[0] = np.nan
    run = run_of(
        loss=(steps, 2.0 - steps / 1000),
        **{"val/cls_loss": (steps, val_cls), "val/obj_loss": (steps, val_obj)},
    )
    assert run.primary("val_loss") == "val/cls_loss" and judge(NaN(), run) is None


def test_a_part_nan_at_every_print_beside_losses_still_learning_is_outside_the_gradient():
    """DAFormer with its feature-distance term off logs `src.loss_imnet_feat_dist: nan` at
    every print while its segmentation losses fall 2.68 -> 1.61: a NaN in the summed loss
    would have made every weight, and every loss, NaN at the next update."""
    steps = np.array([50, 100, 150, 200])
    run = run_of(
        **{
            "decode.loss_seg": (steps, np.array([2.684, 2.386, 2.035, 1.608])),
            "mix.decode.loss_seg": (steps, np.array([1.405, 1.323, 1.058, 0.784])),
            "src.loss_imnet_feat_dist": (steps, np.full(4, np.nan)),
        }
    )
    assert judge(NaN(), run) is None
    why = NaN().set_aside(run)
    assert why is not None and "src.loss_imnet_feat_dist is non-finite at all 4" in why


def test_near_misses_of_a_part_outside_the_gradient_a_nan_total_is_backpropagated():
    """Mask R-CNN in Keras: `loss: nan` and three heads NaN from the first batch, while the
    bar's running means of the box and mask losses fall (NaN batches add nothing): the total
    is what was backpropagated, so it stays a finding; so does a part beside heads that did
    not learn (the two-head test above)."""
    steps = np.arange(7, 14)
    falling = np.array([0.184, 0.161, 0.143, 0.129, 0.117, 0.107, 0.099])
    run = run_of(
        loss=(steps, np.full(7, np.nan)),
        rpn_class_loss=(steps, np.full(7, np.nan)),
        mrcnn_bbox_loss=(steps, falling),
        mrcnn_mask_loss=(steps, 0.67 * falling),
    )
    f = judge(NaN(), run)
    assert f is not None and f.evidence["series"] == "loss"


def test_a_nan_at_the_first_print_of_a_window_from_mid_run_is_not_early():
    """cryoDRGN pasted from epoch 2457, NaN at its first print: "early" ranks initialisation and
    the data first, which a run that trained 2456 epochs finitely rules out. The same log from
    epoch 0 is early."""
    losses = np.r_[np.nan, 0.91, 0.92, 0.9, np.nan, 0.93, 0.91, 0.9]
    late = judge(NaN(), run_of(loss=(2457 + np.arange(8), losses)))
    start = judge(NaN(), run_of(loss=(np.arange(8), losses)))
    assert late is not None and late.evidence["early"] is False
    assert start is not None and start.evidence["early"] is True
