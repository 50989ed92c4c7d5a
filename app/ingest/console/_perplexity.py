"""Perplexity read as the loss of a split that prints no loss.

Language-model scripts often track perplexity only (MXNet's Speedometer with
`metric.Perplexity`: `Train-Perplexity=4311.3`, `Validation-Perplexity=282.5`). Perplexity is
exp(cross-entropy), so such a log does hold its loss curves. Each perplexity series is read as
its natural log, named `ln(<name>)`: ln(perplexity) is the cross-entropy itself, the number
the same script prints when it tracks the loss. The classifiers read ratios and orderings, which
either form keeps, but levels differ: a loss at chance is ln(vocabulary size), a level known only
in log form, and a perplexity in the thousands would read as a loss that blew up.

A split word before the name (`Train-`, `train_`, `Validation-`, `valid_`, `eval_`, `test `, ...)
or the style's evaluation prefix (`eval/`) tells the training curve from the held-out one; a bare
`perplexity` / `ppl` is the training one. Epoch averages and summaries (`epoch/`, `summary/`)
are converted too, role other as before. A split that prints its loss keeps its perplexity as
it was (a perplexity beside a loss is a derived number, `other`); the other split's is still
read as its loss (OpenNMT-py prints the training `xent` but only the validation perplexity).
Nothing changes when a value is not above 0 (no perplexity).
"""

from __future__ import annotations

import re

import numpy as np
from lossforensics.classifiers.roles import infer_role

_LOSS_ROLES = ("train_loss", "val_loss")
_PPL = re.compile(
    r"^(?:(?P<split>train|training|val|valid|validation|eval|test|dev)[-_ ])?(?:perplexity|ppl)$",
    re.I,
)
_HELD_OUT = {"val", "valid", "validation", "eval", "test", "dev"}
_KEPT_APART = ("epoch/", "summary/")
PERPLEXITY_NOTE = (
    "no loss is printed: each perplexity series is read as its natural log, the cross-entropy "
    "loss, named ln(<name>)"
)


def perplexity_roles(names: list[str], roles: dict[str, str], eval_prefix: str) -> dict[str, str]:
    """The loss role of each perplexity series, by name, whose split prints no loss."""
    losses = {r for r in ((roles.get(n) or infer_role(n)) for n in names) if r in _LOSS_ROLES}
    if len(losses) == len(_LOSS_ROLES):
        return {}
    found: dict[str, str] = {}
    for name in names:
        bare, held_out = name, False
        if bare.startswith(_KEPT_APART):
            bare = bare.split("/", 1)[1]
        if eval_prefix and bare.startswith(eval_prefix):
            bare, held_out = bare[len(eval_prefix) :], True
        match = _PPL.match(bare)
        if not match:
            continue
        split = (match["split"] or "").lower()
        role = "val_loss" if held_out or split in _HELD_OUT else "train_loss"
        if role not in losses:  # beside a loss of its own split it is a derived number
            found[name] = "other" if name.startswith(_KEPT_APART) else role
    return found


def perplexity_as_loss(
    names: list[str],
    roles: dict[str, str],
    metric: np.ndarray,
    value: np.ndarray,
    eval_prefix: str,
) -> tuple[list[str], dict[str, str], np.ndarray]:
    """Names, roles and values with each perplexity series (see the module docstring) read as
    its natural log; unchanged when there is none to convert."""
    found = perplexity_roles(names, roles, eval_prefix)
    codes = [c for c, n in enumerate(names) if n in found]
    if not codes:
        return names, roles, value
    chosen = np.isin(metric, codes)
    kept = value[chosen]
    if np.any(kept[~np.isnan(kept)] <= 0):
        return names, roles, value  # not a perplexity: that is never below 1
    value = np.array(value, dtype=np.float64)  # a copy: the column may be a shared view
    with np.errstate(divide="ignore", invalid="ignore"):
        value[chosen] = np.log(kept)
    names = list(names)
    roles = dict(roles)
    for code in codes:
        old = names[code]
        names[code] = _log_name(old)
        roles.pop(old, None)
        roles[names[code]] = found[old]
    return names, roles, value


def _log_name(name: str) -> str:
    """`Train-Perplexity` -> `ln(Train-Perplexity)`; `epoch/X` -> `epoch/ln(X)`."""
    for prefix in _KEPT_APART:
        if name.startswith(prefix):
            return f"{prefix}ln({name[len(prefix) :]})"
    return f"ln({name})"
