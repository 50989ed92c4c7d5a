"""classifiers.calibration: the committed table is monotone per label and maps into [0, 1];
calibrate() rescales only the confidence; raw_confidences() turns it off."""

from __future__ import annotations

import numpy as np
import pytest
from lossforensics.classifiers._calibration_table import TABLE
from lossforensics.classifiers.calibration import calibrate, calibrated_confidence, raw_confidences
from lossforensics.classifiers.diagnosis import Finding, Span
from lossforensics.classifiers.labels import SEVERITY


@pytest.mark.parametrize("label", ["pooled", *SEVERITY])
def test_each_curve_is_monotone_and_within_0_1(label):
    curve = TABLE["pooled"] if label == "pooled" else TABLE["labels"].get(label, TABLE["pooled"])
    x, y = np.asarray(curve["x"]), np.asarray(curve["y"])
    assert np.all(np.diff(x) >= 0) and np.all(np.diff(y) >= -1e-9)
    assert y.min() >= 0.0 and y.max() <= 1.0


def test_calibrate_changes_only_the_confidence_and_raw_mode_keeps_it():
    f = Finding("overfit", 0.7, Span(10, 50), {"val_rise_pct": 40.0}, "val rose", ())
    g = calibrate(f)
    assert g.confidence == pytest.approx(calibrated_confidence("overfit", 0.7))
    assert (g.label, g.span, g.evidence, g.summary) == (f.label, f.span, f.evidence, f.summary)
    with raw_confidences():
        assert calibrate(f) is f
    assert calibrated_confidence("no_such_label", 0.5) == pytest.approx(
        float(np.interp(0.5, TABLE["pooled"]["x"], TABLE["pooled"]["y"]))
    )
