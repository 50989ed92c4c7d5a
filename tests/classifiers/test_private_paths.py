"""The two private fast paths (pandas' rolling kernels, scipy's exact Kendall p) are taken only
after a check against the public API at import; under the pinned versions they must be taken,
and they must give the public path's numbers."""

import numpy as np
import pandas as pd
from lossforensics.classifiers.signals import _theil_kendall, smoothing
from scipy import stats


def test_private_kernels_pass_their_check_under_the_pinned_versions():
    assert smoothing._roll_mean_c is not None and smoothing._roll_median_c is not None
    assert _theil_kendall._kendall_p_exact is not None


def test_rolling_fast_paths_match_pandas():
    y = np.random.default_rng(0).normal(size=500)
    for window in (2, 5, 60, 101):
        s = pd.Series(y).rolling(window, center=True, min_periods=1)
        assert np.allclose(smoothing.rolling_mean(y, window), s.mean())
        assert np.allclose(smoothing.rolling_median(y, window), s.median())


def test_exact_kendall_p_matches_kendalltau():
    x = np.arange(12.0)
    y = np.array([0, 2, 1, 3, 5, 4, 6, 8, 7, 9, 11, 10], dtype=float)
    dis = 4
    assert np.isclose(
        _theil_kendall._kendall_p_exact(12, 66 - dis, "two-sided"), stats.kendalltau(x, y).pvalue
    )
