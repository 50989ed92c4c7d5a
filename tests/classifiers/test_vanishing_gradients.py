import numpy as np
import pytest
from lossforensics.classifiers.vanishing_gradients import VanishingGradients

from tests.classifiers._labelled import assert_matches_real_labels, judge, run_of

RNG = np.random.default_rng(5)
STEPS = np.arange(0, 5000, 10)


def _noisy(y, rel=0.1):
    return y * np.exp(rel * RNG.standard_normal(len(y)))


def test_grad_norm_collapsing_while_loss_stalls_fires_from_the_onset():
    grad = _noisy(np.where(STEPS < 1000, 1.0, 10 ** (-(STEPS - 1000) / 800)))
    loss = np.where(STEPS < 1000, 2.3 - 0.3 * STEPS / 1000, 2.0) + 0.01 * RNG.standard_normal(
        len(STEPS)
    )
    f = judge(VanishingGradients(), run_of(loss=(STEPS, loss), grad_norm=(STEPS, grad)))
    assert f is not None and f.label == "vanishing_gradients"
    assert 1500 <= f.span.start_step <= 2200 and f.span.end_step == STEPS[-1]
    assert f.evidence["grad_norm_decay"] > 100 and f.evidence["grad_norm_orders"] >= 2


def test_healthy_grad_norm_in_its_usual_band_is_quiet():
    grad = _noisy(np.full(len(STEPS), 1.5), 0.3)
    loss = 0.5 + 2 * np.exp(-STEPS / 1500)
    assert judge(VanishingGradients(), run_of(loss=(STEPS, loss), grad_norm=(STEPS, grad))) is None


def test_one_order_early_with_the_loss_stuck_near_its_start_fires():
    grad = _noisy(np.where(STEPS < 200, 3.0, 0.25))
    loss = np.where(STEPS < 100, 1.2, 1.0) + 0.01 * RNG.standard_normal(len(STEPS))
    f = judge(VanishingGradients(), run_of(loss=(STEPS, loss), grad_norm=(STEPS, grad)))
    assert f is not None and f.evidence["onset_fraction"] < 0.1 and f.confidence < 0.7


def test_near_miss_one_order_after_a_run_that_converged():
    grad = _noisy(np.where(STEPS < 3500, 1.0, 0.08))
    loss = 0.4 + 2.0 * np.exp(-STEPS / 600) + 0.01 * RNG.standard_normal(len(STEPS))
    assert judge(VanishingGradients(), run_of(loss=(STEPS, loss), grad_norm=(STEPS, grad))) is None


def test_near_miss_grad_norm_falls_2x_only():
    grad = _noisy(np.where(STEPS < 1000, 1.0, 0.5))
    loss = np.full(len(STEPS), 2.3) + 0.01 * RNG.standard_normal(len(STEPS))
    assert judge(VanishingGradients(), run_of(loss=(STEPS, loss), grad_norm=(STEPS, grad))) is None


def test_early_collapse_of_a_few_x_with_the_loss_creeping_near_its_start_fires():
    # a deep sigmoid stack: the head soaks up the first updates (norm 3 -> 0.4 in the first 5%),
    # then the loss creeps 1.3 -> 1.05 and the norm stays down
    grad = _noisy(np.where(STEPS < 250, 3.0, 0.4), 0.2)
    loss = 1.05 + 0.25 * np.exp(-STEPS / 1500) + 0.01 * RNG.standard_normal(len(STEPS))
    f = judge(VanishingGradients(), run_of(loss=(STEPS, loss), grad_norm=(STEPS, grad)))
    assert f is not None and f.confidence == pytest.approx(0.4)
    assert f.evidence["collapse_fraction"] < 0.1 and 200 <= f.span.start_step <= 400
    assert 5 < f.evidence["grad_norm_decay"] < 10  # the playbook reads the early collapse's fall


def test_near_miss_a_few_x_quietening_late_in_a_slow_run():
    # the norm drifts down 4x over the first half while a hard task's loss falls 40%: healthy
    grad = _noisy(10 ** (-0.6 * np.minimum(STEPS / 2500, 1.0)), 0.2)
    loss = 1.6 + 1.2 * np.exp(-STEPS / 1500) + 0.01 * RNG.standard_normal(len(STEPS))
    assert judge(VanishingGradients(), run_of(loss=(STEPS, loss), grad_norm=(STEPS, grad))) is None


def test_near_miss_early_collapse_while_the_loss_falls_most_of_the_way():
    grad = _noisy(np.where(STEPS < 250, 3.0, 0.4), 0.2)
    loss = 0.1 + 2.2 * np.exp(-STEPS / 800) + 0.01 * RNG.standard_normal(len(STEPS))
    assert judge(VanishingGradients(), run_of(loss=(STEPS, loss), grad_norm=(STEPS, grad))) is None


def test_near_miss_loss_keeps_improving_while_grad_shrinks():
    grad = _noisy(10 ** (-STEPS / 1500))
    loss = 0.5 + 2 * (1 - STEPS / STEPS[-1])
    assert judge(VanishingGradients(), run_of(loss=(STEPS, loss), grad_norm=(STEPS, grad))) is None


def test_a_loss_that_reached_zero_legitimately_has_tiny_gradients():
    grad = _noisy(10 ** (-STEPS / 1000))
    loss = 2.3 * np.exp(-STEPS / 300) + 1e-4
    assert judge(VanishingGradients(), run_of(loss=(STEPS, loss), grad_norm=(STEPS, grad))) is None


def test_zero_and_nan_grad_norms_survive():
    grad = np.where(STEPS < 1000, 1.0, 0.0)
    grad[::50] = np.nan
    loss = np.full(len(STEPS), 2.3) + 0.01 * RNG.standard_normal(len(STEPS))
    f = judge(VanishingGradients(), run_of(loss=(STEPS, loss), grad_norm=(STEPS, grad)))
    assert f is not None and np.isfinite(f.evidence["grad_norm_orders"])


def test_skips_without_a_grad_norm():
    run = run_of(loss=(STEPS, np.ones(len(STEPS))))
    assert "no gradient norm" in VanishingGradients().skip_reason(run)


@pytest.mark.slow
def test_real_runs_agree_with_their_labels(real_runs):
    assert_matches_real_labels(real_runs, VanishingGradients())


def test_the_screen_rules_out_only_runs_judge_turns_down():
    """detect screens on the norm's fall and the loss's progress before smoothing the norm: a
    run it screens out is one judge turns down on the full measurement, and a run it lets
    through is measured in full."""
    rng = np.random.default_rng(23)
    clf, screened, fired = VanishingGradients(), 0, 0
    for trial in range(160):
        n = int(rng.integers(8, 600))
        x = np.arange(n) * 10
        fall = rng.uniform(0, 3) * (trial % 3 > 0)
        at = rng.uniform(0, 1) * x[-1]
        grad = 10 ** (-fall * np.clip((x - at) / max(x[-1] - at, 1), 0, 1))
        grad = grad * np.exp(0.2 * rng.standard_normal(n))
        drop = rng.uniform(0, 1.5)
        loss = 2.0 - drop * (1 - np.exp(-x / max(1.0, rng.uniform(0.05, 1) * x[-1])))
        loss = loss + rng.uniform(-1, 0) * (trial % 5 == 0) + 0.02 * rng.standard_normal(n)
        run = run_of(loss=(x, loss), grad_norm=(x, grad))
        full, quick = clf.measure(run), clf.measure(run, screen=True)
        if full is None:
            continue
        if quick is None:
            screened += 1
            assert clf.judge(full) is None
        else:
            assert quick == full
            fired += clf.judge(full) is not None
    assert screened > 10 and fired > 2


def test_near_miss_early_fall_of_an_order_while_the_loss_keeps_improving_after_it():
    """The norm falls 30 -> ~0.3 in the first steps (its late median sits on the low mode of a
    two-mode norm), while the loss keeps falling steadily, 40% in all and most of it after the
    fall: a settling norm, not a stuck net (an HF fine-tune's pre-clip grad_norm)."""
    grad = _noisy(
        np.where(STEPS < 150, 30.0, np.where(np.arange(len(STEPS)) % 5 < 3, 0.3, 40.0)), 0.2
    )
    loss = 1.84 - 0.75 * STEPS / STEPS[-1] + 0.02 * RNG.standard_normal(len(STEPS))
    m = VanishingGradients().measure(run_of(loss=(STEPS, loss), grad_norm=(STEPS, grad)))
    assert m is not None and m["grad_norm_orders"] >= 1 and m["loss_gain_after"] > 0.5
    assert judge(VanishingGradients(), run_of(loss=(STEPS, loss), grad_norm=(STEPS, grad))) is None


def test_near_miss_a_short_log_whose_loss_kept_halving_after_the_norm_fell():
    """12 logs of a fine-tune: the loss falls 0.11 -> 0.03 after the norm's fall. Its first
    differences are mostly trend, so their spread overstates the noise and the z-score alone
    read it as a stall; a loss that lost over half its level after the onset moved."""
    steps = np.arange(500, 6500, 500)
    loss = np.array([2.01, 0.60, 0.45, 0.35, 0.20, 0.15, 0.15, 0.11, 0.043, 0.023, 0.033, 0.034])
    grad = np.array([4.8, 227.0, 3.1, 2.2, 1.5, 1.1, 0.02, 0.01, 0.004, 0.002, 0.003, 0.002])
    assert judge(VanishingGradients(), run_of(loss=(steps, loss), grad_norm=(steps, grad))) is None
