"""Role inference: what a logged metric *is*, from its name and where it was found.

A role tells the classifiers which series to read: `train_loss`, `val_loss`, `lr`, `grad_norm`,
`train_score`, `val_score`, `throughput` or `other`. Names vary wildly between frameworks
(`train/loss`, `eval_loss`, `epoch_loss` under a Keras `validation/` folder, `total_loss`,
`lr-AdamW`, `val_acc`), so inference works on normalised name tokens. The caller can override any
inference with a mapping of metric name (or glob pattern) to role.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Mapping, Sequence

from lossforensics.classifiers.errors import InvalidRoleError

ROLES: tuple[str, ...] = (
    "train_loss",
    "val_loss",
    "lr",
    "grad_norm",
    "train_score",
    "val_score",
    "throughput",
    "other",
)

# split words, with the two-letter abbreviations of a printed table (`tr_loss`, `va_loss`,
# `te_acc`), and the verbs a script prints them as (`Epoch 3 evaluated with loss: 0.41`)
_VAL_TOKENS = {
    "val",
    "valid",
    "validation",
    "validated",
    "validating",
    # the Time-Series-Library family (Informer, Autoformer, DLinear, PatchTST, iTransformer):
    # `Train Loss: 0.71 Vali Loss: 1.12 Test Loss: 0.57`
    "vali",
    "eval",
    "evaluation",
    "evaluated",
    "evaluating",
    "test",
    "testing",
    "tested",
    # the HF Trainer's `Trainer.predict` on a test split: `predict_loss`, `predict_accuracy`
    "predict",
    "dev",
    "holdout",
    "va",
    "te",
    # cross-validation's held-out set, as speech toolkits name it (WeNet's `cv_loss`, Kaldi's
    # `CROSSVAL AVG.LOSS`)
    "cv",
    "crossval",
    "xval",
}
# CatBoost names the training set `learn` (`learn: 0.6871  test: 0.6879`); a script prints
# `Epoch 3 trained with loss: 0.52`
_TRAIN_TOKENS = {"train", "training", "trained", "trn", "tr", "learn"}
# COCO's average precision (`val_AP`, `AP50`; by object size `APs`, `APm`, `APl`)
_AVERAGE_PRECISION = frozenset({"ap", "ap50", "ap75", "aps", "apm", "apl"})
# of the held-out splits, the test set's words: beside a validation split, not the one tuned on
_TEST_TOKENS = {"test", "testing", "tested", "te", "predict"}
_SCORE_TOKENS = {
    "acc",
    "accuracy",
    "f1",
    "auc",
    "auroc",
    "map",
    "map50",
    "bleu",
    "rouge",
    "rouge1",
    "rouge2",
    "rougel",
    "wer",
    "cer",
    "iou",
    "dice",
    "dsc",  # the Dice similarity coefficient, as medical segmentation names it
    "precision",
    "recall",
    "top1",
    "top5",
    "mae",
    "rmse",
    "mse",
    "r2",
    "mrr",
    "ndcg",
    "exact",
    "em",
    "score",
    "miou",
    "wacc",  # word accuracy (speech, G2P)
    # agreement and correlation scores of GLUE-style evaluations (`eval_matthews_correlation`,
    # `eval_pearson`, `eval_spearmanr`, Cohen's kappa) and of translation (METEOR, chrF)
    "mcc",
    "matthews",
    "kappa",
    "pearson",
    "pearsonr",
    "spearman",
    "spearmanr",
    "meteor",
    "chrf",
    # timm / DeiT / MAE's top-k accuracies (`test_acc1`, `acc5`; older timm's summary.csv
    # `eval_prec1`, `eval_prec5`, precision@k) and the Jaccard index (IoU)
    "acc1",
    "acc5",
    "prec1",
    "prec5",
    "jaccard",
    # plurals and short forms scripts print (`val_accs`, `val_prec`, `val_sens`, `val_spec`)
    "accs",
    "accuracies",
    "prec",
    "sens",
    "spec",
    "sensitivity",
    "specificity",
    "auprc",
    "sacrebleu",
    "rougelsum",
    # signal and image quality of denoising, super-resolution and source separation (in dB,
    # or SSIM's [0, 1]): higher is better
    "psnr",
    "ssim",
    "sdr",
    "sisdr",
    # speaker verification's equal error rate and minimum detection cost, lower being better
    "eer",
    "mindcf",
    # re-identification's mean inverse negative penalty (fast-reid's `mINP`)
    "minp",
    # the F-measure by its other names (Poutyne's `fscore_macro`)
    "fscore",
    "fbeta",
    "fmeasure",
    "f2",
    # forecasting's errors and correlation (LSTNet's and Graph WaveNet's `RSE`, `RAE`, `CORR`,
    # `MAPE`), and accuracy as often misspelt in printed logs
    "mape",
    "smape",
    "rse",
    "rae",
    "corr",
    "accurancy",
} | _AVERAGE_PRECISION
# scores computed by decoding held-out text, higher is better (BLEU, ROUGE, METEOR, chrF)...
DECODED_HIGHER = frozenset(
    {"bleu", "sacrebleu", "rouge", "rouge1", "rouge2", "rougel", "rougelsum", "meteor", "chrf"}
)
# ... and the error rates (WER, CER), and a detector's average precision, which only an evaluator
# on held-out images computes (detectron2 merges `bbox/AP` into its training rows): a script
# logs them on its validation set, so a bare one (`bleu`, beside `train_loss`) is a val score
_HELD_OUT_SCORES = (
    DECODED_HIGHER
    | _AVERAGE_PRECISION
    | {"wer", "cer", "map", "map50", "map75", "eer", "mindcf", "minp"}
)
# a ranking's score among the top k (`Recall@1`, `Precision@10`, `NDCG@5`, `Recall@top1`; not a
# classifier's top-k accuracy, `Acc@1`, printed for the training batches too), or a
# re-identification's rank-k accuracy (`Rank-1`, `rank5`, the CMC curve): computed by ranking a
# held-out query set against a gallery, so a held-out score whatever its word
_AT_K = re.compile(
    r"(?<![a-z])(?:recall|precision|prec|hits|hit|ndcg|map|mrr|r|p)\s*@\s*(?:top)?\d+\b"
    r"|@top\b",
    re.IGNORECASE,
)
_RANK_K = re.compile(r"(?<![a-z])rank[\s_-]?\d+\b", re.IGNORECASE)
# loss functions named without the word loss (`CrossEntropy=1.83`, `val_categorical_crossentropy`,
# GluonCV's `SmoothL1`, `BCE`): the loss, under its function's name
_LOSS_FUNCTION_TOKENS = {"crossentropy", "bce", "smoothl1", "xent"}
_LOSS_FUNCTION_PAIRS = ({"cross", "entropy"}, {"smooth", "l1"})
# a generative model's sample quality, measured against held-out real data: FID, KID and FVD
# (StyleGAN's `fid50k_full`), and LPIPS on held-out views; lower is better (metric_mismatch)
GENERATIVE_SCORE = re.compile(r"(?:fid|kid|fvd)(?:\d+k?)?|lpips")
# an error rate spelled out (SpeechBrain's `valid error_rate`, `err_rate`): a score, lower
# being better, and no loss (it is no objective the gradient follows)
_ERROR_RATE_PAIRS = ({"error", "rate"}, {"err", "rate"})
# the sum of a log's loss terms, named without the word loss (`train_total`, `val_total`)
_TOTAL = "total"
# the errors a regression minimises, in the order one is taken as the loss of a log naming none
_ERROR_OBJECTIVES = ("mse", "rmse", "mae")
# Error rates named by a bare acronym that is also an English word: a score only as the name's
# last token (`val_per`: phoneme error rate), never inside a phrase (`tokens_per_step`).
_SCORE_SUFFIXES = {"per", "ser"}
# `_per_s` opening a longer word is no rate per second (`ANCHORS_PER_SCALE`)
_SPELT_PER = re.compile(r"_per_s(?!ec)[a-z]")
_THROUGHPUT_HINTS = (
    "per_second",
    "per_sec",
    "_per_s",
    "throughput",
    "samples/s",
    "tokens/s",
    "it/s",
    "steps/s",
    "tok/s",
    "sps",
    "tps",
)
_NOT_A_SERIES = {
    "epoch",
    "step",
    "global_step",
    "iter",
    "iteration",
    "time",
    "runtime",
    "data_time",
    "eta_seconds",
    "total_flos",
    "num_tokens",
    "num_input_tokens_seen",
}
# Tokens that make a loss-named metric something else: a mixed-precision loss scale (`loss
# scale`, 65536 then halving) or a perplexity (`lm loss PPL`, exp of the loss) move on other
# scales than the loss itself and must never stand in for it; nor does the spread of a loss over
# an epoch's batches or a run's folds (Catalyst's `loss/std`, `val_loss_std`), nor its change
# over one update (Spinning Up's `DeltaLossPi`), nor a discriminator's raw outputs logged under
# its loss (StyleGAN's `Loss/scores/fake`, `Loss/signs/real`)
_NOT_THE_LOSS = {"scale", "scaler", "ppl", "perplexity", "std", "stddev", "stdev", "delta"} | {
    "scores",
    "signs",
    "logits",
}
# a norm named by nothing but its scope (`norm`, `gnorm`, `total_norm`, `global_norm`), or a
# bare `Grad` (the Kaggle template's `clip_grad_norm_` value): the global gradient norm that
# clip_grad_norm_ and optax return, as nanoGPT-style, llm.c and fairseq
# logs print it beside the loss; a norm of anything else names what it measures (`param_norm`)
_GRAD_NORM_ALONE = {"norm", "gnorm", "grad"}
_NORM_SCOPES = {"total", "global", "train"}
# a name that opens with the gradient measures one of its statistics (Sacred's `grad_bias_map`,
# `grad_z_loc`), whatever words follow
_GRADIENT_WORDS = {"grad", "grads", "gradient", "gradients"}

# a running extreme (`Best Valid accuracy`, `best_val_loss`): the best so far, not a measurement
# at each step; beside the series itself it would contradict it
_RUNNING_BEST = {"best"}
# ... also named by the extreme it keeps, as the name's first word (PySlowFast's
# `min_top1_err`, `max_val_acc`, `min_val_loss`)
_RUNNING_EXTREMES = {"min", "max"}


# the words Chinese (simplified and traditional), Japanese and Korean training scripts print for a
# split, a loss, a score or the learning rate (`训练损失` train loss, `验证准确率` validation
# accuracy, `学习率` learning rate, `検証損失` validation loss), read as the English words role
# inference knows; a longer term before one it holds (`学习率` before `学习`-less words)
_CJK_WORDS = (
    ("学习率", "lr"),
    ("學習率", "lr"),  # traditional
    ("学習率", "lr"),  # Japanese
    ("训练集", "train"),
    ("训练", "train"),
    ("訓練", "train"),  # traditional
    ("学習", "train"),  # Japanese
    ("验证集", "val"),
    ("验证", "val"),
    ("驗證", "val"),  # traditional
    ("検証", "val"),  # Japanese
    ("テスト", "test"),  # Japanese
    ("测试集", "test"),
    ("测试", "test"),
    ("測試", "test"),  # traditional
    ("损失值", "loss"),
    ("损失", "loss"),
    ("損失", "loss"),  # traditional and Japanese
    ("准确率", "accuracy"),
    ("准确度", "accuracy"),
    ("準確率", "accuracy"),  # traditional
    ("正确率", "accuracy"),
    ("正解率", "accuracy"),  # Japanese
    ("精确率", "precision"),
    ("召回率", "recall"),
    ("精度", "accuracy"),
    ("平均", "mean"),
    # Korean
    ("학습률", "lr"),
    ("학습", "train"),
    ("훈련", "train"),
    ("검증", "val"),
    ("테스트", "test"),
    ("손실", "loss"),
    ("정확도", "accuracy"),
    ("평균", "mean"),
)
_CJK = re.compile("|".join(term for term, _ in _CJK_WORDS))
# the same words in European languages (a Spanish `pérdida`, a German `Verlust`, a Russian
# `потери`), whole words only; a word with letters outside ASCII that is not one of them is an
# unknown word, never split into ASCII fragments (`Imágenes` is not `im` + `genes`)
_FOREIGN_WORDS = {
    "loss": "pérdida perdida perda perte verlust perdita pierdere потери потеря лосс ошибка",
    "train": "entrenamiento treino treinamento entraînement entrainement addestramento "
    "обучение тренировка",
    "val": "validación validacion validação validacao validierung validazione validare валидация",
    "test": "prueba teste тест",
    "accuracy": "precisión exactitud acurácia acuracia precisão précision "
    "genauigkeit accuratezza точность",
}
_FOREIGN_AS = {w: en for en, words in _FOREIGN_WORDS.items() for w in words.split()}
# Russian inflects its nouns (`обучение`, `на обучении`, `обучения`): read by their stems
_CYRILLIC_STEMS = (
    ("валид", "val"),
    ("обуч", "train"),
    ("трен", "train"),
    ("тест", "test"),
    ("потер", "loss"),
    ("лосс", "loss"),
    ("точност", "accuracy"),
)


def _foreign_word(word: str) -> str:
    """A word with letters outside ASCII as the English word role inference knows, else
    `word` (an unknown word, kept whole)."""
    low = word.lower()
    if low in _FOREIGN_AS:
        return _FOREIGN_AS[low]
    return next((en for stem, en in _CYRILLIC_STEMS if low.startswith(stem)), "word")


_FOREIGN = re.compile(r"[^\W\d_]*[^\x00-\x7f][^\W\d_]*")
_CJK_OTHER = re.compile(r"[\u3040-\u30ff\u4e00-\u9fff\uac00-\ud7af]+")
_CJK_AS = dict(_CJK_WORDS)


def _tokens(name: str) -> list[str]:
    """'validation/epoch_loss' -> ['validation', 'epoch', 'loss']; camelCase split too, keeping
    acronyms whole: 'valAccuracy' -> val, accuracy; 'valMAE' -> val, mae; but 'mAP50' and 'mIoU'
    stay metric names (map50, m+iou), not 'm', 'ap50'; Chinese words as their English ones
    ('验证损失' -> val, loss)."""
    if not name.isascii():
        name = _CJK.sub(lambda m: f"_{_CJK_AS[m[0]]}_", name)
        # a word left untranslated (`样本数`, a count of samples) is still a word: it must not
        # leave `训练` alone as a split's bare name, which reads as that split's loss
        name = _CJK_OTHER.sub("_word_", name)
        name = _FOREIGN.sub(lambda m: f"_{_foreign_word(m[0])}_", name)
    spaced = re.sub(r"([a-z0-9])([A-Z][a-z])", r"\1_\2", name)  # a new capitalised word
    spaced = re.sub(r"([a-z0-9]{2})([A-Z]{2,})(?![a-z])", r"\1_\2", spaced)  # word + ACRONYM
    # word + one capital ending the name or a part of it (`LossV`, `lossD`): a word of its own
    spaced = re.sub(r"([a-z]{2})([A-Z])(?![A-Za-z])", r"\1_\2", spaced)
    return [_FOREIGN_AS.get(t, t) for t in re.split(r"[^a-z0-9]+", spaced.lower()) if t]


# torchmetrics logs a metric under its class's name lowercased into one word
# (`val_multiclassaccuracy`, `val_binaryf1score`, `val_multiclassjaccardindex`): the task prefix
# and the class name's trailing `score`/`index` are dropped to find the metric's own word
_TORCHMETRICS_TASKS = ("multiclass", "multilabel", "binary")
_TORCHMETRICS_TAILS = ("score", "index")


# a loss numbered without a separator (`loss0`, `val_loss1`): one of several, as `loss_0` is
_NUMBERED_LOSS = re.compile(r"loss\d+")


# a split numbered without a separator (`val2_loss`, `valid1_acc`, `test2_loss`): a second
# held-out set (or training set) is still that split
_NUMBERED_SPLIT = re.compile(r"(train|training|val|valid|validation|eval|evaluation|test|dev)\d+")


def metric_words(tokens: Sequence[str]) -> set[str]:
    """A name's tokens, plus the metric word inside a torchmetrics class name
    (`multiclassjaccardindex` -> `jaccard`, `binaryf1score` -> `f1`), the `loss` of a
    numbered loss (`loss0`), the split of a numbered split (`val2`) and a top-k accuracy
    spelt apart (`Top-1`, `top_5`: `top1`, `top5`)."""
    words = set(tokens)
    for token, after in zip(tokens, tokens[1:], strict=False):
        if token == "top" and after in ("1", "5"):
            words.add(f"top{after}")
    for token in tokens:
        if _NUMBERED_LOSS.fullmatch(token):
            words.add("loss")
        if split := _NUMBERED_SPLIT.fullmatch(token):
            words.add(split.group(1))
        task = next((t for t in _TORCHMETRICS_TASKS if token.startswith(t)), None)
        if task is None or len(token) == len(task):
            continue
        rest = token[len(task) :]
        tail = next((t for t in _TORCHMETRICS_TAILS if rest.endswith(t) and rest != t), "")
        words.add(rest[: len(rest) - len(tail)])
    return words


def name_words(metric: str) -> set[str]:
    """The metric words of a name as role inference reads them: `trainAcc` -> {train, acc}."""
    return metric_words(_tokens(metric))


# words that say when a quantity was logged rather than what it is (`epoch_accuracy`)
_GRANULARITY_TOKENS = {"epoch", "step"}
# words that say how a split's values were pooled (`validation_epoch_average`, `train_avg`):
# beside a split's name and nothing else, they leave that split's loss
_POOLING_TOKENS = {"avg", "average", "mean"}


def names_test_split(metric: str) -> bool:
    """Whether the name says the test split (`test_loss`, `te_acc`, `testLoss`)."""
    return bool(set(_tokens(metric)) & _TEST_TOKENS)


def metric_stem(metric: str) -> str:
    """The name without its split and granularity words, so a quantity's train and validation
    logs share it: 'val_accuracy', 'validation/epoch_accuracy', 'valAccuracy' -> 'accuracy'."""
    drop = _VAL_TOKENS | _TRAIN_TOKENS | _GRANULARITY_TOKENS
    return "_".join(t for t in _tokens(metric) if t not in drop)


def _split_alone(toks: Sequence[str]) -> bool:
    """A split's name alone (`train=2.56, val=2.37`, nanoGPT's `train 3.45 val 3.43`), or with
    only how it was pooled (`validation_epoch_average`, `train_avg`): the number a script prints
    under its split's bare name is that split's loss. `val_epoch` alone stays a counter."""
    if toks[0] not in _VAL_TOKENS | _TRAIN_TOKENS:
        return False
    rest = set(toks[1:])
    return not rest or (bool(rest & _POOLING_TOKENS) and rest <= {"epoch"} | _POOLING_TOKENS)


def is_bare_split(metric: str) -> bool:
    """A metric named by its split alone (`Train`, `val`, `test_avg`): a loss when nothing
    else on its line says what it is (`_split_alone`)."""
    toks = _tokens(metric.strip())
    return bool(toks) and _split_alone(toks)


# the words a cost is named with when it is the objective (`Cost after epoch 0`, the Coursera
# deep-learning courses' print; `train cost`, `avg_cost`): a cost of anything else (`time cost`,
# a detection cost) names what it measures
_COST_COMPANIONS = _TRAIN_TOKENS | _VAL_TOKENS | {"avg", "average", "mean", "total", "epoch"}


def _is_cost(tokset: set[str]) -> bool:
    """The objective named as a cost: `cost` alone, or with only a split or pooling word."""
    return "cost" in tokset and tokset - {"cost"} <= _COST_COMPANIONS


def infer_role(metric: str, split: str | None = None) -> str:
    """Guess the role of one metric. `split` is context from the source (a Keras `validation/`
    directory, a TensorBoard run folder called `eval`): it decides train vs val when the name
    itself does not say."""
    name = metric.strip()
    low = name.lower()
    toks = _tokens(name)
    tokset = metric_words(toks)
    if not toks:
        return "other"
    if (
        low in _NOT_A_SERIES
        or toks[-1] in {"runtime", "flos"}
        or (len(toks) == 1 and toks[0] in _NOT_A_SERIES)
    ):
        return "other"
    if any(h in low for h in _THROUGHPUT_HINTS) and not _SPELT_PER.search(low):
        return "throughput"
    if any(re.fullmatch(r"lr\d*|lrate", t) for t in toks) or {"learning", "rate"} <= tokset:
        return "lr"
    if ("grad" in tokset or "gradient" in tokset or "grads" in tokset) and (
        "norm" in tokset or "norms" in tokset or "l2" in tokset
    ):
        return "grad_norm"
    if "gradnorm" in tokset or "grad_norm" in low:
        return "grad_norm"
    if tokset & _GRAD_NORM_ALONE and tokset <= _GRAD_NORM_ALONE | _NORM_SCOPES:
        return "grad_norm"
    if toks[0] in _GRADIENT_WORDS:  # a gradient's statistic (`grad_bias_map`): no score, no loss
        return "other"

    context = (split or "").lower()
    is_val = bool(tokset & _VAL_TOKENS) or context in _VAL_TOKENS
    if tokset & _TRAIN_TOKENS and not (tokset & _VAL_TOKENS):
        is_val = False
    if tokset & (_NOT_THE_LOSS | _RUNNING_BEST) or toks[0] in _RUNNING_EXTREMES:
        return "other"
    if _split_alone(toks):
        return "val_loss" if is_val else "train_loss"
    if (
        "loss" in tokset
        or "losses" in tokset
        or _is_cost(tokset)
        or "nll" in tokset
        or low.endswith("loss")
        or tokset & _LOSS_FUNCTION_TOKENS
        or any(pair <= tokset for pair in _LOSS_FUNCTION_PAIRS)
    ):
        return "val_loss" if is_val else "train_loss"
    if "rew" in tokset or {"episode", "reward"} <= tokset:
        return "other"  # a reward term (rsl_rl's `rew_dof_acc`: `acc` is an acceleration)
    generative = any(GENERATIVE_SCORE.fullmatch(t) for t in toks)
    if (_AT_K.search(name) or _RANK_K.search(name)) and not tokset & _TRAIN_TOKENS:
        return "val_score"
    if (
        tokset & _SCORE_TOKENS
        or toks[-1] in _SCORE_SUFFIXES
        or any(pair <= tokset for pair in _ERROR_RATE_PAIRS)
        or generative
    ):
        held_out = (bool(tokset & _HELD_OUT_SCORES) or generative) and not tokset & _TRAIN_TOKENS
        return "val_score" if is_val or held_out else "train_score"
    return "other"


def check_role(role: str) -> str:
    if role not in ROLES:
        raise InvalidRoleError(f"unknown role {role!r}; roles are: {', '.join(ROLES)}")
    return role


def _total_of_split(names: Sequence[str], roles: list[str], loss: str) -> list[int]:
    """The positions of a split's bare `total` (`train_total`, `val_total`, `total`): a log that
    names its loss terms (`train_l1`, `train_perc`) and their sum names the objective so."""
    return [
        i
        for i, name in enumerate(names)
        if roles[i] == "other"
        and metric_stem(str(name)) == _TOTAL
        and infer_role(f"{name}_loss") == loss
    ]


# the prefixes a held-out split puts before a metric's name (`val_mAP` beside `mAP`)
_TWIN_PREFIX = re.compile(r"^(?:val|valid|validation|eval|test)[_/ -]", re.IGNORECASE)


def _trained_twins(names: Sequence[str], roles: list[str]) -> list[str]:
    """`roles` with a score named bare that its name makes a held-out one (`mAP`: computed on
    held-out data by nature) the training one when its held-out twin is logged beside it (Keras'
    `mAP` and `val_mAP` from one custom metric: the bare name is the training set's)."""
    held_out = {
        _TWIN_PREFIX.sub("", str(n)).lower()
        for n, r in zip(names, roles, strict=True)
        if r == "val_score" and _TWIN_PREFIX.match(str(n))
    }
    if not held_out:
        return roles
    return [
        "train_score"
        if r == "val_score" and not _TWIN_PREFIX.match(str(n)) and str(n).lower() in held_out
        else r
        for n, r in zip(names, roles, strict=True)
    ]


def errors_as_losses(names: Sequence[str], roles: list[str]) -> list[str]:
    """The roles of a log read as a whole. A score named bare beside its held-out twin is the
    training one (`_trained_twins`). A split that names no loss but the objective under another
    name gets it as its loss: the sum of its loss terms as a bare `total` (`train_total` beside
    `train_l1`, `train_perc`), or an error it minimises (`train_mse`, `val_mse`: a regression's
    objective logged under its metric's name). Each split is read on its own: in a split
    holding no loss, its `total` becomes its loss, else the names carrying the first of
    `_ERROR_OBJECTIVES` found (a `train_loss` beside `val_mse` and `val_rmse` only: the val MSE
    is the held-out loss). A split that names a loss keeps every role as it is."""
    out = _trained_twins(names, list(roles))
    for score, loss in (("train_score", "train_loss"), ("val_score", "val_loss")):
        if loss in roles:
            continue
        total = _total_of_split(names, roles, loss)
        if total:
            for i in total:
                out[i] = loss
            continue
        for token in _ERROR_OBJECTIVES:
            hits = [
                i
                for i, name in enumerate(names)
                if roles[i] == score and token in _tokens(str(name))
            ]
            if hits:
                for i in hits:
                    out[i] = loss
                break
    return out


def override_role(metric: str, inferred: str, overrides: Mapping[str, str] | None) -> str:
    """The caller's role for `metric` if an override matches it (exact name first, then glob)."""
    if not overrides:
        return inferred
    if metric in overrides:
        return check_role(overrides[metric])
    for pattern, role in overrides.items():
        if fnmatch.fnmatchcase(metric, pattern):
            return check_role(role)
    return inferred
