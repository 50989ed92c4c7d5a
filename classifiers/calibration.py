"""Calibrated confidence: a finding's confidence is the share of findings like it that were right.

Each classifier maps its measurements to a raw confidence (its own scale: how far past the
threshold the evidence is). `calibrate(finding)` maps that raw value through a monotone table per
label, fitted by benchmarks/calibrate.py on the project's labelled corpus (isotonic regression of
"the label is true" on the raw confidence, pooled with all labels' curve where a label has few
findings), so that among findings reported at 0.8 about 8 in 10 are right. The measurements
(`evidence`, `span`, `summary`) are untouched: they stay what a user reads; only the
confidence is rescaled, and the order of two findings of one label never changes.

The table lives in classifiers/_calibration_table.py (generated; `make calibrate` refits it).
`raw_confidences()` turns the mapping off for the duration of a `with` block (the fitting
script reads the raw values through it).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import replace

import numpy as np
from lossforensics.classifiers._calibration_table import TABLE
from lossforensics.classifiers.diagnosis import Finding

_RAW: ContextVar[bool] = ContextVar("lossforensics_raw_confidences", default=False)


def calibrated_confidence(label: str, raw: float) -> float:
    """The table's value at `raw` for `label` (the pooled curve for a label it lacks)."""
    curve = TABLE["labels"].get(label, TABLE["pooled"])
    return float(np.interp(float(raw), curve["x"], curve["y"]))


def calibrate(finding: Finding) -> Finding:
    """The finding with its confidence mapped through the table (as is inside
    `raw_confidences()`)."""
    if _RAW.get():
        return finding
    return replace(finding, confidence=calibrated_confidence(finding.label, finding.confidence))


@contextmanager
def raw_confidences() -> Iterator[None]:
    """Within the block, diagnoses carry each classifier's raw confidence."""
    token = _RAW.set(True)
    try:
        yield
    finally:
        _RAW.reset(token)
