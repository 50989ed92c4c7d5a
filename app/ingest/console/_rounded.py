"""Steps printed rounded to a magnitude (LeRobot's `step:1K`, `step:26K`): every line from step
1000 to 1499 prints `1K`, so several records share one printed step. Read as printed they
would pile onto one step, and the next `2K` would follow a run of repeats: a counter that
stands still reads as a restart. The records sharing a printed value are spread evenly over
the steps it stands for (`1K`: 500 to 1499, from just past the previous step), in the order
printed. A script logs at a fixed interval, so even spacing is what the printed value hides;
each step found is within half a unit of the true one, and the curve's shape is kept."""

from __future__ import annotations

import numpy as np

# the unit a value is rounded to: the largest power of 1000 not above it (`26K`: 1000)
_THOUSAND = 1000


def _unit(value: int) -> int:
    unit = 1
    while value >= unit * _THOUSAND:
        unit *= _THOUSAND
    return unit


def spread_rounded(step: np.ndarray, run: np.ndarray) -> np.ndarray:
    """`step` (per record, -1 where none is printed) with each run of records that print the
    same rounded value, within one run, spread over the values it stands for."""
    out = step.copy()
    seen = np.flatnonzero(step >= 0)
    if len(seen) < 2:
        return out
    values, runs = step[seen], run[seen]
    new = np.r_[True, (values[1:] != values[:-1]) | (runs[1:] != runs[:-1])]
    starts = np.flatnonzero(new)
    ends = np.r_[starts[1:], len(values)]
    previous = -1
    for a, b in zip(starts.tolist(), ends.tolist(), strict=True):
        value = int(values[a])
        if a and runs[a] != runs[a - 1]:
            previous = -1
        n = b - a
        if n == 1 or value < _THOUSAND:
            previous = value
            continue
        half = _unit(value) // 2
        low, high = value - half, value + half
        if low <= previous < high - n:  # the bucket's start was logged exactly (`800`, then `1K`)
            low = previous + 1
        # (a previous step at or past the bucket's end is a restart: it stays one)
        out[seen[a:b]] = low + ((np.arange(n) + 0.5) * (high - low) / n).astype(np.int64)
        previous = int(out[seen[b - 1]])
    return out
