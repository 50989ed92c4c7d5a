import numpy as np

from classifiers.unshuffled import Unshuffled, epoch_length
from tests.classifiers._labelled import judge, real_outcomes, run_of

RNG = np.random.default_rng(8)
SPE = 48  # steps per epoch
STEPS = np.arange(12 * SPE)


def _sorted_by_class(k=4, amp=0.4):
    """Loss high when a new class block starts, falling inside it; repeats every epoch."""
    pos = (STEPS % SPE) % (SPE // k)
    saw = amp * np.exp(-pos / 3.0)
    return 0.5 + np.exp(-STEPS / 200) + saw + 0.03 * RNG.standard_normal(len(STEPS))


def test_sawtooth_with_the_epoch_period_and_an_epoch_metric():
    run = run_of(loss=(STEPS, _sorted_by_class(k=1)), epoch=(STEPS, STEPS / SPE))
    f = judge(Unshuffled(), run)
    assert f is not None and f.evidence["epoch_match"] and f.evidence["epoch_steps"] == SPE
    assert f.evidence["period_steps"] == SPE and f.span == type(f.span)(0, STEPS[-1])
    assert f.confidence > 0.8


def test_class_blocks_inside_the_epoch_still_match():
    run = run_of(loss=(STEPS, _sorted_by_class(k=4)), epoch=(STEPS, STEPS / SPE))
    f = judge(Unshuffled(), run)
    assert f is not None and f.evidence["period_steps"] == SPE // 4


def test_epoch_length_from_the_validation_cadence():
    val_steps = np.arange(SPE - 1, STEPS[-1] + 1, SPE)
    run = run_of(loss=(STEPS, _sorted_by_class(k=1)), val_loss=(val_steps, np.ones(len(val_steps))))
    assert epoch_length(run) == (SPE, "val_cadence")


def test_shuffled_noise_is_not_unshuffled():
    loss = 0.5 + np.exp(-STEPS / 200) + 0.05 * RNG.standard_normal(len(STEPS))
    assert judge(Unshuffled(), run_of(loss=(STEPS, loss), epoch=(STEPS, STEPS / SPE))) is None


def test_near_miss_cycles_from_warm_restarts_of_the_lr():
    lr = 0.1 * (1 + np.cos(np.pi * (STEPS % SPE) / SPE)) / 2
    run = run_of(loss=(STEPS, _sorted_by_class(k=1)), lr=(STEPS, lr))
    assert judge(Unshuffled(), run) is None


def test_period_that_does_not_fit_the_epoch_is_rejected():
    run = run_of(loss=(STEPS, _sorted_by_class(k=1)), epoch=(STEPS, STEPS / 37))
    assert judge(Unshuffled(), run) is None


def test_running_mean_metric_is_not_read():
    pos = STEPS % SPE
    batch = 0.3 + 0.5 / (1 + pos)
    assert judge(Unshuffled(), run_of(batch_loss=(STEPS, batch))) is None


def test_no_real_run_is_unshuffled(real_runs):
    assert not [e for e, fired, _ in real_outcomes(real_runs, Unshuffled()) if fired]
