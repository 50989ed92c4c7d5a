"""A loss curve's point-to-point noise as plateau and loss_spikes read it: `signals.noise_level`
of its finite values (or, on a curve judged on blocks, its block maxima), in log scale when they
are all positive. Plateau weighs the training loss's improvement against it and loss_spikes
holds every jump to a multiple of it: on the same curve it is one measurement, taken once a run.
"""

from __future__ import annotations

import numpy as np
from lossforensics.classifiers.run import Curve, RunSeries
from lossforensics.classifiers.signals import all_positive, finite_points, noise_level


def curve_noise(run: RunSeries, curve: Curve, *, peaks: bool = False) -> float:
    """The noise of one of the run's judged curves (`run.curve`, `run.detailed`), read from its
    block maxima with `peaks`; kept with the run (RunSeries.measured)."""

    def compute() -> float:
        read = curve.peaks if peaks and curve.peaks is not None else curve.values
        _, y = finite_points(curve.steps, read)
        return noise_level(np.log(y) if all_positive(y) else y)

    noise: float = run.measured(("curve_noise", curve.metric, curve.block, peaks), compute)
    return noise
