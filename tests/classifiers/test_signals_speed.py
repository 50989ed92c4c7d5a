"""The fast paths in classifiers.signals give exactly the numbers of the library calls they
replace (a speed-up must not move a single diagnosis)."""

import warnings

import numpy as np
import pandas as pd
import pytest
from lossforensics.classifiers import signals
from lossforensics.classifiers.run import RunSeries
from lossforensics.classifiers.signals._theil_kendall import theil_kendall
from scipy import stats

from tests.classifiers._labelled import run_of


def _scipy(x: np.ndarray, y: np.ndarray) -> tuple[float, ...]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        slope, _, low, high = stats.theilslopes(y, x)
        tau, p = stats.kendalltau(x, y)
    return float(slope), float(low), float(high), float(tau), float(p)


def _cases(rng: np.random.Generator):
    """Noise, decays, monotone curves (scipy's exact p-value path), ties in x and y, short and
    unsorted series: every branch of the two statistics."""
    for trial in range(400):
        n = int(rng.integers(3, 320)) if trial % 4 else int(rng.integers(3, 34))
        x = np.sort(rng.uniform(0, 1000, n))
        kind = trial % 6
        if kind == 0:
            y = rng.normal(size=n)
        elif kind == 1:
            x = np.sort(rng.integers(0, max(2, n // 4), n)).astype(float)  # tied steps
            y = rng.normal(size=n)
        elif kind == 2:
            y = np.round(rng.normal(size=n), 1)  # tied values
        elif kind == 3:
            y = np.exp(-x / 300) + 0.01 * rng.normal(size=n)
        elif kind == 4:
            y = np.sort(rng.normal(size=n))[:: 1 if trial % 2 else -1].copy()
            y[: trial % 3] = y[trial % 3]  # monotone: 0 or 1 discordant pairs
        else:
            x = rng.permutation(x)
            y = rng.integers(0, 3, n).astype(float)
        if np.ptp(x) > 0 and np.ptp(y) > 0:
            yield x, y
    for n in (10, 50, 200):  # ties so heavy that Sen's variance is negative: no interval
        yield np.r_[np.zeros(n - 1), 1.0], np.r_[np.zeros(n - 2), 1.0, 1.0]


def test_theil_kendall_is_bit_identical_to_scipy():
    rng = np.random.default_rng(7)
    checked = 0
    for x, y in _cases(rng):
        ours, ref = theil_kendall(x, y), _scipy(x, y)
        assert ours == pytest.approx(ref, rel=0, abs=0, nan_ok=True), (len(x), ours, ref)
        checked += 1
    assert checked > 350
    assert np.isnan(theil_kendall(np.r_[np.zeros(9), 1.0], np.r_[np.zeros(8), 1.0, 1.0])[1])


def test_trend_matches_scipy_after_bucketing_and_falls_back_on_non_finite_values():
    x = np.arange(5000, dtype=float)
    y = 2.0 * np.exp(-x / 800) + 0.02 * np.random.default_rng(3).normal(size=5000)
    t = signals.trend(x, y)
    xb, yb = signals.bucket(x, y, 300, "median")
    assert (t.slope, t.low, t.high, t.tau, t.p_value) == _scipy(xb, yb)
    y[10] = np.inf  # not cleaned by the caller: scipy's own handling, whatever it gives
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # scipy on inf - inf
        assert signals.trend(x[:200], y[:200]).n == 200


def _assert_pandas_rolling_median(y: np.ndarray, w: int, center: bool) -> None:
    """signals.rolling_median gives pandas' rolling median to the bit (NaN where pandas' is)."""
    ref = pd.Series(y).rolling(w, center=center, min_periods=1).median().to_numpy()
    assert np.array_equal(signals.rolling_median(y, w, center=center), ref, equal_nan=True)


def test_rolling_median_matches_pandas_on_short_windows_edges_ties_and_non_finite_values():
    rng = np.random.default_rng(11)
    for trial in range(600):
        n, w, center = int(rng.integers(1, 300)), int(rng.integers(2, 120)), bool(trial % 3)
        y = rng.normal(size=n)
        if trial % 4 == 0:
            y = np.round(y, 1)  # even-count edge windows average two tied middles
        if trial % 9 == 0:
            y[0] = np.inf  # pandas has its own reading of inf and NaN: kept
        if trial % 17 == 0:
            y[n // 2] = np.nan
        _assert_pandas_rolling_median(y, w, center)


def test_rolling_median_of_a_long_series_matches_pandas_for_every_window_width():
    rng = np.random.default_rng(13)  # past the stacked sort's size: scipy's rank filter
    for trial in range(60):
        n, w, center = int(rng.integers(400, 3000)), int(rng.integers(2, 60)), bool(trial % 2)
        y = rng.normal(size=n)
        if trial % 3 == 0:
            y = np.round(y, 1)  # tied middles in full and edge windows
        _assert_pandas_rolling_median(y, w, center)


def test_rolling_median_of_a_long_series_over_a_narrow_window_matches_pandas():
    rng = np.random.default_rng(14)  # past the stacked sort, at most 7 wide: the network
    for trial in range(120):
        w, center = 2 + trial % 6, bool(trial % 2)
        n = int(rng.integers(4096 // w + 1, 6000))
        y = rng.normal(size=n)
        if trial % 3 == 0:
            y = np.round(y, 1)  # tied middles in full and edge windows
        _assert_pandas_rolling_median(y, w, center)


def test_rolling_median_past_the_stacked_sort_matches_pandas_where_windows_outgrow_the_series():
    rng = np.random.default_rng(15)  # scipy's rank filter inside, pandas' kernel at the edges
    for n in (41, 100, 257, 1000):
        for w in (n // 2, n // 2 + 1, n - 1, n, n + 1, 2 * n, 2 * n + 1):
            for center in (True, False):
                y = np.round(rng.normal(size=n), 1)  # tied middles
                _assert_pandas_rolling_median(y, w, center)


def test_rolling_median_span_is_that_stretch_of_the_whole_rolling_median():
    rng = np.random.default_rng(16)  # short and long series, narrow and wide windows
    for trial in range(400):
        n = int(rng.integers(1, 4000)) if trial % 2 else int(rng.integers(1, 200))
        w, center = int(rng.integers(1, max(2, n // 3))) + trial % 3, bool(trial % 5)
        y = rng.normal(size=n)
        if trial % 4 == 0:
            y = np.round(y, 1)  # tied middles
        if trial % 11 == 0:
            y[int(rng.integers(0, n))] = np.nan  # inside or outside the stretch
        start = int(rng.integers(-5, n + 5))
        stop = start + int(rng.integers(-2, n))
        whole = signals.rolling_median(y, w, center=center)
        got = signals.rolling_median_span(y, w, start, stop, center=center)
        assert np.array_equal(got, whole[max(start, 0) : max(stop, 0)], equal_nan=True)


def test_rolling_median_at_and_rolling_min_read_the_same_windows_as_pandas():
    rng = np.random.default_rng(12)
    for trial in range(600):
        n, w, center = int(rng.integers(1, 300)), int(rng.integers(1, 80)), bool(trial % 2)
        y = rng.normal(size=n)
        if trial % 4 == 0:
            y = np.round(y, 1)
        if trial % 13 == 0:
            y[n // 2] = np.inf  # non-finite: the whole rolling median, indexed
        at = rng.integers(0, n, size=int(rng.integers(0, 30)))
        whole = signals.rolling_median(y, w, center=center)
        got = signals.smoothing.rolling_median_at(y, w, at, center=center)
        assert np.array_equal(got, whole[at], equal_nan=True)
        if np.isfinite(y).all():
            ref = pd.Series(y).rolling(w, center=center, min_periods=1).min().to_numpy()
            assert np.array_equal(signals.smoothing.rolling_min(y, w, center=center), ref)


def test_find_spikes_sorting_only_the_windows_a_spike_could_use_finds_the_same(monkeypatch):
    from lossforensics.classifiers.signals import events

    rng = np.random.default_rng(13)
    cases = []
    for trial in range(300):
        n = int(rng.integers(3, 3000))
        x = np.arange(n) / n
        kind = trial % 4
        if kind == 0:
            y = 2 * np.exp(-3 * x) + 0.05 * rng.normal(size=n)  # a trained curve
        elif kind == 1:
            y = np.exp(5 * x) + rng.normal(size=n)  # climbing: every window read
        elif kind == 2:
            y = np.round(rng.normal(size=n), 1)
        else:
            y = rng.normal(size=n)
        hit = rng.integers(0, n, size=int(rng.integers(1, 10)))
        y[hit] += 3 * rng.exponential(size=len(hit))
        if trial % 10 == 0:
            y[int(rng.integers(0, n))] = np.nan
        cases.append((y, {"min_height": 0.3} if trial % 3 == 0 else {}))
    fast = [events.find_spikes(y, **kw) for y, kw in cases]
    monkeypatch.setattr(events, "_SORTED_LEVELS_SHARE", 10**9)  # every window's median
    for (y, kw), got in zip(cases, fast, strict=True):
        ref = events.find_spikes(y, **kw)
        for field in ("indices", "heights", "z", "before", "widths", "recovered"):
            assert np.array_equal(getattr(got, field), getattr(ref, field), equal_nan=True)


def test_nan_row_medians_are_numpys_nanmedian_bit_for_bit():
    rng = np.random.default_rng(14)
    for trial in range(800):
        rows = rng.normal(size=(int(rng.integers(1, 12)), int(rng.integers(1, 120))))
        if trial % 3 == 0:
            rows = np.round(rows, 1)  # tied middles
        if trial % 5 == 0:
            rows[rng.random(rows.shape) < 0.3] = np.nan
        if trial % 7 == 0:
            rows[int(rng.integers(0, len(rows)))] = np.nan  # a row of NaN only: NaN
        if trial % 11 == 0:
            rows[rng.random(rows.shape) < 0.05] = np.inf * rng.choice([-1, 1])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ref = np.nanmedian(rows, axis=1)
        assert np.array_equal(signals.nan_row_medians(rows), ref, equal_nan=True)


def test_a_run_smooths_each_curve_once_and_no_caller_can_edit_it():
    x = np.arange(2000, dtype=float)
    y = np.exp(-x / 500) + 0.01 * np.random.default_rng(5).normal(size=2000)
    y[7] = np.nan
    run = run_of(loss=(x, y))
    xs, level = run.smoothed("train_loss")
    plain = signals.smooth(*signals.finite_points(x, y))
    assert np.array_equal(xs, plain[0]) and np.array_equal(level, plain[1])
    assert run.smoothed("train_loss")[1] is level  # computed once, kept with the run
    assert not np.array_equal(run.smoothed("train_loss", 0.1)[1], level)
    with pytest.raises(ValueError):
        level[0] = -1.0  # shared between labels: read-only
    assert RunSeries(run.frame).smoothed("train_loss")[1] is not level  # nothing outlives a run
    assert all(len(a) == 0 for a in run.smoothed("val_loss"))


def test_narrow_row_medians_and_means_are_numpys_bit_for_bit():
    from lossforensics.classifiers.signals import _narrow_rows, reduce

    rng = np.random.default_rng(16)
    for rows_n in (1, 2, 3, 7, 8, 33, 1000, 5000):
        for width in range(2, _narrow_rows.NARROW_MAX + 1):
            rows = rng.normal(size=(rows_n, width)) * rng.lognormal(3.0, 3.0, (rows_n, width))
            if rows_n % 2:
                rows = np.round(rows)  # tied middles
            assert np.array_equal(_narrow_rows.narrow_row_medians(rows), np.median(rows, axis=1))
            assert np.array_equal(_narrow_rows.narrow_row_means(rows), np.mean(rows, axis=1))
            for how, ref in (("median", np.median), ("mean", np.mean)):
                y = rows.ravel()[: rows.size - 1]  # a shorter last block
                full = (len(y) // width) * width
                want = ref(y[:full].reshape(-1, width), axis=1)
                if len(y) > full:
                    want = np.append(want, ref(y[full:]))
                assert np.array_equal(reduce._reduce_blocks(y, width, how), want)


def test_epoch_fold_f_test_p_value_is_scipys_bit_for_bit():
    from lossforensics.classifiers._epochs import f_test_p

    rng = np.random.default_rng(17)
    for trial in range(3000):
        dfn, dfd = int(rng.integers(1, 500)), int(rng.integers(1, 30000))
        f = float(rng.lognormal(0.0, 2.0)) if trial % 50 else [0.0, np.inf, np.nan][trial % 3]
        ref = float(stats.f.sf(f, dfn, dfd))
        assert np.array_equal(f_test_p(f, dfn, dfd), ref, equal_nan=True), (f, dfn, dfd)


def test_epoch_fold_phases_from_fmod_are_those_of_the_remainder():
    """epoch_fold places each point in its epoch with np.fmod: on the non-negative steps from
    the first and a positive epoch, the same numbers as `%`, whole or fractional epochs."""
    from lossforensics.classifiers import _epochs

    rng = np.random.default_rng(18)
    for trial in range(200):
        x = np.cumsum(rng.integers(1, 4, int(rng.integers(8, 3000)))).astype(np.float64)
        if trial % 3 == 0:
            x = x * rng.uniform(0.01, 3.0)  # uneven, fractional steps
        epoch = float(rng.integers(4, 200)) + (0.5 if trial % 2 else 0.0) * (trial % 4 > 1)
        y = np.exp(rng.normal(size=len(x)) + np.sin(x / epoch * 2 * np.pi))
        fold = _epochs.epoch_fold(x, y, epoch)
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(_epochs.np, "fmod", np.remainder)
            assert _epochs.epoch_fold(x, y, epoch) == fold


def test_median_of_a_long_array_is_the_partitions_bit_for_bit_however_its_values_lie(
    monkeypatch,
):
    """Past _BRACKET_MIN_POINTS the median is selected among the values a strided sample
    brackets: layouts that fool the sample (sorted, a period in step with the stride, long
    ties), zeros of both signs, infinities and NaN must all give the number of one partition
    of every value, to the sign of a zero, and np.median's."""
    from lossforensics.classifiers.signals import reduce

    def partitioned(y: np.ndarray) -> float:
        with monkeypatch.context() as patch:
            patch.setattr(reduce, "_BRACKET_MIN_POINTS", 10**9)
            return reduce.median(y)

    rng = np.random.default_rng(19)
    for trial in range(300):
        n = int(rng.integers(reduce._BRACKET_MIN_POINTS - 2, 12000))
        kind = trial % 6
        if kind == 0:
            y = rng.normal(size=n)
        elif kind == 1:
            y = np.sort(rng.normal(size=n))[:: 1 if trial % 4 else -1]
        elif kind == 2:  # a period in step with the sample's stride
            stride = max(1, n // reduce._BRACKET_SAMPLE)
            y = np.where(np.arange(n) % stride == 0, -5.0, 0.0) + rng.normal(size=n) * 1e-3
        elif kind == 3:
            y = np.round(rng.normal(size=n), 1)  # long ties
        elif kind == 4:
            y = rng.choice([-0.0, 0.0, 1.0, -1.0], size=n)  # signed zeros in the middle
        else:
            y = rng.standard_cauchy(size=n)
            y[rng.integers(0, n, 3)] = [np.inf, -np.inf, np.inf]
        if trial % 25 == 0:
            y[int(rng.integers(0, n))] = np.nan
        got, want = reduce.median(y), partitioned(y)
        assert np.array_equal(got, want, equal_nan=True), (trial, got, want)
        assert np.signbit(got) == np.signbit(want)
        assert np.array_equal(got, np.median(y), equal_nan=True)
