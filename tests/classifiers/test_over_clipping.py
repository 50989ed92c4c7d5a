import numpy as np
import pytest
from lossforensics.classifiers.over_clipping import OverClipping, threshold_metric
from lossforensics.classifiers.run import RunSeries

from tests.classifiers._labelled import _load, assert_matches_real_labels, judge, run_of

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


def _trainer_log(grad: np.ndarray, loss: np.ndarray) -> dict:
    """An HF Trainer log: its own training keys, the pre-clip grad_norm, no threshold."""
    steps = np.arange(len(grad)) * 10
    return {
        "loss": (steps, loss),
        "grad_norm": (steps, grad),
        "learning_rate": (steps, np.full(len(grad), 2e-5)),
        "epoch": (steps, steps / 1000),
    }


def test_trainer_log_far_above_the_default_threshold_is_over_clipping():
    grad = np.exp(RNG.normal(np.log(40.0), 0.5, 200))
    f = judge(OverClipping(), run_of(**_trainer_log(grad, np.linspace(2.0, 1.0, 200))))
    assert f is not None and f.evidence["threshold_source"] == "trainer_default"
    assert f.evidence["clip_threshold"] == 1.0
    assert f.evidence["threshold_note"] == "threshold assumed: the Trainer default"


def test_trainer_log_in_the_healthy_norm_range_is_not_judged():
    # 1-5 is where healthy fine-tunes sit: the default may not be what the run used
    grad = np.exp(RNG.normal(np.log(2.0), 0.3, 200))
    assert judge(OverClipping(), run_of(**_trainer_log(grad, np.linspace(2.0, 1.0, 200)))) is None


def test_a_short_trainer_log_is_judged_only_when_its_norm_is_far_beyond_the_threshold():
    # 8 logs of a RoBERTa fine-tune at grad norms of 2e5-8e5: clipped on every step under any
    # threshold; 8 logs at 6x the assumed default are too few to say so
    loss = np.linspace(0.7, 0.3, 8)
    far = judge(OverClipping(), run_of(**_trainer_log(np.geomspace(1.9e5, 8.2e5, 8), loss)))
    assert far is not None and far.evidence["median_ratio"] > 100
    near = run_of(**_trainer_log(np.geomspace(5.5, 7.5, 8), loss))
    assert OverClipping().skip_reason(near) is not None
    assert judge(OverClipping(), run_of(**_trainer_log(np.full(4, 5e5), loss[:4]))) is None


def test_trainer_log_whose_loss_never_moved_is_not_clipping():
    # an optimizer without the params: the unzeroed gradient grows, no step is taken
    grad = np.linspace(1.0, 300.0, 200)
    flat = 3.4 + RNG.normal(0, 0.001, 200)
    assert judge(OverClipping(), run_of(**_trainer_log(grad, flat))) is None


def run_of_path(path) -> RunSeries:
    return RunSeries(_load(str(path)))


@pytest.mark.slow
def test_real_runs_more_hf_trainer_default(real_runs_more):
    for name in ("hf_trocr_fraction_over_clipping", "hf_weighted_sentiment_loss_up_acc_up_clipped"):
        run = run_of_path(real_runs_more / name)
        f = judge(OverClipping(), run)
        assert f is not None and f.evidence["threshold_source"] == "trainer_default", name
    # a grad norm in the healthy range (CPT fine-tune, ~2.5) is not called on the assumption
    assert (
        judge(
            OverClipping(), run_of_path(real_runs_more / "hf_cpt_summarization_eval_flat_rouge_up")
        )
        is None
    )
