"""Which side a framework's unprefixed scores are on: results tables and logs that name their
metrics without a `val_`/`eval_` prefix although the framework computes them on the
validation set (Ultralytics' `metrics/*`, the Trainer's and fastai's printed tables). The
readers of those shapes pass these as default roles."""

from __future__ import annotations

import re

from lossforensics.classifiers.roles import infer_role, name_words


def ultralytics_roles(names: tuple[str, ...]) -> dict[str, str]:
    """Ultralytics computes `metrics/*` (precision, recall, mAP50, mAP50-95) on the validation
    set after each epoch: they are validation scores, whatever their names say."""
    if not any(n.startswith("val/") for n in names):
        return {}
    return {n: "val_score" for n in names if n.startswith("metrics/")}


_HF_TABLE_LOSSES = frozenset({"training loss", "validation loss"})
_FASTAI_LOSSES = frozenset({"train_loss", "valid_loss"})


def hf_table_roles(names: tuple[str, ...]) -> dict[str, str]:
    """The Trainer's printed table (`Epoch  Training Loss  Validation Loss  Accuracy  F1`, the
    notebook's progress table pasted as text, or a model card's training results) names its
    evaluation metrics without their `eval_` prefix: beside its `Training Loss` and `Validation
    Loss` columns every score is a validation score."""
    return scores_beside_losses(names, _HF_TABLE_LOSSES)


def fastai_roles(names: tuple[str, ...]) -> dict[str, str]:
    """fastai computes every metric passed to `fit` on the validation set and names it bare
    (`epoch,train_loss,valid_loss,accuracy,time`, in its printed table and its CSVLogger's
    history.csv): beside its `train_loss` and `valid_loss` every score is a validation score."""
    return scores_beside_losses(names, _FASTAI_LOSSES)


def scores_beside_losses(names: tuple[str, ...], losses: frozenset[str]) -> dict[str, str]:
    """`val_score` for each bare score (`Accuracy`, `f1_score`) of a results table that holds
    the `losses` columns (lower-case names) of a writer that computes its metrics on the
    validation set; {} for any other table."""
    if not losses <= {n.lower() for n in names}:
        return {}
    return {
        n: "val_score"
        for n in names
        if infer_role(n) == "train_score" and infer_role(n, "validation") == "val_score"
    }


# a file name that says the table holds an evaluation's results (sentence-transformers'
# `similarity_evaluation_sts-dev_results.csv`, `eval_results.csv`, `dev_metrics.csv`)
_EVALUATION_STEM = re.compile(
    r"(?i)(?:^|[^a-z])(?:eval|evaluation|dev|valid|validation)(?:[^a-z]|$)"
)
_HELD_OUT = ("val_loss", "val_score")
_HELD_OUT_OF = {"train_score": "val_score", "train_loss": "val_loss"}
_TRAIN_WORDS = frozenset({"train", "training"})


def evaluation_file_roles(stem: str, names: tuple[str, ...]) -> dict[str, str]:
    """A table whose file name says it holds an evaluation's results, and none of whose columns
    names a split: its scores are validation scores and its losses validation losses (every
    row is an evaluation; named bare, the scores read as training ones)."""
    if not _EVALUATION_STEM.search(stem):
        return {}
    if any(infer_role(n) in _HELD_OUT or _TRAIN_WORDS & name_words(n) for n in names):
        return {}
    return {n: _HELD_OUT_OF[infer_role(n)] for n in names if infer_role(n) in _HELD_OUT_OF}


# spaCy's training table: `E` (epoch) and `#` (step), then a `LOSS <component>` column each
_SPACY_COUNTERS = frozenset({"E", "#"})
SPACY_LOSS = "LOSS "
# the components that embed for the others: their `loss` sums the squared gradients their
# listeners send back, no objective, and it often grows while the pipeline learns
_SPACY_SHARED = frozenset({"LOSS TOK2VEC", "LOSS TRANSFORMER"})


def spacy_roles(names: tuple[str, ...]) -> dict[str, str]:
    """spaCy's `train` table (`E    #       LOSS TOK2VEC  LOSS NER  ENTS_F  ENTS_P  ENTS_R
    SCORE`): a training loss a task component (`LOSS NER`); the shared embedding layer's sum
    of its listeners' squared gradients (`LOSS TOK2VEC`), kept as `other`; then the pipeline's
    scores on the dev set (`ENTS_F`, `TAG_ACC`, `DEP_LAS`) and their weighted `SCORE`, named
    without a split: each is a validation score; `E`, the epoch, is no metric."""
    if not _SPACY_COUNTERS <= set(names) or not any(n.startswith(SPACY_LOSS) for n in names):
        return {}
    roles = {}
    for n in names:
        if n == "#":
            continue
        if n.startswith(SPACY_LOSS):
            roles[n] = "other" if n.upper() in _SPACY_SHARED else "train_loss"
        else:
            roles[n] = "other" if n == "E" else "val_score"
    return roles


_LOSS_ROLES = ("train_loss", "val_loss")


def split_named_roles(names: tuple[str, ...]) -> dict[str, str]:
    """A script's table that names the split of each of its losses (`train_loss`, `val_loss`)
    and of none of its scores (`epoch,train_loss,val_loss,dice,iou`) computed those scores on
    the validation set: a loop that evaluates prints its metrics beside the losses it names,
    and a training-set score would be named as its loss is. Keras' own `loss` beside
    `val_loss` names no split, and there a bare `accuracy` stays the training one."""
    losses = [n for n in names if infer_role(n) in _LOSS_ROLES]
    if not losses or any(infer_role(n) != infer_role(n, "validation") for n in losses):
        return {}  # a bare `loss` among them: the writer does not name its splits
    if {infer_role(n) for n in losses} != set(_LOSS_ROLES):
        return {}
    scores = [n for n in names if infer_role(n) in ("train_score", "val_score")]
    if any(infer_role(n, "validation") != "val_score" for n in scores):
        return {}  # a score named train (`train_acc`): the writer names the scores' splits too
    return {n: "val_score" for n in scores if infer_role(n) == "train_score"}
