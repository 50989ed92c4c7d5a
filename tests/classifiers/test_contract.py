"""The contract every registered classifier keeps (scikit-learn's test_common, for labels).

Runs over the whole registry, so a new label file is held to it the moment it exists: silent on
healthy curves of several shapes, never mutates its input, deterministic, well-formed findings,
and it survives whatever a log can hold (NaN bursts, empty, one point, all NaN, constant, huge
values, unsorted and repeated steps).
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lossforensics.classifiers.base import Classifier
from lossforensics.classifiers.diagnose import diagnose
from lossforensics.classifiers.diagnosis import Finding
from lossforensics.classifiers.frame import make_frame
from lossforensics.classifiers.labels import LABELS
from lossforensics.classifiers.registry import all_classifiers
from lossforensics.classifiers.run import RunSeries

CLASSIFIERS = all_classifiers()
IDS = [c.label for c in CLASSIFIERS]


def _frame(steps, train, *, val_every=None, lr=None, seed=0) -> pd.DataFrame:
    """A full run: train loss, val loss + accuracy every `val_every`, LR, a calm grad norm."""
    rng = np.random.default_rng(seed)
    steps = np.asarray(steps)
    cols = {"loss": (steps, train)}
    every = val_every or max(1, len(steps) // 20)
    vs = steps[every - 1 :: every]
    vi = np.searchsorted(steps, vs)
    smooth = pd.Series(train).rolling(max(1, every), min_periods=1).mean().to_numpy()
    cols["val_loss"] = (vs, smooth[vi] * 1.05)
    cols["val_acc"] = (vs, 0.95 - 0.5 * (smooth[vi] - smooth.min()) / max(np.ptp(smooth), 1e-9))
    cols["lr"] = (steps, np.full(len(steps), 1e-3) if lr is None else lr)
    cols["grad_norm"] = (steps, 1.0 + 0.05 * rng.standard_normal(len(steps)))
    names, xs, ys = [], [], []
    for name, (x, y) in cols.items():
        names += [name] * len(x)
        xs.append(x)
        ys.append(y)
    return make_frame("run", names, np.concatenate(xs), np.concatenate(ys))


def _healthy_frames() -> dict[str, pd.DataFrame]:
    rng = np.random.default_rng(42)
    n = 3000
    s = np.arange(n)
    exp_decay = 0.5 + 2.0 * np.exp(-s / (n / 3)) + 0.03 * rng.standard_normal(n)
    power = 1.5 + 6.0 * (1 + s / 20.0) ** -0.6 + 0.02 * rng.standard_normal(n)
    lr = 1e-3 * 0.5 * (1 + np.cos(np.pi * s / n))
    progress = np.cumsum(lr) / np.sum(lr)
    cosine = 0.4 + 2.0 * np.exp(-3.0 * progress) + 0.02 * rng.standard_normal(n)
    ep = np.arange(10)
    per_epoch = 0.15 + 0.6 * np.exp(-ep / 4.0)
    negative = -1.0 - 2.0 * (1 - np.exp(-s / (n / 3))) + 0.02 * rng.standard_normal(n)
    return {
        "exp_decay": _frame(s, exp_decay),
        "power_law": _frame(s, power),
        "cosine_schedule": _frame(s, cosine, lr=lr),
        "per_epoch_10": _frame(ep, per_epoch, val_every=1),
        "negative_elbo": _frame(s, negative),
    }


HEALTHY = _healthy_frames()


def _check_well_formed(clf: Classifier, f: Finding, run: RunSeries) -> None:
    assert f.label == clf.label and f.label in LABELS
    assert 0.0 <= f.confidence <= 1.0 and np.isfinite(f.confidence)
    assert isinstance(f.summary, str) and f.summary
    json.dumps(f.to_dict(), allow_nan=False)  # evidence is JSON-safe (NaN -> null)
    if f.span is not None:
        steps = run.frame["step"]
        assert f.span.start_step <= f.span.end_step
        assert steps.min() <= f.span.start_step and f.span.end_step <= steps.max()


@pytest.mark.parametrize("shape", sorted(HEALTHY))
@pytest.mark.parametrize("clf", CLASSIFIERS, ids=IDS)
def test_silent_on_healthy_curves(clf, shape):
    run = RunSeries(HEALTHY[shape])
    if clf.skip_reason(run) is None:
        f = clf.detect(run)
        assert f is None, f"{clf.label} fired on healthy {shape}: {f and f.summary}"


@pytest.mark.parametrize("clf", CLASSIFIERS, ids=IDS)
def test_never_mutates_its_input_and_is_deterministic(clf):
    frame = _odd_frames()["nan_burst"]
    before = frame.copy(deep=True)
    run = RunSeries(frame)
    first = clf.detect(run) if clf.skip_reason(run) is None else None
    second = clf.detect(RunSeries(frame)) if clf.skip_reason(run) is None else None
    pd.testing.assert_frame_equal(frame, before)
    assert (first is None) == (second is None)
    if first is not None:
        assert first.to_dict() == second.to_dict()


def _odd_frames() -> dict[str, pd.DataFrame]:
    rng = np.random.default_rng(3)
    s = np.arange(400)
    base = 0.3 + np.exp(-s / 100) + 0.02 * rng.standard_normal(len(s))
    burst = base.copy()
    burst[150:170] = np.nan
    burst[[50, 300]] = [np.inf, -np.inf]
    shuffled = rng.permutation(len(s))
    dup = np.r_[s, s[200:]]  # a resumed run re-logs steps 200..399
    return {
        "nan_burst": _frame(s, burst),
        "empty": make_frame("run", [], [], []),
        "one_point": make_frame("run", ["loss"], [0], [1.0]),
        "all_nan": _frame(s, np.full(len(s), np.nan)),
        "constant": _frame(s, np.full(len(s), 2.0)),
        "huge": _frame(s, base * 1e30),
        "tiny": _frame(s, base * 1e-30),
        "unsorted": make_frame("run", ["loss"] * len(s), s[shuffled], base[shuffled]),
        "duplicates": make_frame("run", ["loss"] * len(dup), dup, np.r_[base, base[200:] + 0.5]),
        "two_points": make_frame("run", ["loss", "loss", "val_loss"], [0, 1, 1], [1, 2, 3]),
        "only_val": make_frame("run", ["val_loss"] * 20, np.arange(20), np.linspace(2, 1, 20)),
    }


ODD = _odd_frames()


@pytest.mark.parametrize("case", sorted(ODD))
@pytest.mark.parametrize("clf", CLASSIFIERS, ids=IDS)
def test_survives_odd_input_with_well_formed_findings(clf, case):
    frame = ODD[case]
    run = RunSeries(frame)
    reason = clf.skip_reason(run)
    if reason is not None:
        assert isinstance(reason, str) and reason
        return
    f = clf.detect(run)
    if f is not None:
        _check_well_formed(clf, f, run)
    else:
        _check_set_aside(clf, run)


def _check_set_aside(clf, run) -> None:
    """set_aside, called when detect found nothing: None, or one non-empty sentence."""
    why = clf.set_aside(run)
    assert why is None or (isinstance(why, str) and why.strip()), (clf.label, why)


def test_every_odd_input_diagnoses_to_json():
    for case, frame in ODD.items():
        d = diagnose(frame, strict=True)
        json.dumps(d.to_dict(), allow_nan=False)
        assert d.verdict in {"healthy", "inconclusive", *LABELS}, case


def test_a_nan_burst_is_reported_as_nan():
    assert "nan" in diagnose(ODD["nan_burst"]).labels


_values = st.floats(min_value=-1e6, max_value=1e6) | st.sampled_from(
    [np.nan, np.inf, -np.inf, 0.0, 1e30]
)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    values=st.lists(_values, min_size=0, max_size=80),
    steps=st.lists(st.integers(0, 50), min_size=0, max_size=80),
    with_val=st.booleans(),
)
def test_property_any_curve_gives_a_well_formed_diagnosis(values, steps, with_val):
    n = min(len(values), len(steps))
    names = ["loss"] * n
    st_, vals = list(steps[:n]), list(values[:n])
    if with_val and n:
        names += ["val_loss"] * n
        st_ += st_
        vals += vals[::-1]
    frame = make_frame("run", names, st_, vals)
    run = RunSeries(frame)
    for clf in CLASSIFIERS:
        if clf.skip_reason(run) is None:
            f = clf.detect(run)
            if f is not None:
                _check_well_formed(clf, f, run)
            else:
                _check_set_aside(clf, run)
    json.dumps(diagnose(frame).to_dict(), allow_nan=False)
