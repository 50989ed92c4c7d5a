"""A record printed again, with the values it had, is not a new measurement.

An echo: a line printed twice in a row (a logger's line and a `print` of it) is one record
(`not_echoed`, every style). A repeated round:

XGBoost's early stopping ends with `Stopping. Best iteration:` and the best round once more
(`[35]\tvalidation_0-logloss:0.487962`, the very line logged at round 35). Read as a record it is a
step that goes back: a second session of one point, a resume that never happened. Boosting rounds
are deterministic within a run, so a record whose round was already logged in the same run with
exactly the same metrics and values repeats it; a resumed training that starts the rounds over
prints other values and is kept. Only styles that declare `repeated_round` are checked.
"""

from __future__ import annotations

import numpy as np
from lossforensics.ingest.console._columns import is_constant


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


# the record fields an echo repeats exactly: the same run, kind of line and counters
_ECHO_FIELDS = ("run", "kind", "epoch", "step", "batch")
# a multiplier that spreads metric codes over 64 bits before they are mixed with the values
_MIX = np.uint64(0x9E3779B97F4A7C15)


def not_echoed(
    rec: dict[str, np.ndarray], p_rec: np.ndarray, p_key: np.ndarray, p_val: np.ndarray
) -> np.ndarray:
    """Per point, False where its record echoes the record with points just before it: the same
    run, kind and counters, the same metrics with the same values. A logger's line followed by
    a `print` of the same text, or a file handler and a redirected stdout writing one file,
    print every record twice; read twice, each epoch holds two points at two sub-steps. A record
    with neither step nor batch counter must hold two metrics or more to count as an echo, not
    all of them NaN or infinite: one value printed twice within an epoch may be a flat loss
    printed per batch, and a run that went NaN prints NaN at every line after (a Keras bar's
    `loss: nan - mse: nan`, pasted without its epoch header). Nor is a record whose timestamp
    differs from the one before: logged again seconds later, it is a new reading."""
    keep = np.ones(len(p_rec), dtype=bool)
    if len(p_rec) < 2:
        return keep
    starts = np.flatnonzero(np.r_[True, p_rec[1:] != p_rec[:-1]])
    counts = np.diff(np.r_[starts, len(p_rec)])
    if len(starts) < 2:
        return keep
    mixed = (p_key.astype(np.uint64) + np.uint64(1)) * _MIX
    mixed ^= np.ascontiguousarray(p_val, dtype=np.float64).view(np.uint64)
    sig = np.add.reduceat(mixed, starts)  # order-free within a record, wraps on overflow
    recs = p_rec[starts]
    echo = (sig[1:] == sig[:-1]) & (counts[1:] == counts[:-1])
    for field in _ECHO_FIELDS:
        column = rec[field]
        echo &= column[recs[1:]] == column[recs[:-1]]
    # two timestamps that differ are two moments: the same line logged again seconds later (a
    # loss stuck at one value, no counter printed) is a new record; a handler's echo shares
    # its record's time, and a `print` of it has none
    wall = rec["wall"]
    if not is_constant(wall):
        later, earlier = wall[recs[1:]], wall[recs[:-1]]
        echo &= ~(np.isfinite(later) & np.isfinite(earlier) & (later != earlier))
    counted = (rec["step"][recs[1:]] >= 0) | (rec["batch"][recs[1:]] >= 0)
    echo &= counted | (counts[1:] >= 2)
    if not echo.any():  # most logs print no line twice: the finite test below is not paid for
        return keep
    uncounted = echo & ~counted
    if uncounted.any():  # a record of NaNs alone, with no counter, is a streak
        finite = np.add.reduceat(np.isfinite(p_val).astype(np.int64), starts) > 0
        echo &= counted | finite[1:]
        if not echo.any():
            return keep
    dropped = np.r_[False, echo]
    return ~np.repeat(dropped, counts)
