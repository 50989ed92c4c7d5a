"""The judging resolution: a curve over JUDGED_POINTS points is judged on block aggregates, so a
tick's classifiers read a bounded number of points whatever the run's length; the aggregates a
growing run keeps equal those built at once from the whole curve, so a tick still equals a full
diagnosis; a NaN and a spike survive the aggregation. Counted in points, never timed."""

from __future__ import annotations

from typing import ClassVar

import numpy as np
import pandas as pd
import pytest
from lossforensics.classifiers.base import Classifier
from lossforensics.classifiers.diagnose import diagnose
from lossforensics.classifiers.diagnosis import Finding
from lossforensics.classifiers.frame import make_frame
from lossforensics.classifiers.incremental import IncrementalDiagnosis
from lossforensics.classifiers.resolution import JUDGED_POINTS, Blocks, aggregate, block_size
from lossforensics.classifiers.resume_discontinuity import ResumeDiscontinuity
from lossforensics.classifiers.run import RunSeries

K = JUDGED_POINTS


def _loss(n: int, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    s = np.arange(n)
    return 0.4 + 2.0 * np.exp(-s / (n / 4)) + 0.05 * rng.standard_normal(n)


class _Counter(Classifier):
    """Records how many points each curve it is handed holds; finds nothing."""

    label = "points_counter"  # not registered: only passed in
    needs: ClassVar[frozenset[str]] = frozenset({"train_loss"})
    seen: ClassVar[list[int]] = []

    def detect(self, run: RunSeries) -> Finding | None:
        for role in ("train_loss", "lr"):
            curve = run.curve(role)
            assert curve is not None
            self.seen.extend((len(curve), len(run.writes(curve.metric))))
        return None


def test_block_size_is_the_smallest_power_of_two_under_the_cap() -> None:
    assert [block_size(n, 8) for n in (0, 8, 9, 16, 17, 64, 65)] == [1, 1, 2, 2, 4, 8, 16]
    assert block_size(K) == 1 and block_size(K + 1) == 2 and block_size(4 * K) == 4


def test_kept_blocks_after_many_appends_equal_those_built_at_once() -> None:
    rng = np.random.default_rng(3)
    cap = 64  # small, so the block size doubles many times (pairs merged each time)
    n = 5000
    y = rng.normal(size=n)
    y[rng.integers(0, n, 6)] = np.nan
    y[rng.integers(0, n, 3)] = np.inf
    y[rng.integers(0, n, 3)] = 40.0
    steps, wall = np.arange(n) * 3, np.arange(n) * 0.5
    blocks, end = Blocks(cap), 0
    while end < n:
        end = min(n, end + int(rng.integers(1, 150)))
        blocks.update(steps[:end], y[:end], wall[:end])
        judged = blocks.judged(steps[:end], y[:end], wall[:end])
        b = block_size(end, cap)
        if b == 1:
            assert judged is None
            continue
        assert judged is not None and len(judged[0]) <= cap
        at_once = aggregate(steps[:end], y[:end], wall[:end], b)
        for kept, built in zip(judged, at_once, strict=True):
            np.testing.assert_array_equal(kept, built)  # exact, NaN where NaN
    assert blocks.touched <= 4 * n  # each point read about once, merges and tails aside


def test_a_growing_runs_curves_equal_runseries_of_the_same_rows() -> None:
    n = 4 * K + 123
    loss = _loss(n)
    loss[n // 3] = np.nan
    live = IncrementalDiagnosis("r", classifiers=[])
    for start in range(0, n, 9_000):
        part = np.arange(start, min(n, start + 9_000))
        live.add("loss", part, loss[part])
        live.tick()
    seeded, plain = live.series(), RunSeries(live.frame())
    a, b = seeded.curve("train_loss"), plain.curve("train_loss")
    assert a is not None and b is not None and a.block == b.block == 8
    got, want = (a.steps, a.values, a.wall_time, a.peaks), (b.steps, b.values, b.wall_time, b.peaks)
    for kept, built in zip(got, want, strict=True):
        np.testing.assert_array_equal(kept, built)


def test_classifiers_are_handed_at_most_the_cap_on_a_run_four_times_longer() -> None:
    n = 4 * K
    live = IncrementalDiagnosis("r", classifiers=[_Counter()])
    _Counter.seen.clear()
    for start in range(0, n, 20_000):
        part = np.arange(start, min(n, start + 20_000))
        live.add("loss", part, _loss(n)[part])
        live.add("lr", part, np.full(len(part), 1e-3))
        live.tick()
    assert live.points == 2 * n
    assert _Counter.seen and max(_Counter.seen) <= K
    assert _Counter.seen[-4:] == [K, K, K, K]  # 4K points in blocks of 4


def test_ticks_equal_a_full_diagnosis_on_a_long_run_with_a_spike_and_a_nan() -> None:
    n = 3 * K
    loss = _loss(n, seed=1)
    loss[int(0.5 * n)] = 40.0
    loss[int(0.8 * n) + 3] = np.nan
    live = IncrementalDiagnosis("long")
    cuts = [1_000, 30_000, K + 1, 2 * K - 7, int(0.8 * n) + 3, int(0.8 * n) + 4, n]
    start = 0
    for cut in cuts:
        part = np.arange(start, cut)
        live.add("loss", part, loss[part])
        start = cut
        tick = live.tick()
        full = diagnose(make_frame("long", ["loss"] * cut, np.arange(cut), loss[:cut]))
        assert tick.diagnosis.to_dict() == full.to_dict(), f"differs after {cut} points"
    found = {f.label: f for f in tick.diagnosis.findings}
    assert found["nan"].span.start_step == int(0.8 * n) + 3  # at the NaN's own step
    assert found["loss_spikes"].span.start_step == int(0.5 * n)  # at the spike's own step


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_a_non_finite_point_and_a_spike_survive_aggregation(bad: float) -> None:
    n = 10 * K
    steps, y = np.arange(n), _loss(n)
    y[1234], y[5678] = bad, 40.0
    b = block_size(n)
    s, mean, _, peak = aggregate(steps, y, steps * 1.0, b)
    assert len(s) <= K and b == 16
    assert (~np.isfinite(mean)).sum() == 1 and s[~np.isfinite(mean)][0] == 1234
    spike = int(np.flatnonzero(s == 5678)[0])  # the block sits at its highest point
    assert peak[spike] == 40.0 and mean[spike] > 1.5 * np.nanmedian(mean)


def test_rows_and_writes_handed_over_equal_runseries_after_a_resume_over_a_nan() -> None:
    # a session went NaN, was resumed from an earlier step and overwrote the NaN: only the
    # writes (source order) still hold it, at the judging resolution too
    first, again = np.arange(0, 2 * K), np.arange(K, 3 * K)
    loss_first, loss_again = _loss(2 * K, seed=2), _loss(2 * K, seed=3)[: len(again)]
    loss_first[K + 500] = np.nan
    live = IncrementalDiagnosis("resumed")
    live.add("loss", first, loss_first)
    live.tick()
    live.add("loss", again, loss_again)
    tick = live.tick()
    seeded, plain = live.series(), RunSeries(live.frame())
    np.testing.assert_array_equal(seeded.rows("loss"), plain.rows("loss"))
    a, b = seeded.writes("loss"), plain.writes("loss")
    assert a.block == b.block == 4 and len(a) <= K
    np.testing.assert_array_equal(a.steps, b.steps)
    np.testing.assert_array_equal(a.values, b.values)
    assert np.isnan(a.values).sum() == 1 and a.steps[np.isnan(a.values)][0] == K + 500
    full = diagnose(live.frame())
    assert tick.diagnosis.to_dict() == full.to_dict()
    assert "nan" in tick.diagnosis.labels


def _resumed(kind: str) -> tuple[pd.DataFrame, int, int]:
    """A run of 3.5K to 4K points resumed at one restart, the loss 0.8 above where it was right
    after it: the counter going back (`back`), or a new segment with the counter going on
    (`segment`). With the restart's step and the step logged before it."""
    if kind == "back":
        steps = np.r_[np.arange(0, 70_000), np.arange(50_000, 110_000)]
        restart, segment = 70_000, np.zeros(len(steps), np.int64)
    else:
        steps = np.arange(0, 115_000)
        restart, segment = 80_000, (np.arange(len(steps)) >= 80_000).astype(np.int64)
    loss = _loss(len(steps), seed=4)
    after = np.arange(len(steps)) >= restart
    loss[after] += 0.8 * np.exp(-np.arange(after.sum()) / 3000)
    frame = make_frame("resumed", ["loss"] * len(steps), steps, loss, segment=segment)
    return frame, int(steps[restart]), int(steps[restart - 1])


@pytest.mark.parametrize("kind", ["back", "segment"])
def test_a_resume_in_a_long_run_is_found_at_its_restart_in_a_tick_and_in_full(kind: str) -> None:
    frame, step, from_step = _resumed(kind)
    live = IncrementalDiagnosis("resumed")
    start = 0
    for cut in (40_000, 70_003, 90_001, len(frame)):  # a tick just after the restart too
        live.add_frame(frame.iloc[start:cut])
        start = cut
        tick = live.tick()
        full = diagnose(frame.iloc[:cut])
        assert tick.diagnosis.to_dict() == full.to_dict(), f"differs after {cut} points"
    found = {f.label: f for f in tick.diagnosis.findings}["resume_discontinuity"]
    assert found.span.start_step == step  # the logged step, not its block's
    assert found.evidence["resumed_from_step"] == from_step


def test_a_log_written_again_in_a_long_run_is_not_a_resume_in_a_tick_or_in_full() -> None:
    # 30,000 steps logged again with their values (blocks of 4 no longer aligned with the
    # first pass's), then the run goes on: the same log written twice, not a resume
    loss = _loss(90_000, seed=5)
    again = np.arange(40_001, 70_000)
    steps = np.r_[np.arange(70_000), again, np.arange(70_000, 90_000)]
    values = np.r_[loss[:70_000], loss[again], loss[70_000:]]
    frame = make_frame("again", ["loss"] * len(steps), steps, values)
    live = IncrementalDiagnosis("again")
    live.add_frame(frame.iloc[:80_000])
    live.tick()
    live.add_frame(frame.iloc[80_000:])
    tick, full = live.tick(), diagnose(frame)
    assert tick.diagnosis.to_dict() == full.to_dict()
    assert "resume_discontinuity" not in full.labels
    measured = ResumeDiscontinuity().measure(RunSeries(frame))
    assert measured is not None and measured["restarts"] == 1 and measured["loss_jump"] == 0
    assert (measured["resume_step"], measured["resumed_from_step"]) == (40_001, 69_999)


class _Counted(np.ndarray):
    """An array that counts the elements read out of it (handed out as plain arrays)."""

    read = 0

    def __getitem__(self, key: object) -> object:
        out = super().__getitem__(key)
        _Counted.read += int(np.size(out))
        return out.view(np.ndarray) if isinstance(out, np.ndarray) else out


class _NoFrame:
    def __getattr__(self, name: str) -> object:
        raise AssertionError(f"the frame was read ({name})")

    def __getitem__(self, key: object) -> object:
        raise AssertionError(f"the frame was read ({key})")


def test_resume_reads_the_kept_writes_and_two_blocks_of_rows_not_the_run() -> None:
    frame, step, _ = _resumed("back")
    live = IncrementalDiagnosis("resumed", classifiers=[])
    live.add_frame(frame.iloc[:100_000])
    live.tick()
    live.add_frame(frame.iloc[100_000:])
    live.tick()
    run = live.series()
    assert ("writes", "loss") in run._measured  # kept by the growing run, not re-cut here
    steps, values, wall = run._columns
    run.__dict__["_columns"] = (steps.view(_Counted), values.view(_Counted), wall)
    run.__dict__["_segment_column"] = run._segment_column.view(_Counted)
    run.frame = _NoFrame()  # type: ignore[assignment]
    _Counted.read = 0
    measured = ResumeDiscontinuity().measure(run)
    assert measured is not None and measured["resume_step"] == step
    b = run.writes("loss").block
    assert b == 4 and len(run.writes("loss")) <= K
    # a segment a judged point, and steps, values and segments of a few blocks' logged rows at
    # the restart: a quarter of the run's rows, however long it grows
    assert _Counted.read <= len(run.writes("loss")) + 3 * 8 * b


def test_writes_kept_over_two_resumes_equal_runseries_at_every_tick() -> None:
    # the first resume hands the curve's buffers and blocks to the writes; the second finds the
    # writes apart from the re-cut curve, and both go on from the new rows
    steps = np.r_[np.arange(50_000), np.arange(30_000, 60_000), np.arange(45_000, 80_000)]
    loss = _loss(len(steps), seed=6)
    live = IncrementalDiagnosis("twice", classifiers=[])
    for start in range(0, len(steps), 17_000):
        part = slice(start, start + 17_000)
        live.add("loss", steps[part], loss[part])
        live.tick()
        seeded, plain = live.series(), RunSeries(live.frame())
        a, b = seeded.writes("loss"), plain.writes("loss")
        assert a.block == b.block
        got, want = (a.steps, a.values, a.peaks), (b.steps, b.values, b.peaks)
        for kept, built in zip(got, want, strict=True):
            np.testing.assert_array_equal(kept, built)
