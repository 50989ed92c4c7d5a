"""Each point's segment (the session of its run: 0, then +1 at each restart), one rule for every
reader.

A restart is seen two ways. A metric whose step goes below its own previous step (in the order
the points were logged) restarted: judged per metric, because metrics logged at different
cadences interleave (a val point at step 500 after a train point at step 510 is no restart) and
a train/validation pair of streams each keeps its own step order; an exact repeat of a step is a
duplicate write, not a restart. And a reader that knows sessions explicitly (a `segment` or
`phase` key) gives each point a label: a new label starts a segment. Labels that come back
(train, val, train, ...) name interleaved streams, not sessions, and are ignored for that run.

One restart shows in every metric that is logged across it, each at its own next point. The
metric that went back at point j was last logged at point i: the restart lies in (i, j]. The
fewest restarts that explain every such interval are found greedily (interval stabbing, by
right end), so a restart seen by twenty metrics counts once and starts its segment at the first
point that shows it. Cost: sorts plus one pass over the restarts (not the points).
"""

from __future__ import annotations

import numpy as np

# a column naming separate runs (by its name, or by an id: `run_id`, `trial_id`); a
# cross-validation's folds each train a model from the start, so a `fold` column names runs too
RUN_KEYS: tuple[str, ...] = (
    "run",
    "experiment",
    "trial",
    "run_id",
    "run_name",
    "experiment_id",
    "experiment_name",
    "trial_id",
    "fold",
    "fold_id",
    "cv_fold",
)
SEGMENT_KEYS: tuple[str, ...] = ("segment", "phase")  # a column naming sessions of one run


def key_column(names: tuple[str, ...] | list[str], keys: tuple[str, ...]) -> int | None:
    """Position of the first of `keys` among column `names` (case and padding ignored)."""
    low = [str(n).strip().lower() for n in names]
    return next((low.index(k) for k in keys if k in low), None)


def restart_segments(
    runs: np.ndarray,
    metrics: np.ndarray,
    steps: np.ndarray,
    order: np.ndarray | None = None,
    labels: np.ndarray | None = None,
) -> np.ndarray:
    """Each point's segment within its run. `runs`/`metrics`: integer codes; `order`: the
    logging order (default: the order given); `labels`: an explicit session label code per
    point, -1 where the point has none."""
    n = len(steps)
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    runs = np.asarray(runs, dtype=np.int64)
    steps = np.asarray(steps)
    logged = steps if order is None else steps[np.argsort(order, kind="stable")]
    if labels is None and bool(np.all(logged[1:] >= logged[:-1])):
        return np.zeros(n, dtype=np.int64)  # no step goes back anywhere: one segment (fast)
    rank = np.arange(n, dtype=np.int64)
    by_rank = rank  # the points in logging order
    if order is not None:  # rank 0..n-1 in logging order (ties: the order given)
        by_rank = np.lexsort((np.arange(n), np.asarray(order)))
        rank = np.empty(n, dtype=np.int64)
        rank[by_rank] = np.arange(n, dtype=np.int64)
    starts, ends, event_runs = _step_restarts(runs, np.asarray(metrics), steps, rank, by_rank)
    if labels is not None:
        s2, e2, r2 = _label_restarts(runs, np.asarray(labels, dtype=np.int64), rank)
        starts, ends = np.r_[starts, s2], np.r_[ends, e2]
        event_runs = np.r_[event_runs, r2]
    if len(ends) == 0:
        return np.zeros(n, dtype=np.int64)
    at = _stab(event_runs, starts, ends)
    span = n + 1  # one key space: run * span + rank
    cuts = np.sort(event_runs[at] * span + ends[at])
    keys = runs * span + rank
    return np.searchsorted(cuts, keys, side="right") - np.searchsorted(
        cuts, runs * span, side="left"
    )


def _step_restarts(
    runs: np.ndarray, metrics: np.ndarray, steps: np.ndarray, rank: np.ndarray, by_rank: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(previous point's rank, this point's rank, run) where a metric's step goes back.
    `by_rank`: the inverse of the permutation `rank`, the points in logged order."""
    key = runs * (int(metrics.max()) + 1) + metrics
    if key.max() < 2**16:  # numpy's stable sort of 16-bit integers is a radix sort
        key = key.astype(np.uint16)
    o = by_rank[np.argsort(key[by_rank], kind="stable")]
    series, s = key[o], np.asarray(steps)[o]
    i = np.flatnonzero((series[1:] == series[:-1]) & (s[1:] < s[:-1]))
    return rank[o[i]], rank[o[i + 1]], runs[o[i + 1]]


def _label_restarts(
    runs: np.ndarray, labels: np.ndarray, rank: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(previous labelled point's rank, this point's rank, run) where a run's label changes;
    none for a run whose labels come back after another (interleaved streams, not sessions)."""
    has = labels >= 0
    if not has.any():
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty, empty
    o = np.flatnonzero(has)[np.lexsort((rank[has], runs[has]))]
    r, lab, k = runs[o], labels[o], rank[o]
    first = np.r_[True, r[1:] != r[:-1]]
    block = first | np.r_[False, lab[1:] != lab[:-1]]
    opened, counts = np.unique(np.stack([r[block], lab[block]]), axis=1, return_counts=True)
    recurring = np.unique(opened[0, counts > 1])  # runs where some label opens two blocks
    if len(recurring):
        block &= ~np.isin(r, recurring)
    change = np.flatnonzero(block & ~first)
    return k[change - 1], k[change], r[change]


def _stab(runs: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """Indices of the events kept as restarts: by run and right end, an event whose interval
    (start, end] already holds a kept restart of its run is that restart seen again."""
    o = np.lexsort((ends, runs))
    kept: list[int] = []
    last_run, last_end = -1, -1
    for idx, run, start, end in zip(
        o.tolist(), runs[o].tolist(), starts[o].tolist(), ends[o].tolist(), strict=True
    ):
        if run != last_run or last_end <= start:
            kept.append(idx)
            last_run, last_end = run, end
    return np.asarray(kept, dtype=np.int64)
