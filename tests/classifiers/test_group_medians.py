"""signals.group_medians gives np.median's numbers per group, on both of its paths: many small
groups (one sort of every point) and a few large ones (a partition of each group's slice)."""

from __future__ import annotations

import numpy as np
import pytest
from lossforensics.classifiers.signals import group_medians


@pytest.mark.parametrize(("points", "groups"), [(7, 3), (300, 40), (5_000, 4), (20_000, 50)])
def test_group_medians_equal_np_median_of_each_group(points: int, groups: int) -> None:
    rng = np.random.default_rng(points)
    for _ in range(20):
        y = np.round(rng.standard_normal(points), 2)  # ties: the middle values repeat
        group = rng.integers(0, groups, points) + int(rng.integers(-3, 3))
        expected = [np.median(y[group == g]) for g in np.unique(group)]
        np.testing.assert_array_equal(group_medians(group, y), expected)
