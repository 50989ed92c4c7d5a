"""The judging resolution: a series longer than JUDGED_POINTS is judged on block aggregates.

The classifiers read proportions of a run (the last 40% for a plateau, a trend over a tenth of
it), which JUDGED_POINTS points already resolve; judging every point of a longer series costs
time that grows with the run and changes no shape they read. So a series of n > JUDGED_POINTS
points is judged as ceil(n / b) blocks of b consecutive points, b the smallest power of two that
brings the count to JUDGED_POINTS or under. Each block gives:

- value: the mean of its points, taken as a binary tree of pairwise means (0.5 a + 0.5 b, the
  last block's unpaired points passing up with their weight): a NaN or inf in a block makes its
  value non-finite, so a non-finite point is never averaged away;
- peak: the highest of its points (NaN when one is NaN): a one-point spike keeps its height,
  which the block mean divides by b;
- step and wall time: those of its first non-finite point when it holds one, else of its
  highest point (the first of them on a tie): where a series went non-finite, and where a spike
  stood, keep their own steps.

Complete blocks never change as points are appended, and a block of 2b points is, by the tree,
the pairwise merge of its two halves: `Blocks` keeps the complete blocks of a growing series and
updates them from the new points only (merging pairs when b doubles), giving exactly what
`aggregate` builds at once from the whole series. A series of JUDGED_POINTS points or fewer is
judged point by point, as logged.
"""

from __future__ import annotations

import numpy as np

# 32768 judged points a series: a tenth of the run is 3276 of them, finer than any shape the
# classifiers read, and every labelled run (the longest curve holds 24000 points) is judged
# point by point
JUDGED_POINTS = 2**15

Aggregates = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]  # steps, means, walls, peaks


def block_size(n: int, cap: int = JUDGED_POINTS) -> int:
    """Points per judged point for a series of n points: the smallest power of two b with
    ceil(n / b) <= cap."""
    b = 1
    while -(-n // b) > cap:
        b *= 2
    return b


def _tree_mean(values: np.ndarray) -> np.ndarray:
    """Each row's mean by the tree: neighbours (0, 1), (2, 3), ... merged level by level, an odd
    last one passing up with its weight; rows of a power-of-two width halve exactly (0.5 a +
    0.5 b, what the general weights give there)."""
    mean = values
    width = values.shape[1]
    if width & (width - 1) == 0:  # a complete block: equal weights at every level
        while mean.shape[1] > 1:
            mean = mean[:, 0::2] * 0.5 + mean[:, 1::2] * 0.5
        return mean[:, 0]
    weight = np.ones(values.shape)
    while mean.shape[1] > 1:
        even = mean.shape[1] // 2 * 2
        wl, wr = weight[:, 0:even:2], weight[:, 1:even:2]
        total = wl + wr
        merged = mean[:, 0:even:2] * (wl / total) + mean[:, 1:even:2] * (wr / total)
        mean = np.concatenate([merged, mean[:, even:]], axis=1)
        weight = np.concatenate([total, weight[:, even:]], axis=1)
    return mean[:, 0]


def _reduce_rows(
    steps: np.ndarray, values: np.ndarray, wall: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Each row (blocks x points) reduced to one (step, mean, wall, peak)."""
    mean = _tree_mean(values)
    rows = np.arange(len(values))
    at = values.argmax(axis=1)  # the highest point (the first NaN where there is one)
    peak = values[rows, at]  # the row's max, NaN where one is NaN
    bad = np.flatnonzero(~np.isfinite(mean))  # the blocks holding a NaN or an inf
    if len(bad):
        at[bad] = (~np.isfinite(values[bad])).argmax(axis=1)
    return steps[rows, at], mean, wall[rows, at], peak


def aggregate(steps: np.ndarray, values: np.ndarray, wall: np.ndarray, b: int) -> Aggregates:
    """(steps, means, walls, peaks) of the series in blocks of b consecutive points; its length
    need not be a multiple of b: the last block holds what is left."""
    y = np.asarray(values, dtype=np.float64)
    n = len(y)
    whole = n // b * b
    parts = [_reduce_rows(*(np.asarray(a[:whole]).reshape(-1, b) for a in (steps, y, wall)))]
    if whole < n:
        parts.append(
            _reduce_rows(*(np.asarray(a[whole:]).reshape(1, -1) for a in (steps, y, wall)))
        )
    return parts[0] if len(parts) == 1 else _join(parts[0], parts[1])


def _join(head: Aggregates, tail: Aggregates) -> Aggregates:
    s, m, w, p = (np.concatenate(pair) for pair in zip(head, tail, strict=True))
    return s, m, w, p


def _first(blocks: Aggregates, k: int) -> Aggregates:
    s, m, w, p = (a[:k] for a in blocks)
    return s, m, w, p


def _merge_pairs(blocks: Aggregates) -> Aggregates:
    """Blocks of 2b from an even number of blocks of b: the tree's next level. The merged step
    is the left half's when that one holds a non-finite point, else the right half's when it
    does, else the one of the higher peak (the left on a tie): what `aggregate` picks."""
    steps, mean, wall, peak = blocks
    left_bad, right_bad = ~np.isfinite(mean[0::2]), ~np.isfinite(mean[1::2])
    left = left_bad | (~right_bad & (peak[0::2] >= peak[1::2]))
    return (
        np.where(left, steps[0::2], steps[1::2]),
        mean[0::2] * 0.5 + mean[1::2] * 0.5,
        np.where(left, wall[0::2], wall[1::2]),
        np.maximum(peak[0::2], peak[1::2]),
    )


class Blocks:
    """The complete blocks of one growing series at its current block size, kept as points are
    appended: `update` reads only the points after the last complete block (and merges pairs of
    blocks when the size doubles), so keeping them costs O(new points) amortised."""

    def __init__(self, cap: int = JUDGED_POINTS) -> None:
        self.cap = cap  # judged points at most
        self.b = 1
        self.done = 0  # points covered by complete blocks
        empty = np.zeros(0)
        self.blocks: Aggregates = (np.zeros(0, np.int64), empty, empty, empty)
        self.touched = 0  # points and blocks read by updates (the work meter)

    def update(self, steps: np.ndarray, values: np.ndarray, wall: np.ndarray) -> None:
        """Catch up with the series (the same one, longer by the points appended)."""
        b = block_size(len(steps), self.cap)
        if b == 1:
            return
        if self.b == 1:  # first time over the cap: every point is new to the blocks
            self.b = b
        while self.b < b:
            pairs = len(self.blocks[0]) // 2
            self.blocks = _merge_pairs(_first(self.blocks, 2 * pairs))
            self.touched += 2 * pairs
            self.b *= 2
            self.done = pairs * self.b  # an unpaired last block goes back to the tail
        whole = len(steps) // self.b * self.b
        if whole > self.done:
            span = slice(self.done, whole)
            new = aggregate(steps[span], values[span], wall[span], self.b)
            self.touched += whole - self.done
            self.blocks = _join(self.blocks, new)
            self.done = whole
        for kept in self.blocks:
            kept.flags.writeable = False  # handed to the classifiers as they are

    def judged(self, steps: np.ndarray, values: np.ndarray, wall: np.ndarray) -> Aggregates | None:
        """(steps, means, walls, peaks) to judge, as `aggregate` gives them: the blocks and the
        incomplete last one; None under the cap (the series is judged as it is)."""
        if self.b == 1:
            return None
        if self.done == len(steps):
            return self.blocks  # read-only: the next tick's blocks too
        tail = aggregate(steps[self.done :], values[self.done :], wall[self.done :], self.b)
        self.touched += len(steps) - self.done
        return _join(self.blocks, tail)
