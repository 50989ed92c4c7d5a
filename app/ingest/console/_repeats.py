"""A round printed again, with the values it had, is a summary, not a new measurement.

XGBoost's early stopping ends with `Stopping. Best iteration:` and the best round once more
(`[35]\tvalidation_0-logloss:0.487962`, the very line logged at round 35). Read as a record it is a
step that goes back: a second session of one point, a resume that never happened. Boosting rounds
are deterministic within a run, so a record whose round was already logged in the same run with
exactly the same metrics and values repeats it; a resumed training that starts the rounds over
prints other values and is kept. Only styles that declare `repeated_round` are checked.
"""

from __future__ import annotations

import numpy as np


def not_repeated(
    step: np.ndarray, run: np.ndarray, p_rec: np.ndarray, p_key: np.ndarray, p_val: np.ndarray
) -> np.ndarray:
    """Per point, False where its record repeats an earlier record of the same run and step
    point for point (same metrics, same values)."""
    keep = np.ones(len(p_rec), dtype=bool)
    if not len(p_rec):
        return keep
    bounds = np.flatnonzero(np.diff(p_rec)) + 1
    starts = np.concatenate(([0], bounds))
    ends = np.concatenate((bounds, [len(p_rec)]))
    seen: set[tuple[object, ...]] = set()
    for a, b in zip(starts.tolist(), ends.tolist(), strict=True):
        r = int(p_rec[a])
        if step[r] < 0:
            continue
        sig = (int(run[r]), int(step[r]), p_key[a:b].tobytes(), p_val[a:b].tobytes())
        if sig in seen:
            keep[a:b] = False
        else:
            seen.add(sig)
    return keep
