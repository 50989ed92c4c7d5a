"""A run counter printed on every line: `Run: 01, Epoch: 01, Loss: 0.4359` (OGB's examples,
which train ten seeds one after the other), `seed 2 | epoch 3 | loss ..`. Each value is a model
trained from the start: a run of its own, not a session of one run that restarted its epochs
(read as one run, the second seed's epoch 1 was a resume that lost its optimizer state).

A metric named only `run`, `seed`, `trial`, `fold` or `repeat`, whole-numbered, printed on
`_MIN_SHARE` of the records that print a loss (a summary between runs, `Highest Valid: ..`, does
not count) and taking two values or more, splits the records by its value (the value in force,
carried to the records after it; the records before its first print take its first value), and
is dropped as a metric."""

from __future__ import annotations

import re

import numpy as np

_RUN_FIELD = re.compile(r"(?i)(?:run|seed|trial|fold|repeat)")
# on 90% of the records: a counter of every line, not a field one summary line prints
_MIN_SHARE = 0.9


def names_a_run_field(names: list[str]) -> bool:
    """Whether some metric is named as a run counter (the cheap test before the split)."""
    return any(_RUN_FIELD.fullmatch(name.strip()) for name in names)


def split_by_run_field(
    rec_run: np.ndarray,
    p_rec: np.ndarray,
    p_key: np.ndarray,
    p_val: np.ndarray,
    names: list[str],
    runs: list[str],
    lossy: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, list[str]] | None:
    """(each record's new run code, the points to keep, the run names), or None when no run
    counter is printed. `lossy`: the records that hold a loss (those the share is read on; in
    a log with none, every record with a point)."""
    for code, name in enumerate(names):
        if not _RUN_FIELD.fullmatch(name.strip()):
            continue
        on = p_key == code
        values = p_val[on]
        if len(np.unique(values)) < 2 or not np.all(values == np.round(values)):
            continue
        printed = np.unique(p_rec[on])
        others = np.flatnonzero(lossy) if lossy.any() else np.unique(p_rec[~on])
        if not len(others) or np.isin(others, printed).mean() < _MIN_SHARE:
            continue
        field = np.full(len(rec_run), -1, dtype=np.int64)
        field[p_rec[on]] = values.astype(np.int64)
        seen = np.maximum.accumulate(np.where(field >= 0, np.arange(len(field)), -1))
        first = int(field[np.flatnonzero(field >= 0)[0]])
        field = np.where(seen >= 0, field[np.maximum(seen, 0)], first)
        pairs, new_run = np.unique(np.stack([rec_run, field]), axis=1, return_inverse=True)
        word = name.strip().lower()
        new_names = [
            f"{word} {v}" if len(runs) == 1 else f"{runs[r]}, {word} {v}"
            for r, v in pairs.T.tolist()
        ]
        return new_run.reshape(-1).astype(rec_run.dtype), ~on, new_names
    return None
