"""The split of a line that reports one held-out split: `Epoch: 3  Validation Loss: 0.41,
Accuracy: 0.87` prints the validation loss, then the accuracy of the same evaluation without
saying its split again. Read alone, `Accuracy` would be a training score; it is the
validation accuracy (`Validation/Accuracy`).

A split-less score or loss takes the split of the held-out loss or score printed before it,
when no key on the line names the training split and no split-less loss comes before that
held-out key (`loss: 0.5, val_loss: 0.4, acc: 0.8` reports both splits; `acc` stays the
training accuracy; `Valid acc: 0.30 | loss: 2.05` is the validation loss). Only scores and
losses take it: a learning rate, a time or a count belongs to no split.
"""

from __future__ import annotations

import re
from functools import lru_cache

from lossforensics.classifiers.roles import infer_role

# a held-out split's word, or the verb a script prints it as (`evaluated with loss: 0.41`)
_HELD_OUT = re.compile(
    r"(?<![A-Za-z])([Vv]al(?:id(?:at(?:ion|ed|ing))?)?|VAL|[Ee]val(?:uat(?:ion|ed|ing))?|EVAL"
    r"|[Tt]est|TEST|[Dd]ev|DEV)(?![a-z])"
)
_TRAIN = re.compile(r"(?<![A-Za-z])(?:[Tt]rain(?:ing|ed)?|TRAIN(?:ING|ED)?)(?![a-z])")


def held_out_prefixes(keys: list[str]) -> list[str]:
    """Per key, the held-out split it belongs to though it does not say so (`Validation/`), or
    ''."""
    out = [""] * len(keys)
    split = ""
    for i, key in enumerate(keys):
        named = _HELD_OUT.search(key)
        if _TRAIN.search(key):
            return [""] * len(keys)
        if named is None:
            role = _role(key)
            if role == "train_loss" and not split:
                return [""] * len(keys)
            if split and role in ("train_loss", "train_score"):
                out[i] = split
        elif not split and _role(key) in ("val_loss", "val_score"):
            split = f"{named.group(1)}/"
    return out


@lru_cache(maxsize=4096)
def _role(key: str) -> str:
    """A key's role by name (lines of one shape repeat their keys)."""
    return infer_role(key)
