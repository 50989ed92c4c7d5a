"""The chart's view of a series: `points=N` keeps at most N points a metric, every spike and
every NaN/inf, inside an optional step window; without `points` the full series comes back."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from lossforensics.api.series_view import Pyramid, downsample, metric_arrays, view_indices
from lossforensics.classifiers.frame import validate_frame

from tests.app.api.calls import upload


def _frame(values: np.ndarray, steps: np.ndarray | None = None) -> pd.DataFrame:
    n = len(values)
    return validate_frame(
        pd.DataFrame(
            {
                "run": "r",
                "metric": "loss",
                "role": "train_loss",
                "step": np.arange(n) if steps is None else steps,
                "value": values,
                "wall_time": np.nan,
                "seq": np.arange(n),
            }
        )
    )


@pytest.fixture(scope="module")
def spiky() -> tuple[np.ndarray, dict[str, int]]:
    n = 200_003
    rng = np.random.default_rng(0)
    v = np.exp(-np.arange(n) / 5e4) + rng.normal(0, 0.01, n)
    marks = {"spike": 100_003, "dip": 12_345, "nan": 150_001, "inf": 170_007, "last": n - 1}
    v[marks["spike"]] = 50.0
    v[marks["dip"]] = -3.0
    v[marks["nan"]] = np.nan
    v[marks["inf"]] = np.inf
    v[marks["last"]] = 40.0
    return v, marks


@pytest.mark.parametrize("points", [3, 10, 100, 1000, 4000])
def test_at_most_n_points_and_every_extreme_survives(spiky, points):
    values, marks = spiky
    (m,) = metric_arrays(_frame(values)).values()
    keep, total = view_indices(m, Pyramid.build(m), None, None, points)
    assert total == len(values) and len(keep) <= points
    assert np.all(np.diff(keep) > 0)
    assert marks["spike"] in keep
    if points >= 100:  # enough buckets for the NaN and the inf to be in different ones
        assert {marks["nan"], marks["inf"], marks["dip"]} <= set(keep.tolist())


def test_pyramid_and_direct_downsampling_agree_on_the_extremes(spiky):
    values, _ = spiky
    (m,) = metric_arrays(_frame(values)).values()
    a, _ = view_indices(m, Pyramid.build(m), None, None, 600)
    b = downsample(values, 600)
    for keep in (a, b):
        finite = values[keep][np.isfinite(values[keep])]
        assert finite.max() == 50.0 and finite.min() == -3.0


def test_window_keeps_only_its_steps(spiky):
    values, marks = spiky
    (m,) = metric_arrays(_frame(values)).values()
    keep, total = view_indices(m, Pyramid.build(m), 90_000, 110_000, 300)
    assert total == 20_001 and len(keep) <= 300
    assert m.step[keep].min() >= 90_000 and m.step[keep].max() <= 110_000
    assert marks["spike"] in keep


def test_unsorted_steps_use_the_window_mask():
    steps = np.concatenate([np.arange(1000), np.arange(500, 1500)])  # a restart from step 500
    values = np.linspace(2, 1, 2000)
    values[1700] = 9.0
    (m,) = metric_arrays(_frame(values, steps)).values()
    p = Pyramid.build(m)
    assert not p.sorted_steps
    keep, total = view_indices(m, p, 600, 1400, 30)
    assert total == 400 + 801 and len(keep) <= 30 and 1700 in keep


def test_short_series_come_back_whole():
    (m,) = metric_arrays(_frame(np.array([1.0, np.nan, 0.5]))).values()
    keep, total = view_indices(m, Pyramid.build(m), None, None, 1000)
    assert keep.tolist() == [0, 1, 2] and total == 3


def test_points_parameter_over_http(client, tmp_path):
    path = tmp_path / "long_view.jsonl"
    rows = [f'{{"step": {i}, "loss": {1 / (1 + i / 100):.6f}}}' for i in range(5000)]
    rows[2500] = '{"step": 2500, "loss": 77.0}'
    rows[3000] = '{"step": 3000, "loss": NaN}'
    path.write_text("\n".join(rows) + "\n")
    run_id = upload(client, path).json()["runs"][0]["id"]
    url = f"/v1/runs/{run_id}/series"
    full = client.get(url, params={"metric": "loss"}).json()["series"][0]
    assert full["points"] == 5000 and "total_points" not in full or full["total_points"] is None
    view = client.get(url, params={"metric": "loss", "points": 200}).json()
    (s,) = view["series"]
    assert s["points"] <= 200 and s["total_points"] == 5000
    assert 77.0 in s["value"] and "nan" in s["value"]
    zoom = client.get(url, params={"metric": "loss", "points": 50, "start": 2000, "end": 2999})
    (z,) = zoom.json()["series"]
    assert z["total_points"] == 1000 and z["points"] <= 50
    assert min(z["step"]) >= 2000 and max(z["step"]) <= 2999 and 77.0 in z["value"]
    assert client.get(url, params={"points": 1}).status_code == 422
    parquet = client.get(url, params={"format": "parquet"})
    assert parquet.status_code == 200 and parquet.content[:4] == b"PAR1"
