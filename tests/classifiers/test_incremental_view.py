"""The view a tick judges: what IncrementalDiagnosis keeps up to date (GrowingRun) equals what
RunSeries derives from the same rows, and keeping it costs work that follows the new points,
not the run (counted in rows, not timed). The classifiers' judging, at most JUDGED_POINTS points
a curve, is counted in test_judging_resolution.py; benchmarks/watch.py times the whole tick."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from lossforensics.classifiers.diagnose import metric_infos
from lossforensics.classifiers.frame import make_frame
from lossforensics.classifiers.incremental import IncrementalDiagnosis
from lossforensics.classifiers.run import RunSeries

ROLES = ("train_loss", "val_loss", "lr", "grad_norm", "other")


def _steps(n: int) -> tuple[np.ndarray, np.ndarray]:
    steps = np.arange(n)
    loss = 2.0 * np.exp(-steps / max(n, 1)) + 0.01 * np.sin(steps)
    return steps, loss


def _grown(points: int) -> IncrementalDiagnosis:
    """A run of `points` (loss and lr each step) taken in and judged once (view only)."""
    live = IncrementalDiagnosis("r", classifiers=[])
    steps, loss = _steps(points // 2)
    live.add("loss", steps, loss)
    live.add("lr", steps, np.full(len(steps), 1e-3))
    live.tick()
    return live


def _tick_cost(live: IncrementalDiagnosis, new_steps: int) -> int:
    last = live.frame()["step"].max()
    steps = np.arange(last + 1, last + 1 + new_steps)
    live.add("loss", steps, np.full(new_steps, 0.5))
    live.add("lr", steps, np.full(new_steps, 1e-4))
    before = live.touched
    live.tick()
    return live.touched - before


def test_a_ticks_view_work_follows_the_new_points_not_the_run() -> None:
    small, large = _grown(20_000), _grown(400_000)
    costs = [_tick_cost(small, 500), _tick_cost(large, 500)]
    assert costs[0] == costs[1]  # 20x the run, the same work
    assert costs[0] <= 10 * 1000  # a few passes over the 1000 new points


def test_buffers_growing_cost_a_bounded_number_of_moves_a_point() -> None:
    live = _grown(2_000)
    for _ in range(40):
        _tick_cost(live, 250)
    # numeric buffers double (O(1) moves a point); string chunks merge as a binary counter
    # (O(log n) moves a point)
    assert live.regrown <= 3 * live.points * (1 + np.log2(live.points))
    assert live._run.rows.copied <= 2 * live.points


def test_a_repeated_step_recuts_that_curve_once_then_appends_again() -> None:
    live = _grown(10_000)
    resumed = np.arange(4_000, 4_100)  # a resume logs steps it logged before
    live.add("loss", resumed, np.full(len(resumed), 1.0))
    before = live.touched
    live.tick()
    assert live.touched - before >= live.points  # one cut from every row
    assert _tick_cost(live, 100) < 1_000  # then back to the new points only


def _views_equal(seeded: RunSeries, plain: RunSeries) -> None:
    assert "_by_role" in vars(seeded)  # the kept view was handed over, not re-derived
    for role in ROLES:
        assert seeded.metrics(role) == plain.metrics(role)
        for name in plain.metrics(role):
            a, b = seeded.curve(role, name), plain.curve(role, name)
            assert a is not None and b is not None
            np.testing.assert_array_equal(a.steps, b.steps)
            np.testing.assert_array_equal(a.values, b.values)
            np.testing.assert_array_equal(a.wall_time, b.wall_time)
            # in source order too (kept apart from the curve once a step came again)
            wa, wb = seeded.writes(name, role), plain.writes(name, role)
            np.testing.assert_array_equal(wa.steps, wb.steps)
            np.testing.assert_array_equal(wa.values, wb.values)
            np.testing.assert_array_equal(
                seeded.write_segments(name, role), plain.write_segments(name, role)
            )
    assert seeded.measured("metric_infos", lambda: None) == metric_infos(plain)


@pytest.mark.parametrize("seed", range(6))
def test_the_kept_view_equals_runseries_of_the_same_rows(seed: int) -> None:
    """Random chunks: repeated and out-of-order steps, NaNs, metrics that appear late, a metric
    logged under two roles, chunks numbered from 0 and chunks out of seq order."""
    rng = np.random.default_rng(seed)
    live = IncrementalDiagnosis("r")
    seq = 0
    for _ in range(8):
        metric: list[str] = []
        steps: list[int] = []
        for name in rng.choice(["loss", "val_loss", "lr", "grad_norm", "acc"], 3).tolist():
            k = int(rng.integers(1, 40))
            start = int(rng.integers(0, 300)) if rng.random() < 0.3 else seq
            metric += [name] * k
            steps += range(start, start + k)
        values = rng.random(len(steps))
        values[rng.random(len(steps)) < 0.05] = np.nan
        frame = make_frame("r", metric, steps, values)
        if rng.random() < 0.2:
            frame = frame.assign(seq=frame["seq"] + 10_000)  # numbered after the rest
        if seed == 5 and rng.random() < 0.3:
            frame = frame.assign(
                role=pd.Categorical(["other"] * len(frame), dtype=frame["role"].dtype)
            )
        live.add_frame(frame)
        seq += 50
        live.tick()
        _views_equal(live.series(), RunSeries(live.frame(), None))
