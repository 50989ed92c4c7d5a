"""Counters printed rounded to a magnitude (`step:26K`): read as the number they round to, and
the records that share one printed value spread over the values it stands for, without
hiding a real restart."""

from __future__ import annotations

import numpy as np
import pytest
from lossforensics.ingest.console._columns import Group, counter
from lossforensics.ingest.console._rounded import spread_rounded


@pytest.mark.parametrize(("text", "value"), [("26K", 26_000), ("3M", 3_000_000), ("800", 800)])
def test_a_rounded_counter_reads_as_the_number_it_rounds_to(text, value):
    assert counter(text) == value


def test_lines_of_one_shape_read_a_rounded_counter_too():
    group = Group(["step:1K loss:2", "step:2K loss:1"])
    assert group.ints(5, 7).tolist() == [1000, 2000]


def _spread(steps, runs=None):
    steps = np.asarray(steps, dtype=np.int64)
    runs = np.zeros(len(steps), np.int64) if runs is None else np.asarray(runs)
    return spread_rounded(steps, runs).tolist()


def test_a_shared_value_is_spread_evenly_over_its_bucket():
    assert _spread([2000] * 5) == [1600, 1800, 2000, 2200, 2400]


def test_a_bucket_starts_past_the_exact_step_logged_before_it():
    out = _spread([800, 1000, 1000, 1000])
    assert out[0] == 800 and 800 < out[1] < out[2] < out[3] < 1500


def test_a_restart_to_an_earlier_step_stays_a_step_back():
    out = _spread([3000, 3000, 0, 200, 1000, 1000])
    assert out[2] == 0 and out[1] > out[2]
    assert out[3:] == sorted(out[3:])


def test_exact_steps_and_missing_ones_are_kept():
    assert _spread([100, 200, -1, 300]) == [100, 200, -1, 300]
    assert _spread([1000, 2000, 3000]) == [1000, 2000, 3000]  # one a value: nothing to spread


def test_each_run_is_spread_on_its_own():
    out = _spread([1000, 1000, 1000, 1000], runs=[0, 0, 1, 1])
    assert out[:2] == out[2:] == [750, 1250]
