"""The judging resolution: a curve longer than JUDGED_POINTS is judged on block aggregates.

The classifiers read proportions of a run (the last 40% for a plateau, a trend over a tenth of
it), which a curve of JUDGED_POINTS points already resolves; judging every point of a longer
one costs time that grows with the run and changes no shape they read. So a step-sorted curve of
n > JUDGED_POINTS points is judged as ceil(n / b) blocks of b consecutive points, b the smallest
power of two that brings the count to JUDGED_POINTS or under. Each block gives:

- value: the mean of its points, taken as a binary tree of pairwise means (0.5 a + 0.5 b, the
  last block's unpaired points passing up with their weight), so any NaN or inf in a block makes
  its value non-finite: a non-finite point is never averaged away;
- peak: the highest of its points (NaN when one is NaN): a one-point spike keeps its height,
  which the block mean divides by b;
- step and wall time: its last point's.

Complete blocks never change as points are appended, and a block of 2b points is, by the tree,
the pairwise mean of its two halves: `Blocks` keeps the complete blocks of a growing curve and
updates them from the new points only (merging pairs when b doubles), and gives exactly what
`at_resolution` builds at once from the whole curve. A curve of JUDGED_POINTS points or fewer is
judged point by point, as logged.
"""

from __future__ import annotations

import numpy as np

# 32768 judged points a curve: a tenth of the run is 3276 of them, finer than any shape the
# classifiers read, and every labelled run (the longest curve holds 24000 points) is judged
# point by point
JUDGED_POINTS = 2**15


def block_size(n: int, cap: int = JUDGED_POINTS) -> int:
    """Points per judged point for a curve of n points: the smallest power of two b with
    ceil(n / b) <= cap."""
    b = 1
    while -(-n // b) > cap:
        b *= 2
    return b


def _pair_up(
    mean: np.ndarray, peak: np.ndarray, weight: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One level of the tree along the last axis: neighbours (0, 1), (2, 3), ... merged; an odd
    last one passes up as it is."""
    even = mean.shape[-1] // 2 * 2
    wl, wr = weight[..., 0:even:2], weight[..., 1:even:2]
    total = wl + wr
    merged = mean[..., 0:even:2] * (wl / total) + mean[..., 1:even:2] * (wr / total)
    high = np.maximum(peak[..., 0:even:2], peak[..., 1:even:2])
    if even == mean.shape[-1]:
        return merged, high, total
    rest = (slice(None),) * (mean.ndim - 1) + (slice(even, None),)
    return (
        np.concatenate([merged, mean[rest]], axis=-1),
        np.concatenate([high, peak[rest]], axis=-1),
        np.concatenate([total, weight[rest]], axis=-1),
    )


def _tree(
    mean: np.ndarray, peak: np.ndarray, weight: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each row (last axis) reduced by the tree to one (mean, peak, weight)."""
    while mean.shape[-1] > 1:
        mean, peak, weight = _pair_up(mean, peak, weight)
    return mean[..., 0], peak[..., 0], weight[..., 0]


def reduce_blocks(values: np.ndarray, b: int) -> tuple[np.ndarray, np.ndarray]:
    """(mean, peak) of each run of b consecutive values, len(values) a multiple of b."""
    rows = np.asarray(values, dtype=np.float64).reshape(-1, b)
    mean, peak, _ = _tree(rows, rows, np.ones(rows.shape))
    return mean, peak


def reduce_tail(values: np.ndarray) -> tuple[float, float]:
    """(mean, peak) of an incomplete last block (fewer than b values), by the same tree."""
    y = np.asarray(values, dtype=np.float64)
    mean, peak, _ = _tree(y, y, np.ones(len(y)))
    return float(mean), float(peak)


def merge_pairs(mean: np.ndarray, peak: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Blocks of 2b from an even number of blocks of b: the tree's next level."""
    return mean[0::2] * 0.5 + mean[1::2] * 0.5, np.maximum(peak[0::2], peak[1::2])


def aggregate(
    steps: np.ndarray, values: np.ndarray, wall: np.ndarray, b: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(steps, means, walls, peaks) of the curve in blocks of b, the last one possibly short."""
    n = len(steps)
    whole = n // b * b
    mean, peak = reduce_blocks(values[:whole], b)
    last = np.arange(b - 1, whole, b)
    if whole < n:
        tail_mean, tail_peak = reduce_tail(values[whole:])
        mean, peak = np.r_[mean, tail_mean], np.r_[peak, tail_peak]
        last = np.r_[last, n - 1]
    return steps[last], mean, wall[last], peak


class Blocks:
    """The complete blocks of one growing curve at its current block size, kept as points are
    appended: `update` reads only the points after the last complete block (and merges pairs of
    blocks when the size doubles), so keeping them costs O(new points) amortised."""

    def __init__(self) -> None:
        self.b = 1
        self.done = 0  # points covered by complete blocks
        self.mean = np.zeros(0)
        self.peak = np.zeros(0)
        self.touched = 0  # points and blocks read by updates (the work meter)

    def update(self, values: np.ndarray) -> None:
        """Catch up with the curve's values (the same curve, longer by the points appended)."""
        n = len(values)
        b = block_size(n)
        if b == 1:
            return
        if self.b == 1:  # first time over the cap: every point is new to the blocks
            self.b = b
            self._extend(values)
            return
        while self.b < b:
            pairs = len(self.mean) // 2
            self.mean, self.peak = merge_pairs(self.mean[: 2 * pairs], self.peak[: 2 * pairs])
            self.touched += 2 * pairs
            self.b *= 2
            self.done = pairs * self.b  # an unpaired last block goes back to the tail
        self._extend(values)

    def _extend(self, values: np.ndarray) -> None:
        whole = len(values) // self.b * self.b
        if whole <= self.done:
            return
        mean, peak = reduce_blocks(values[self.done : whole], self.b)
        self.touched += whole - self.done
        self.mean, self.peak = np.r_[self.mean, mean], np.r_[self.peak, peak]
        self.done = whole

    def judged(
        self, steps: np.ndarray, values: np.ndarray, wall: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray | None]:
        """(steps, values, walls, peaks) to judge: the curve itself under the cap (peaks None),
        else the blocks and the incomplete last one, as `aggregate` gives them."""
        if self.b == 1:
            return steps, values, wall, None
        n, b = len(steps), self.b
        last = np.arange(b - 1, self.done, b)
        mean, peak = self.mean, self.peak
        if self.done < n:
            tail_mean, tail_peak = reduce_tail(values[self.done :])
            self.touched += n - self.done
            mean, peak = np.r_[mean, tail_mean], np.r_[peak, tail_peak]
            last = np.r_[last, n - 1]
        return steps[last], mean, wall[last], peak
