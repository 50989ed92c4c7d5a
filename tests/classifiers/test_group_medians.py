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


@pytest.mark.parametrize(("points", "groups"), [(2, 1), (7, 3), (300, 40), (3_300, 33), (900, 3)])
def test_group_medians_of_sorted_groups_are_those_of_one_sort_of_every_point(
    points: int, groups: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Groups that are runs of a sorted column (a curve's points by the evaluation after
    them) are read as padded rows: the same numbers as sorting every point, to a zero's sign
    (a run of uneven lengths that would pad too much, and zeros, take that path itself)."""
    from lossforensics.classifiers.signals import reduce

    rng = np.random.default_rng(points + groups)
    for trial in range(30):
        y = np.round(rng.standard_normal(points), 2 if trial % 2 else 6)  # ties, zeros
        if trial % 3 == 0:
            y[y == 0] = 0.5
        group = np.sort(rng.integers(0, groups, points))
        if trial % 5 == 0:
            group[: points // 2] = group[0]  # one long run: padding it would cost too much
        fast = group_medians(group, y)
        with monkeypatch.context() as patch:
            patch.setattr(reduce, "_contiguous_medians", lambda group, y: None)
            ref = group_medians(group, y)
        np.testing.assert_array_equal(fast, ref)
        assert np.array_equal(np.signbit(fast), np.signbit(ref))
        expected = [np.median(y[group == g]) for g in np.unique(group)]
        np.testing.assert_array_equal(fast, expected)
