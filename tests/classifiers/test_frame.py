import numpy as np
import pandas as pd
import pytest
from lossforensics.classifiers.errors import InvalidFrameError, InvalidRoleError
from lossforensics.classifiers.frame import (
    COLUMNS,
    DTYPES,
    concat_frames,
    empty_frame,
    make_frame,
    validate_frame,
)
from lossforensics.classifiers.roles import infer_role


def test_make_frame_has_schema_and_keeps_nonfinite():
    f = make_frame("r", ["loss", "loss", "lr"], [0, 1, 0], [1.0, np.nan, np.inf])
    assert tuple(f.columns) == COLUMNS
    for c in COLUMNS:
        assert f[c].dtype == DTYPES[c], c
    assert np.isnan(f["value"][1]) and np.isinf(f["value"][2])
    assert list(f["role"]) == ["train_loss", "train_loss", "lr"]
    assert list(f["seq"]) == [0, 1, 2]


def test_make_frame_of_categoricals_is_the_frame_of_their_names():
    """Codes + names (a reader's Categoricals) skip validate_frame's pass: the frame is the one
    the names give, valid as built; a missing name (code -1) is still refused."""
    metric = pd.Categorical.from_codes([2, 0, 1, 0, 2], categories=["loss", "val_loss", "lr"])
    run = pd.Categorical.from_codes([0, 1, 1, 0, 1], categories=["a", "b"])
    steps, values = [0, 1, 1, 2, 3], [1.0, np.nan, 0.5, np.inf, 0.1]
    fast = make_frame(run, metric, steps, values, roles={"lr": "other"})
    slow = make_frame(list(run), list(metric), steps, values, roles={"lr": "other"})
    pd.testing.assert_frame_equal(fast, slow)
    pd.testing.assert_frame_equal(validate_frame(fast.copy()), fast)
    for c in COLUMNS:
        assert fast[c].dtype == DTYPES[c], c
    assert fast["metric"].array.__arrow_array__().num_chunks == 1
    missing = pd.Categorical.from_codes([0, -1], categories=["loss"])
    with pytest.raises(InvalidFrameError, match="missing"):
        make_frame("r", missing, [0, 1], [1.0, 2.0])
    with pytest.raises(InvalidFrameError, match="missing"):
        unnamed = pd.Categorical.from_codes([0, -1], categories=["r"])
        make_frame(unnamed, pd.Categorical.from_codes([0, 0], categories=["loss"]), [0, 1], [1, 2])


def test_empty_frame_validates():
    assert len(validate_frame(empty_frame())) == 0


def test_validate_names_the_bad_column():
    f = make_frame("r", ["loss"], [0], [1.0]).drop(columns=["seq"])
    with pytest.raises(InvalidFrameError, match="seq"):
        validate_frame(f)
    g = make_frame("r", ["loss"], [0], [1.0])
    g["step"] = ["x"]
    with pytest.raises(InvalidFrameError, match="step"):
        validate_frame(g)


def test_role_override_exact_and_glob_and_unknown():
    f = make_frame(
        "r",
        ["weird", "acc_top"],
        [0, 0],
        [1.0, 2.0],
        roles={"weird": "val_loss", "acc_*": "val_score"},
    )
    assert list(f["role"]) == ["val_loss", "val_score"]
    with pytest.raises(InvalidRoleError):
        make_frame("r", ["x"], [0], [1.0], roles={"x": "nonsense"})


def test_split_context_makes_val():
    f = make_frame("r", ["validation/epoch_loss"], [0], [1.0])
    assert f["role"][0] == "val_loss"
    g = make_frame("r", ["epoch_loss"], [0], [1.0], splits={"epoch_loss": "validation"})
    assert g["role"][0] == "val_loss"


@pytest.mark.parametrize(
    "name,role",
    [
        ("train/loss", "train_loss"),
        ("loss", "train_loss"),
        ("total_loss", "train_loss"),
        ("eval_loss", "val_loss"),
        ("val/loss", "val_loss"),
        ("val_loss", "val_loss"),
        ("eval_g0_loss", "val_loss"),
        ("validation/epoch_loss", "val_loss"),
        ("Vali Loss", "val_loss"),  # the Time-Series-Library family's
        # a loss's spread over batches or folds is no loss
        ("loss/std", "other"),
        ("valid error_rate", "val_score"),  # SpeechBrain's
        # a generative model's sample quality against held-out data
        ("fid", "val_score"),
        ("fid50k_full", "val_score"),
        ("test/lpips", "val_score"),
        ("fidelity", "other"),
        # a capital that ends a name is a word (Spinning Up's `LossV`, a DCGAN's `lossD`)
        ("LossV", "train_loss"),
        ("DeltaLossV", "other"),
        ("train err_rate", "train_score"),
        ("val_loss_std", "other"),
        ("learning_rate", "lr"),
        ("lr", "lr"),
        ("lr-AdamW", "lr"),
        ("x/lr0", "lr"),
        ("grad_norm", "grad_norm"),
        ("train/grad_norm", "grad_norm"),
        # a norm named by its scope alone is the global gradient norm clipping returns
        ("norm", "grad_norm"),
        ("gnorm", "grad_norm"),
        ("total_norm", "grad_norm"),
        ("train/global_norm", "grad_norm"),
        ("param_norm", "other"),
        ("weight_norm", "other"),
        ("accuracy", "train_score"),
        ("val_acc", "val_score"),
        ("eval_wer", "val_score"),
        ("train_samples_per_second", "throughput"),
        ("epoch", "other"),
        ("eval_runtime", "other"),
        ("trainLoss", "train_loss"),
        ("test/accuracy", "val_score"),
        # acronyms stay whole: mAP is not "m" + "ap", mIoU not "m" + "io" + "u"
        ("val_mAP", "val_score"),
        ("val/mAP50", "val_score"),
        ("eval_mIoU", "val_score"),
        ("valMAE", "val_score"),
        ("valAccuracy", "val_score"),
        ("evalBLEU", "val_score"),
        ("eval_matthews_correlation", "val_score"),
        ("eval_spearmanr", "val_score"),
        ("val_kappa", "val_score"),
        ("test_acc1", "val_score"),
        ("eval_prec1", "val_score"),  # older timm's summary.csv: precision@1, a top-1 accuracy
        ("testing psnr", "val_score"),  # a split printed as a verb (`testing psnr = 34.2`)
        ("testing_loss", "val_loss"),
        ("eval_prec5", "val_score"),
        ("val_jaccard_coef", "val_score"),
        ("jaccard_coef", "train_score"),
        ("val_DSC", "val_score"),  # the Dice similarity coefficient, as medical papers name it
        ("val_AP", "val_score"),
        ("CrossEntropy", "train_loss"),
        ("SmoothL1", "train_loss"),
        ("xent", "train_loss"),  # OpenNMT's and TensorFlow's cross-entropy
        ("valid_xent", "val_loss"),
        ("val_categorical_crossentropy", "val_loss"),
        ("policy_entropy", "other"),
        ("Best Valid accuracy", "other"),
        ("best_val_loss", "other"),
        # a printed table's two-letter split prefixes
        ("tr_loss", "train_loss"),
        ("learn", "train_loss"),  # CatBoost's `learn: 0.687  test: 0.688`
        ("learn_time", "other"),
        ("va_loss", "val_loss"),
        ("te_acc", "val_score"),
        # the HF Trainer's `Trainer.predict` on a test split, never the training loss
        ("predict_loss", "val_loss"),
        ("predict_accuracy", "val_score"),
        # near miss: a prediction head's loss is trained
        ("pred_loss", "train_loss"),
        # a Chinese script's words: train/validation/test loss and accuracy, learning rate
        ("训练损失", "train_loss"),
        ("验证集损失", "val_loss"),
        ("测试准确率", "val_score"),
        ("学习率", "lr"),
        # ... traditional Chinese and Japanese
        ("驗證損失", "val_loss"),
        ("テスト損失", "val_loss"),
        ("学習率", "lr"),
        # ... and Korean
        ("검증 손실", "val_loss"),
        ("학습 손실", "train_loss"),
        # ... and European languages: whole words, Russian by its stems
        ("Pérdida de validación", "val_loss"),
        ("Validierung Verlust", "val_loss"),
        ("Perda de Treinamento", "train_loss"),
        ("потери на валидации", "val_loss"),
        # near misses: an English `precision` stays itself (a score); an unknown accented word
        # is a word, not ASCII fragments (`Imágenes` is no `im` + `genes`)
        ("precision", "train_score"),
        ("Total Imágenes", "other"),
        # near miss: a count of training samples is no training loss, though `训练` alone is
        ("完整训练集样本数", "other"),
        # a split's bare name is its loss (`train=2.56, val=2.37`)
        ("train", "train_loss"),
        ("val", "val_loss"),
        ("Validation", "val_loss"),
        # ... with only when and how it was pooled
        ("validation_epoch_average", "val_loss"),
        ("train_avg", "train_loss"),
        ("val_epoch", "other"),  # a counter: no pooling word says it is a value
        ("train_step", "other"),
        ("epoch_val", "other"),  # the epoch at which val ran, not a split's value
        # plurals and short forms scripts print
        ("val_accs", "val_score"),
        ("train_accs", "train_score"),
        ("val_prec", "val_score"),
        ("val_sens", "val_score"),
        # a decoded held-out score is the validation set's even when bare; train's when named
        ("bleu", "val_score"),
        ("rougeL", "val_score"),
        ("wer", "val_score"),
        ("train_bleu", "train_score"),
        # a detector's average precision comes from an evaluator on held-out images
        ("bbox/AP", "val_score"),
        ("bbox/APs", "val_score"),
        ("segm/AP75", "val_score"),
        ("mAP", "val_score"),
        # signal and image quality: denoising, super-resolution, source separation
        ("val_psnr", "val_score"),
        ("val_ssim", "val_score"),
        ("val_si_sdr", "val_score"),
        # torchmetrics' class names lowercased into one word, and plural score names
        ("val_multiclassjaccardindex", "val_score"),
        ("train_multiclassjaccardindex_epoch", "train_score"),
        ("val_binaryf1score", "val_score"),
        ("val_multiclassaccuracy", "val_score"),
        ("train_accuracies", "train_score"),
        ("test_accuracies", "val_score"),
        ("binary", "other"),
        ("multiclass_loss", "train_loss"),
        # a loss numbered without a separator is a loss, as `loss_0` is
        ("loss0", "train_loss"),
        ("val_loss1", "val_loss"),
        ("acc0", "other"),
        # the verbs a script prints its splits as
        ("evaluated with loss", "val_loss"),
        ("validating loss", "val_loss"),
        ("trained with loss", "train_loss"),
        # a numbered split is its split (a second validation set, VideoMAE's `val2_loss`)
        ("val2_loss", "val_loss"),
        ("val2_acc", "val_score"),
        ("valid1_loss", "val_loss"),
        ("test2_loss", "val_loss"),
        ("train2_loss", "train_loss"),
        # a running extreme named by its first word is the best so far (PySlowFast)
        ("min_top1_err", "other"),
        ("max_val_acc", "other"),
        ("min_lr", "lr"),
        ("lrate", "lr"),
        ("Grad", "grad_norm"),
        # a cross-validation set is held out (WeNet's `cv_loss`, Kaldi's `CROSSVAL AVG.LOSS`)
        ("cv_loss", "val_loss"),
        ("CROSSVAL AVG.LOSS", "val_loss"),
        ("cvae_loss", "train_loss"),
        # forecasting's scores, and accuracy misspelt
        ("valid_RSE", "val_score"),
        ("MAPE", "train_score"),
        ("Averaged Test Accurancy", "val_score"),
        # the F-measure by its other names; a gradient's statistic is no score
        ("val_fscore_macro", "val_score"),
        ("grad_bias_map", "other"),
        ("grad_z_loc", "other"),
        # `_per_s` opening a longer word is no rate
        ("ANCHORS_PER_SCALE", "other"),
        ("train_samples_per_second", "throughput"),
        # speaker verification and retrieval: scored on held-out trials, queries and galleries
        ("EER", "val_score"),
        ("mindcf", "val_score"),
        ("Rank-1", "val_score"),
        ("rank5", "val_score"),
        ("mINP", "val_score"),
        ("Recall@1", "val_score"),
        ("Recall@top1", "val_score"),
        ("NDCG@10", "val_score"),
        ("recall", "train_score"),
        ("train_recall@5", "train_score"),
        ("Acc@1", "train_score"),  # a classifier's top-1 accuracy, printed for training too
        ("Top-1", "train_score"),  # the same spelt apart (MS-G3D's `Top 1: 16.00%`)
        ("test/top_5", "val_score"),
        # a legged robot's reward terms: `acc` is an acceleration (rsl_rl, legged_gym)
        ("Episode_Reward/dof_acc_l2", "other"),
        ("Mean episode rew_dof_acc", "other"),
    ],
)
def test_infer_role(name, role):
    assert infer_role(name) == role


def test_a_log_naming_no_loss_but_an_error_has_that_error_as_its_loss():
    """`train_mse_step`, `val_mse_step`, `train_rmse_step` and no loss (a regression logging its
    objective under the metric's name): the MSE is the loss, the RMSE stays a score; beside a
    named loss the MSE is a score again."""
    names = ["train_mse_step", "val_mse_step", "train_rmse_step"]
    f = make_frame("r", names, [1, 1, 1], [1.0, 2.0, 1.0])
    assert dict(zip(f["metric"], f["role"].astype(str), strict=True)) == {
        "train_mse_step": "train_loss",
        "val_mse_step": "val_loss",
        "train_rmse_step": "train_score",
    }
    g = make_frame("r", [*names, "loss"], [1, 1, 1, 1], [1.0, 2.0, 1.0, 1.0])
    assert set(g.loc[g["metric"] == "train_mse_step", "role"].astype(str)) == {"train_score"}


def test_a_split_naming_its_loss_terms_and_their_total_has_the_total_as_its_loss():
    """A super-resolution log of `train_l1`, `train_perc`, `train_total` and the same for val,
    with no name saying loss: each split's `total` (the sum of its terms) is its loss, the terms
    stay `other`; beside a named loss a `total` is just another series."""
    names = ["train_l1", "train_perc", "train_total", "val_l1", "val_perc", "val_total"]
    f = make_frame("r", names, [1] * 6, [0.3, 6.3, 1.6, 0.2, 6.8, 1.5])
    roles = dict(zip(f["metric"], f["role"].astype(str), strict=True))
    assert roles["train_total"] == "train_loss" and roles["val_total"] == "val_loss"
    assert {roles[n] for n in ("train_l1", "train_perc", "val_l1", "val_perc")} == {"other"}
    g = make_frame("r", ["loss", "total", "total_time"], [1, 1, 1], [0.5, 0.6, 10.0])
    assert set(g["role"].astype(str)) == {"train_loss", "other"}
    assert set(g.loc[g["metric"] != "loss", "role"].astype(str)) == {"other"}


def test_a_split_naming_no_loss_but_an_error_has_that_error_as_its_loss():
    """A regression logging `train_loss` beside `val_mse` and `val_rmse` (no val loss): the val
    MSE is the held-out loss, read per split; a `val_loss` beside it keeps it a score."""
    names = ["train_loss", "val_mse", "val_rmse"]
    f = make_frame("r", names, [1, 1, 1], [0.8, 0.7, 0.84])
    assert dict(zip(f["metric"], f["role"].astype(str), strict=True)) == {
        "train_loss": "train_loss",
        "val_mse": "val_loss",
        "val_rmse": "val_score",
    }
    g = make_frame("r", [*names, "val_loss"], [1, 1, 1, 1], [0.8, 0.7, 0.84, 0.7])
    assert set(g.loc[g["metric"] == "val_mse", "role"].astype(str)) == {"val_score"}


def test_a_held_out_score_named_bare_beside_its_val_twin_is_the_training_ones():
    """Keras with a custom `mAP` metric logs `mAP` and `val_mAP`: a bare mAP is a held-out
    score by its name (a detector's, computed on the validation set), but beside its `val_`
    twin it is the training set's. Alone it stays held out."""
    names = ["loss", "mAP", "val_loss", "val_mAP"]
    f = make_frame("r", names, [1] * 4, [0.5, 0.3, 0.6, 0.2])
    roles = dict(zip(f["metric"], f["role"].astype(str), strict=True))
    assert roles["mAP"] == "train_score" and roles["val_mAP"] == "val_score"
    alone = make_frame("r", ["loss", "mAP"], [1, 1], [0.5, 0.3])
    assert set(alone.loc[alone["metric"] == "mAP", "role"].astype(str)) == {"val_score"}


def test_concat_renumbers_seq():
    a = make_frame("a", ["loss"] * 2, [0, 1], [1.0, 2.0])
    b = make_frame("b", ["loss"] * 2, [0, 1], [1.0, 2.0])
    c = concat_frames([a, b])
    assert list(c["seq"]) == [0, 1, 2, 3]
    assert isinstance(c, pd.DataFrame) and c["role"].dtype == DTYPES["role"]


def test_a_detection_loss_split_into_parts_is_read_by_its_box_part_not_dfl():
    # Ultralytics logs no total: box, cls and dfl parts. The DFL part (a distribution focal
    # loss on box edges) must not become "the" loss just because its name is not a known part
    from lossforensics.classifiers.run import RunSeries

    names = [f"{split}/{part}_loss" for split in ("train", "val") for part in ("box", "cls", "dfl")]
    frame = make_frame(
        "yolo",
        names * 3,
        [s for s in range(3) for _ in names],
        np.linspace(2.0, 1.0, 3 * len(names)),
    )
    run = RunSeries(frame)
    assert run.primary("train_loss") == "train/box_loss"
    assert run.primary("val_loss") == "val/box_loss"


def test_a_loss_logged_as_the_same_value_throughout_is_never_the_primary():
    # an Ultralytics results.csv trained on a set without boxes: train/box_loss and
    # train/dfl_loss are 0 on every row while train/cls_loss falls 113 -> 0.03
    from lossforensics.classifiers.run import RunSeries

    steps = list(range(1, 21))
    cls = np.geomspace(113.0, 0.03, 20)
    frame = make_frame(
        "yolo",
        ["train/box_loss"] * 20 + ["train/cls_loss"] * 20 + ["train/dfl_loss"] * 20,
        steps * 3,
        np.concatenate([np.zeros(20), cls, np.zeros(20)]),
    )
    run = RunSeries(frame)
    assert run.primary("train_loss") == "train/cls_loss"
    assert run.metrics("train_loss")[1:] == ["train/box_loss", "train/dfl_loss"]
    # all of them constant: the names decide, as before
    still = make_frame(
        "yolo", ["train/box_loss", "train/cls_loss"] * 3, [1, 1, 2, 2, 3, 3], [0.0] * 6
    )
    assert RunSeries(still).primary("train_loss") == "train/box_loss"


@pytest.mark.parametrize(
    ("names", "primary"),
    [
        (["loss_D", "loss_G"], "loss_G"),
        (["loss_D", "loss_G", "loss_pixel"], "loss_pixel"),
        (["D_loss", "G_loss"], "G_loss"),
        (["Loss_D", "Loss_G"], "Loss_G"),
        (["loss_D", "loss_G_adv", "loss_G_l1"], "loss_G_l1"),
        # a DCGAN script's camel case
        (["lossD", "lossG"], "lossG"),
        # a printed name spaces its words: `Total Loss` is the total, not `Duration Loss`
        (["Duration Loss", "Mel Loss", "Total Loss"], "Total Loss"),
    ],
)
def test_a_gans_discriminator_loss_is_never_the_primary(names, primary):
    """A GAN's discriminator loss rises as its generator improves, by design: read first (by
    name, `loss_D` before `loss_G`) it made a healthy GAN `exploding`. A term against a target
    comes first, then the generator's loss."""
    from lossforensics.classifiers.run import RunSeries

    frame = make_frame(
        "gan", names * 4, [s for s in range(4) for _ in names], np.linspace(1, 2, 4 * len(names))
    )
    assert RunSeries(frame).primary("train_loss") == primary


@pytest.mark.parametrize(
    ("names", "primary"),
    [
        (["KD Loss", "Task Loss"], "Task Loss"),
        (["kd_loss", "task_loss"], "task_loss"),
        (["distill_loss", "ce_loss"], "ce_loss"),
        # near miss: a name that only holds the letters is no distillation term
        (["kdd_loss", "ce_loss"], "ce_loss"),
        (["kdd_loss", "zz_loss"], "kdd_loss"),
    ],
)
def test_a_distillation_term_is_never_the_primary(names, primary):
    """Knowledge distillation logs the task loss beside the teacher-matching term (CIRKD's
    `Task Loss || KD Loss`); read first by name, the KD term, falling while the task loss
    rose from 3.3 to 5.7, hid a diverging run."""
    from lossforensics.classifiers.run import RunSeries

    frame = make_frame(
        "kd", names * 4, [s for s in range(4) for _ in names], np.linspace(1, 2, 4 * len(names))
    )
    assert RunSeries(frame).primary("train_loss") == primary


@pytest.mark.parametrize(
    ("names", "primary"),
    [
        (["lr/pg0", "lr/pg1", "lr/pg2"], "lr/pg1"),  # YOLOv8: group 0 the biases
        (["x/lr0", "x/lr1", "x/lr2"], "x/lr1"),  # YOLOv5: 0 or 2 the biases, by version
        # near miss: other numbered groups keep their order
        (["lr-group0", "lr-group1"], "lr-group0"),
    ],
)
def test_the_learning_rate_read_first_is_the_weights_group(names, primary):
    """Ultralytics logs one LR per parameter group; the biases' group warms down from
    `warmup_bias_lr` (0.1 -> 0.01) while the weights' group warms up from 0, so reading the
    first column gave a schedule that fell 10x in the first epochs of every run."""
    from lossforensics.classifiers.run import RunSeries

    steps = [s for s in range(4) for _ in names]
    frame = make_frame("yolo", names * 4, steps, np.linspace(1e-3, 2e-3, 4 * len(names)))
    assert set(frame["role"]) == {"lr"}
    assert RunSeries(frame).primary("lr") == primary


@pytest.mark.parametrize(
    "name", ["loss scale", "loss_scale", "train/loss_scale", "lm loss PPL", "val_ppl"]
)
def test_a_loss_scale_or_a_perplexity_is_not_the_loss(name):
    # a mixed-precision scaler's value and exp(loss) move on other scales than the loss
    assert infer_role(name) == "other"
    assert infer_role("lm loss") == "train_loss"
