import numpy as np

from classifiers.loss_spikes import LossSpikes
from tests.classifiers._labelled import judge, real_outcomes, run_of

RNG = np.random.default_rng(5)
STEPS = np.arange(1500)


def _loss():
    return 0.4 + 2.0 * np.exp(-STEPS / 300) + 0.03 * RNG.standard_normal(len(STEPS))


def test_spikes_that_recover_are_found_where_they_are():
    loss = _loss()
    at = [400, 900, 1200]
    loss[at] *= 6.0
    f = judge(LossSpikes(), run_of(loss=(STEPS, loss)))
    assert f is not None and f.evidence["count"] == 3 and f.evidence["spike_steps"] == at
    assert f.span.start_step == 400 and f.span.end_step == 1200
    assert f.evidence["series"] == "train" and f.confidence >= 0.75


def test_validation_only_spike_per_epoch():
    ep = np.arange(17)
    val = 1.4 - 0.02 * ep
    val[1] = 7.4
    f = judge(LossSpikes(), run_of(loss=(ep, 1.7 - 0.04 * ep), val_loss=(ep, val)))
    assert f is not None and f.evidence["series"] == "val" and f.span.start_step == 1


def test_level_shift_is_not_a_spike_and_healthy_noise_is_not_either():
    loss = _loss()
    loss[800:] += 3.0
    assert judge(LossSpikes(), run_of(loss=(STEPS, loss))) is None
    assert judge(LossSpikes(), run_of(loss=(STEPS, _loss()))) is None


def test_near_miss_bumps_of_twenty_percent_are_noise_not_spikes():
    loss = 1.0 + 0.002 * RNG.standard_normal(len(STEPS))
    loss[[300, 700]] *= 1.2
    assert judge(LossSpikes(), run_of(loss=(STEPS, loss))) is None


def test_keras_running_mean_reset_is_not_read():
    steps = np.arange(3000)
    pos = steps % 300
    batch = 0.3 + 0.5 / (1 + pos) + 0.5 * np.exp(-steps / 1000)  # running mean reset each epoch
    assert judge(LossSpikes(), run_of(batch_loss=(steps, batch))) is None


def test_real_runs(real_runs):
    rows = real_outcomes(real_runs, LossSpikes())
    false = [e for e, fired, want in rows if fired and not want]
    missed = [e for e, fired, want in rows if want and not fired]
    # known: the token_to_char run's isolated 8 -> 14 jumps are spikes by any rule, labelled
    # oscillating; 1729534595's only large jump never recovers (exploding covers it)
    assert all("token_to_char1729587337" in e for e in false), false
    assert all("1729534595" in e for e in missed), missed
