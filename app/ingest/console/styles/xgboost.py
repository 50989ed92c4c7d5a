"""XGBoost's and LightGBM's evaluation log: one line a boosting round, `[20]\ttrain-rmse:0.06457
\tvalid-rmse:0.12204`, `[35]\tvalidation_0-logloss:0.487962` (XGBoost: `<split>-<metric>`),
`[10]\ttraining's l2: 0.41\tvalid_1's l2: 0.52` (LightGBM: `<split>'s <metric>`). The round is
the step. A split named train / training is the training set, any other (valid, eval, test,
validation_0, valid_1) a held-out one; error-like metrics (rmse, logloss, error, l2, ...) are
its losses, auc / ndcg / map its scores. Early stopping's `Stopping. Best iteration:` (LightGBM:
`Early stopping, best iteration is:`) is followed by the best round printed again, values and
all: a repeat, not a step back. The text reader marks that line (`_text._best_rounds`), so it is
not read even when the round was never logged (a logging period above 1); a round printed again
with the values it had is dropped too (`repeated_round`)."""

import re

from lossforensics.ingest.console._style import NUM, Style

_LOSSES = (
    "rmse", "rmsle", "mae", "mape", "mphe", "logloss", "mlogloss", "error", "error@*",
    "merror", "l1", "l2", "l2_root", "binary_logloss", "multi_logloss", "binary_error",
    "multi_error", "cross_entropy", "huber", "fair", "quantile", "*-nloglik", "poisson",
    "gamma", "tweedie",
)  # fmt: skip
_SCORES = ("auc", "aucpr", "average_precision", "ndcg*", "map*", "pre@*", "accuracy")


def _roles() -> dict[str, str]:
    """Role per `<split>-<metric>` / `<split>'s <metric>`; the training split's first."""
    roles: dict[str, str] = {}
    for split, sep in (("train", "-"), ("training", "'s "), ("train", "'s ")):
        roles |= {f"{split}{sep}{m}": "train_loss" for m in _LOSSES}
        roles |= {f"{split}{sep}{m}": "train_score" for m in _SCORES}
    for sep in ("-", "'s "):
        roles |= {f"*{sep}{m}": "val_loss" for m in _LOSSES}
        roles |= {f"*{sep}{m}": "val_score" for m in _SCORES}
    return roles


STYLE = Style(
    name="xgboost / lightgbm",
    signature=re.compile(r"^\[\d+\]\s+[\w.]+(?:-|'s )[\w@.:-]+:"),
    counters=(re.compile(r"^\[(?P<step>\d+)\]"),),
    pairs=re.compile(
        rf"(?<!\S)(?P<key>[\w.]+(?:-|'s )[\w@.-]*?[\w@.])(?P<sep>:\s*)(?P<val>{NUM})(?![\w.:/])"
    ),
    roles=_roles(),
    context=False,
    spaced=False,
    max_words=0,
    repeated_round=True,
)
