import numpy as np
import pytest
from lossforensics.classifiers.over_clipping import OverClipping, threshold_metric

from tests.classifiers._labelled import assert_matches_real_labels, judge, run_of

RNG = np.random.default_rng(9)
STEPS = np.arange(1000)


def test_pre_clip_norm_above_a_logged_threshold_on_most_steps():
    grad = np.exp(RNG.normal(np.log(2.0), 0.3, len(STEPS)))
    run = run_of(
        loss=(STEPS, np.ones(1000)),
        grad_norm=(STEPS, grad),
        max_grad_norm=(np.array([0]), np.array([1.0])),
    )
    f = judge(OverClipping(), run)
    assert f is not None and f.label == "over_clipping"
    assert f.evidence["threshold_source"] == "metric" and f.evidence["clip_threshold"] == 1.0
    assert f.evidence["clip_fraction"] > 0.95 and f.confidence > 0.9
    assert f.span.start_step == 0


def test_post_clip_norm_pinned_at_its_ceiling():
    raw = np.exp(RNG.normal(0.0, 0.5, len(STEPS)))
    run = run_of(loss=(STEPS, np.ones(1000)), grad_norm=(STEPS, np.minimum(raw, 0.8)))
    f = judge(OverClipping(), run)
    assert f is not None and f.evidence["threshold_source"] == "ceiling"
    assert f.evidence["clip_threshold"] == pytest.approx(0.8)


def test_occasional_clipping_is_healthy():
    grad = np.exp(RNG.normal(np.log(0.5), 0.3, len(STEPS)))
    run = run_of(
        loss=(STEPS, np.ones(1000)),
        grad_norm=(STEPS, grad),
        max_grad_norm=(np.array([0]), np.array([1.0])),
    )
    assert judge(OverClipping(), run) is None


def test_near_miss_pinned_ceiling_on_a_minority_of_steps():
    raw = np.exp(RNG.normal(np.log(0.5), 0.4, len(STEPS)))
    run = run_of(loss=(STEPS, np.ones(1000)), grad_norm=(STEPS, np.minimum(raw, 0.8)))
    assert judge(OverClipping(), run) is None


def test_skipped_when_neither_threshold_nor_ceiling_exists():
    grad = np.exp(RNG.normal(0.0, 0.3, len(STEPS)))
    run = run_of(loss=(STEPS, np.ones(1000)), grad_norm=(STEPS, grad))
    assert "cannot be judged" in OverClipping().skip_reason(run)


def test_a_varying_series_named_like_a_threshold_is_not_one():
    grad = np.exp(RNG.normal(0.0, 0.3, len(STEPS)))
    run = run_of(
        loss=(STEPS, np.ones(1000)),
        clip_grad_norm=(STEPS, grad),
        clip_fraction=(STEPS, np.full(1000, 0.5)),
    )
    assert threshold_metric(run) is None


def test_threshold_named_in_other_roles_is_found():
    run = run_of(
        loss=(STEPS, np.ones(1000)),
        grad_norm=(STEPS, np.ones(1000)),
        gradient_clip_val=(np.array([0]), np.array([0.5])),
    )
    assert threshold_metric(run) == "gradient_clip_val"


@pytest.mark.slow
def test_real_runs_agree_with_their_labels(real_runs):
    assert_matches_real_labels(real_runs, OverClipping())
