import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from lossforensics.classifiers import signals

RNG = np.random.default_rng(0)


def test_finite_points_drops_nan_and_inf_keeps_order():
    x, y = signals.finite_points(np.array([3, 1, 2, 5]), np.array([1.0, np.nan, np.inf, 4.0]))
    assert list(x) == [3, 5] and list(y) == [1.0, 4.0]


def test_bucket_max_keeps_a_one_point_spike_on_a_long_series():
    y = RNG.normal(0, 0.01, 1_000_000)
    y[123_457] = 5.0
    xb, yb = signals.bucket(np.arange(len(y), dtype=float), y, 1000, "max")
    assert len(yb) == 1000 and yb.max() == 5.0
    _, med = signals.bucket(np.arange(len(y), dtype=float), y, 1000, "median")
    assert np.abs(med).max() < 0.01  # the spike does not leak into the levels


def test_rolling_median_ignores_an_outlier_and_ewma_handles_uneven_steps():
    y = np.ones(21)
    y[10] = 100.0
    assert signals.rolling_median(y, 5)[10] == 1.0
    x = np.array([0, 1, 2, 100, 101])
    out = signals.ewma(x, np.array([0.0, 0, 0, 1, 1]), halflife=1)
    assert out[2] == 0 and out[3] > 0.99  # a 98-step gap forgets the past


def test_savgol_short_series_falls_back_to_input():
    y = np.array([1.0, 2.0, 3.0])
    assert np.array_equal(signals.savgol(y, 11), y)


def test_noise_level_is_trend_free():
    x = np.arange(5000.0)
    y = 10 - 0.001 * x + RNG.normal(0, 0.2, len(x))
    assert signals.noise_level(y) == pytest.approx(0.2, rel=0.1)
    assert signals.robust_spread(np.array([1.0])) == 0.0


def test_scale_and_relative_change_work_for_negative_losses():
    y = -5 + 0.1 * RNG.standard_normal(200) - np.linspace(0, 2, 200)
    s = signals.scale(y)
    assert s > 0
    assert signals.relative_change(-5.0, -7.0, s) < 0
    assert signals.log_ratio(-1.0, 2.0) is None
    assert signals.log_ratio(1.0, np.e) == pytest.approx(1.0)
    assert np.all(np.isfinite(signals.safe_log(np.array([-3.0, 0.0, 2.0]))))


def test_trend_sees_a_slow_steady_decline_and_not_noise():
    x = np.arange(2000.0)
    down = signals.trend(x, 1.0 - 1e-5 * x + RNG.normal(0, 0.002, len(x)))
    assert down.slope < 0 and down.p_value < 1e-6 and down.low <= down.slope <= down.high
    flat = signals.trend(x, RNG.normal(0, 1, len(x)))
    assert flat.p_value > 0.001 and abs(flat.tau) < 0.2
    assert signals.trend(np.array([0.0, 2.0]), np.array([1.0, 0.0])).slope == -0.5
    assert signals.trend(np.array([1.0]), np.array([1.0])).slope == 0.0


def test_stall_index_finds_the_knee():
    level = np.r_[np.linspace(10, 2, 30), np.full(70, 2.0)]
    assert 25 <= signals.stall_index(level) <= 30
    assert signals.stall_index(np.full(10, 1.0)) == 0


def test_find_spikes_reports_index_height_and_recovery():
    y = 2.0 + RNG.normal(0, 0.01, 500)
    y[100] += 3.0
    y[300:] += 3.0  # a level shift: it never comes back
    sp = signals.find_spikes(y, z_min=8)
    by_index = dict(zip(sp.indices.tolist(), sp.recovered.tolist(), strict=True))
    shift = [i for i in by_index if 300 <= i < 330]
    assert by_index[100] is True and len(shift) == 1 and by_index[shift[0]] is False
    assert sp.heights[list(sp.indices).index(100)] == pytest.approx(3.0, abs=0.1)
    assert len(signals.find_spikes(np.array([1.0, 2.0]))) == 0


def test_find_spikes_on_a_million_points_is_exact_about_where():
    y = 1.0 + RNG.normal(0, 0.05, 1_000_000)
    y[777_777] = 4.0
    sp = signals.find_spikes(y)
    assert list(sp.indices) == [777_777]


def test_dominant_period_finds_the_fundamental_not_a_harmonic():
    y = np.tile(np.linspace(1, 0, 40), 25) + RNG.normal(0, 0.1, 1000) + np.linspace(2, 0, 1000)
    p = signals.dominant_period(y, 4, 333)
    assert p.period == 40 and p.strength > 0.5 and p.prominence > 0.5 and p.cycles == 25
    noise = signals.dominant_period(RNG.normal(0, 1, 1000), 4, 333)
    assert noise.strength < 0.2


def test_change_points_split_on_the_mean():
    y = np.r_[np.zeros(300), np.full(300, 1.0), np.zeros(300)] + RNG.normal(0, 0.1, 900)
    assert list(signals.change_points(y)) == pytest.approx([300, 600], abs=3)
    assert len(signals.change_points(RNG.normal(0, 0.1, 900))) == 0
    assert len(signals.change_points(np.ones(4))) == 0


def test_expensive_statistics_run_on_a_bounded_reduction_of_long_series():
    n = 1_000_000
    x = np.arange(n, dtype=float)
    y = np.exp(-x / n) + RNG.normal(0, 0.01, n)
    assert signals.trend(x, y).n == 300
    assert len(signals.smooth(x, y)[1]) == 4000
    assert signals.dominant_period(y, 4, n // 3).period == 0  # no cycle in a smooth decay


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(allow_nan=True, allow_infinity=True, width=64), max_size=60))
def test_primitives_never_raise_on_arbitrary_values(values):
    y = np.asarray(values, dtype=float)
    x = np.arange(len(y), dtype=float)
    fx, fy = signals.finite_points(x, y)
    signals.trend(fx, fy)
    signals.find_spikes(fy)
    signals.dominant_period(fy)
    signals.change_points(fy)
    signals.smooth(fx, fy)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(min_value=-1e100, max_value=1e100), min_size=1, max_size=60))
def test_spreads_are_finite_and_non_negative(values):
    y = np.asarray(values, dtype=float)
    for fn in (signals.noise_level, signals.robust_spread, signals.scale, signals.robust_range):
        out = fn(y)
        assert np.isfinite(out) and out >= 0
    assert signals.scale(y) > 0


def test_shave_spikes_keeps_cycles_and_drops_narrow_spikes():
    y = np.tile(np.r_[np.zeros(10), np.ones(10)], 5)
    y2 = y.copy()
    y2[5] = 9.0
    out = signals.shave_spikes(y2)
    assert out[5] == 0.0 and np.array_equal(out[8:], signals.shave_spikes(y)[8:])
    assert out[12:18].min() == 1.0  # a ten-point plateau survives


def test_spearman_gives_scipys_number_ties_and_constants_included():
    from lossforensics.classifiers.signals import average_ranks, spearman
    from scipy import stats

    rng = np.random.default_rng(12)
    for i in range(300):
        n = int(rng.integers(2, 120))
        a, b = rng.standard_normal(n), rng.standard_normal(n)
        if i % 3 == 0:  # ties
            a, b = np.round(a, 1), np.round(b, 1)
        expected = stats.spearmanr(a, b).statistic if np.ptp(a) and np.ptp(b) else 0.0
        assert spearman(a, b) == expected
        assert np.array_equal(average_ranks(a), stats.rankdata(a))
    assert spearman(np.ones(5), np.arange(5.0)) == 0.0


def test_dominant_period_reads_a_fundamental_of_a_fractional_number_of_points():
    # a cycle of 22.5 points (a 45-step epoch logged every 2 steps): no lag of its own, the
    # ACF peaks at 45 and splits 22.5's peak between 22 and 23
    t = np.arange(1200)
    y = np.exp(-((t * 2) % 45) / 6.0) + RNG.normal(0, 0.05, len(t))
    p = signals.dominant_period(y, 4, 400)
    assert p.period == pytest.approx(22.5, abs=0.25) and p.strength > 0.5
    # near miss: a whole-number cycle keeps its own lag
    whole = np.exp(-(t % 23) / 6.0) + RNG.normal(0, 0.05, len(t))
    assert signals.dominant_period(whole, 4, 400).period == 23
