"""plot_run: a PNG of the requested size, log scale where it helps, bounded work on long runs,
importable without FastAPI."""

from __future__ import annotations

import io
import subprocess
import sys

import numpy as np
import pytest
from lossforensics.classifiers.diagnosis import Diagnosis, Finding, Span
from lossforensics.classifiers.frame import make_frame
from lossforensics.report.plot import envelope, plot_run, wants_log
from matplotlib.image import imread


def _frame(n: int = 500):
    steps = np.arange(n)
    loss = 10.0 * np.exp(-steps / 50) + 1e-3
    loss[300] = np.nan
    loss[301] = np.inf
    return make_frame(
        "r",
        ["train/loss"] * n + ["lr"] * n + ["grad_norm"] * n,
        np.r_[steps, steps, steps],
        np.r_[loss, np.full(n, 1e-3), np.ones(n)],
    )


def _diag() -> Diagnosis:
    return Diagnosis(
        run="r",
        verdict="nan",
        findings=[
            Finding("nan", 0.9, Span(300, 301), {}, "NaN at 300"),
            Finding("loss_spikes", 0.5, Span(100, 150), {}, "spikes"),
        ],
    )


def test_png_has_the_requested_size():
    png = plot_run(_frame(), _diag(), size=(640, 480))
    assert png.startswith(b"\x89PNG")
    assert imread(io.BytesIO(png)).shape[:2] == (480, 640)


def test_thumbnail_and_empty_frame_still_draw():
    assert imread(io.BytesIO(plot_run(_frame(), None, size=(160, 120)))).shape[:2] == (120, 160)
    empty = _frame().iloc[:0]
    assert plot_run(empty, None, size=(200, 150)).startswith(b"\x89PNG")


def test_shaded_span_changes_the_pixels():
    plain = imread(io.BytesIO(plot_run(_frame(), Diagnosis(run="r", verdict="healthy"))))
    shaded = imread(io.BytesIO(plot_run(_frame(), _diag())))
    assert plain.shape == shaded.shape and not np.array_equal(plain, shaded)


def test_log_scale_only_for_positive_values_spanning_decades():
    assert wants_log(np.array([10.0, 1.0, 0.01, np.nan]))
    assert not wants_log(np.array([2.0, 1.0, 0.5]))
    assert not wants_log(np.array([10.0, -1.0, 0.01]))
    assert not wants_log(np.array([np.nan]))


def test_envelope_keeps_extremes_and_bounds_points():
    step = np.arange(1_000_000)
    value = np.zeros(1_000_000)
    value[777_777] = 50.0
    value[123_456] = np.nan
    x, y = envelope(step, value, buckets=500)
    assert len(x) == len(y) == 1000
    assert np.nanmax(y) == 50.0 and np.all(np.diff(x) >= 0)
    small_x, small_y = envelope(step[:10], value[:10], buckets=500)
    assert len(small_x) == 10


@pytest.mark.slow
def test_importable_without_fastapi():
    code = (
        "import sys; import lossforensics.report.plot, lossforensics.report.html; "
        "print('fastapi' in sys.modules or 'starlette' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
