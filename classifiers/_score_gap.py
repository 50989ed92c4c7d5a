"""The same score on the training and the validation data, side by side: how far below the
training score the validation score sits.

A model scores about the same on data drawn like its training data: the validation accuracy of
a healthy run tracks the training accuracy (a few points below it; overfitting opens a gap of
10-20%). A validation score at a fraction of the training score, evaluation after evaluation,
says the validation data does not look like what the model was trained on (a missing rescale
in the validation pipeline, BatchNorm statistics in inference mode): the two move
independently even when the validation loss is too broken (NaN, or swinging tenfold) to read.
Only bounded, higher-is-better scores (accuracy, F1, AUC in [0, 1]) are read: their ratio has a
meaning. The same pair read at the first evaluation says whether the validation data had been
learned by then (`first_score_kept`): a first val loss above an epoch log's first train value
(an epoch's mean, already trained) cannot say so, its accuracy beside the train's can. A
validation score of exactly zero throughout is a degenerate prediction (no positive predicted),
not a shifted input, and is not read.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
from lossforensics.classifiers._align import finite_curve, levels_at
from lossforensics.classifiers.metric_mismatch import name_direction
from lossforensics.classifiers.roles import metric_stem
from lossforensics.classifiers.run import RunSeries
from lossforensics.classifiers.signals import TINY

# the val score at the first evaluation at least this share of the train's at that moment: the
# validation data was learned as the training data was (a healthy run keeps within a few points)
FIRST_SCORE_KEPT = 0.9
# ... once the train score had made most of its gain: at least this share of its best (two
# scores both still at chance level agree without anything having been learned)
FIRST_TRAIN_SHARE = 0.8


def _pairs(run: RunSeries) -> Iterator[tuple[str, str]]:
    """(val name, train name) for each bounded-candidate higher-is-better val score with a
    training counterpart of the same stem."""
    train_names = {metric_stem(n): n for n in run.metrics("train_score")}
    for val_name in run.metrics("val_score"):
        train_name = train_names.get(metric_stem(val_name))
        if train_name is not None and name_direction(val_name) > 0:
            yield val_name, train_name


def first_score_kept(run: RunSeries) -> bool:
    """Whether the first evaluation had already learned, read from a score: its bounded
    higher-is-better val score stands at `FIRST_SCORE_KEPT` or more of the train score over the
    stretch leading to it, and that train score is `FIRST_TRAIN_SHARE` of its best or more.
    Kept with the run: distribution_mismatch and overfit both ask."""
    return bool(run.measured(("first_score_kept",), lambda: _first_score_kept(run)))


def _first_score_kept(run: RunSeries) -> bool:
    for val_name, train_name in _pairs(run):
        vx, vy = finite_curve(run, "val_score", val_name)
        tx, ty = finite_curve(run, "train_score", train_name)
        if not len(vy) or not len(ty):
            continue
        train = levels_at(tx, ty, vx)
        ok = np.flatnonzero(np.isfinite(train))
        if not len(ok):
            continue
        v, t, best = float(vy[ok[0]]), float(train[ok[0]]), float(np.max(ty))
        if not (0.0 <= v <= 1.0 and 0.0 < t <= 1.0 and best <= 1.0):
            continue
        return v >= FIRST_SCORE_KEPT * t and t >= FIRST_TRAIN_SHARE * best
    return False


def score_gap(run: RunSeries, min_points: int) -> dict | None:
    """For the first bounded higher-is-better val score with a training counterpart: the median
    over the evaluations of val / train (each evaluation against the train score over the
    stretch leading to it), with both medians; None when no such pair has `min_points`
    evaluations."""
    for val_name, train_name in _pairs(run):
        vx, vy = finite_curve(run, "val_score", val_name)
        tx, ty = finite_curve(run, "train_score", train_name)
        train = levels_at(tx, ty, vx)
        ok = np.isfinite(train)
        vy, train = vy[ok], train[ok]
        bounded = len(vy) and np.all((vy >= 0) & (vy <= 1)) and np.all((train >= 0) & (train <= 1))
        if len(vy) < min_points or not bounded or not np.any(vy > 0):
            continue
        return {
            "score_metric": val_name,
            "train_score_metric": train_name,
            "score_ratio": float(np.median(vy / np.maximum(train, TINY))),
            "val_score_median": float(np.median(vy)),
            "train_score_median": float(np.median(train)),
            "score_evaluations": int(len(vy)),
        }
    return None
