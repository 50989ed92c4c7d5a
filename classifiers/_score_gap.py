"""The same score on the training and the validation data, side by side: how far below the
training score the validation score sits.

A model scores about the same on data drawn like its training data: the validation accuracy of
a healthy run tracks the training accuracy (a few points below it; overfitting opens a gap of
10-20%). A validation score at a fraction of the training score, evaluation after evaluation,
says the validation data does not look like what the model was trained on (a missing rescale
in the validation pipeline, BatchNorm statistics in inference mode): the two move
independently even when the validation loss is too broken (NaN, or swinging tenfold) to read.
Only bounded, higher-is-better scores (accuracy, F1, AUC in [0, 1]) are read: their ratio has a
meaning. A validation score of exactly zero throughout is a degenerate prediction (no positive
predicted), not a shifted input, and is not read.
"""

from __future__ import annotations

import numpy as np
from lossforensics.classifiers._align import finite_curve, levels_at
from lossforensics.classifiers.metric_mismatch import name_direction
from lossforensics.classifiers.roles import metric_stem
from lossforensics.classifiers.run import RunSeries
from lossforensics.classifiers.signals import TINY


def score_gap(run: RunSeries, min_points: int) -> dict | None:
    """For the first bounded higher-is-better val score with a training counterpart: the median
    over the evaluations of val / train (each evaluation against the train score over the
    stretch leading to it), with both medians; None when no such pair has `min_points`
    evaluations."""
    train_names = {metric_stem(n): n for n in run.metrics("train_score")}
    for val_name in run.metrics("val_score"):
        train_name = train_names.get(metric_stem(val_name))
        if train_name is None or name_direction(val_name) <= 0:
            continue
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
