"""Shared signal primitives: what every label file measures a curve with.

    from lossforensics.classifiers import signals
    x, y = signals.finite_points(curve.steps, curve.values)
    steps, level = signals.smooth(x, y)        # reduce.py, smoothing.py
    signals.trend(x, y), signals.scale(y)     # trends.py, spread.py
    signals.find_spikes(y), signals.dominant_period(y)   # events.py

All functions take plain numpy arrays (steps `x`, values `y`), never a frame, and are
vectorised: no Python loop runs per point. Long series are first reduced to equal-count
buckets (`bucket`): medians for levels and trends, block maxima for spikes, so the expensive
statistics (Theil-Sen, rolling medians, autocorrelation) cost the same on 1,000,000 points as on
a few thousand while a one-point spike still survives the reduction.

Losses can be negative or near zero (ELBOs, contrastive losses, a converged regression), so
relative changes are scaled by a robust spread of the curve (`scale`), never by the value
itself; log-domain helpers apply only where every value is positive.

Nothing here remembers a result: a measurement several labels share (a role's smoothed curve,
a reduced curve) is kept by the run it describes (RunSeries.smoothed, RunSeries.measured).
"""

from __future__ import annotations

from lossforensics.classifiers.signals.events import (
    Periodicity,
    Spikes,
    autocorrelation,
    dominant_period,
    find_spikes,
    loss_cycle,
)
from lossforensics.classifiers.signals.reduce import (
    bucket,
    finite_points,
    group_medians,
    nan_row_medians,
)
from lossforensics.classifiers.signals.smoothing import (
    ewma,
    odd_window,
    rolling_mean,
    rolling_median,
    rolling_median_span,
    savgol,
    shave_spikes,
    smooth,
    smoothing_frac,
)
from lossforensics.classifiers.signals.spread import (
    MAD_TO_SIGMA,
    TINY,
    all_positive,
    head_level,
    log_ratio,
    noise_level,
    relative_change,
    robust_range,
    robust_spread,
    safe_log,
    scale,
    span_median,
    tail_level,
)
from lossforensics.classifiers.signals.trends import (
    Trend,
    average_ranks,
    best_so_far,
    change_points,
    spearman,
    stall_index,
    trend,
)

__all__ = [
    "MAD_TO_SIGMA",
    "Periodicity",
    "Spikes",
    "TINY",
    "Trend",
    "all_positive",
    "autocorrelation",
    "average_ranks",
    "best_so_far",
    "bucket",
    "change_points",
    "dominant_period",
    "ewma",
    "find_spikes",
    "finite_points",
    "group_medians",
    "head_level",
    "span_median",
    "log_ratio",
    "loss_cycle",
    "nan_row_medians",
    "noise_level",
    "odd_window",
    "relative_change",
    "robust_range",
    "robust_spread",
    "rolling_mean",
    "rolling_median",
    "rolling_median_span",
    "safe_log",
    "savgol",
    "scale",
    "shave_spikes",
    "smooth",
    "smoothing_frac",
    "spearman",
    "stall_index",
    "tail_level",
    "trend",
]
