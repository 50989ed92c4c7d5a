"""The split a log row belongs to, for readers whose rows carry it in a key (a JSON line's
`"mode": "val"`, a table's `split`/`type` column): a train row's metrics keep their names, a
held-out split's are named under it (`val/loss`), so the splits' values are not merged into one
interleaved series."""

from __future__ import annotations

import numpy as np
import pandas as pd

# the words a split cell uses for the training rows, and for every split
TRAIN_WORDS = frozenset({"train", "training", "trn"})
SPLIT_WORDS = TRAIN_WORDS | {"val", "valid", "validation", "eval", "evaluation", "dev", "test"}


def held_out_splits(cells: pd.Series) -> np.ndarray:
    """Each row's held-out split, lowercased: '' for a train row or a blank cell."""
    text = cells.map(lambda v: v.strip().lower() if isinstance(v, str) else "")
    words = text.to_numpy(dtype=object)
    return np.where(np.isin(words, [*TRAIN_WORDS, ""]), "", words)


def names_splits(cells: pd.Series) -> bool:
    """Whether a column's cells name splits: every non-blank cell a split word, a train word
    among them and another split too (a `type` column of anything else is no split column)."""
    words = {str(v).strip().lower() for v in cells.dropna()} - {""}
    return (
        bool(words)
        and words <= SPLIT_WORDS
        and bool(words & TRAIN_WORDS)
        and bool(words - TRAIN_WORDS)
    )
