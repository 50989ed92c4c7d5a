import numpy as np
import pytest
from lossforensics.classifiers._epochs import epoch_length
from lossforensics.classifiers.unshuffled import Unshuffled

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


def test_epoch_length_from_a_fractional_epoch_with_under_two_boundaries():
    # the HF Trainer logs `epoch` as a fraction (0.0625 a step of 10 at 160 steps an epoch):
    # a log of 1.7 epochs has one integer boundary, and its eval cadence (every 10 steps) is
    # no epoch
    steps = np.arange(10, 280, 10)
    run = run_of(
        loss=(steps, 1.0 / np.sqrt(steps)),
        epoch=(steps, steps / 160),
        eval_loss=(steps, 1.1 / np.sqrt(steps)),
    )
    assert epoch_length(run) == (160.0, "epoch")
    # near miss: whole epochs logged once each are no fraction, the cadence stays the hint
    whole = np.arange(1, 3)
    run = run_of(loss=(steps, 1.0 / np.sqrt(steps)), epoch=(whole * 160, whole.astype(float)))
    assert epoch_length(run) == (None, None)


def test_a_loss_logged_once_an_epoch_is_not_judged_for_a_data_order():
    # a YOLO/Keras epoch log: train and val once an epoch, the train loss cycling over 6 epochs
    ep = np.arange(1, 31)
    train = 1.3 - 0.004 * ep + 0.02 * np.sin(2 * np.pi * ep / 6)
    run = run_of(loss=(ep, train), val_loss=(ep, 1.25 + 0.003 * ep))
    reason = Unshuffled().skip_reason(run)
    assert reason is not None and "once an epoch (the validation cadence says so)" in reason
    # the epoch metric says the same for a per-epoch log that counts its steps in batches
    run = run_of(loss=(ep * 50, train), epoch=(ep * 50, ep.astype(float)))
    assert "the epoch metric says so" in Unshuffled().skip_reason(run)
    # near miss: the per-step loss of the same kind of run, 48 points an epoch, is still read
    run = run_of(loss=(STEPS, _sorted_by_class(k=1)), epoch=(STEPS, STEPS / SPE))
    assert Unshuffled().skip_reason(run) is None and judge(Unshuffled(), run) is not None


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


def _short_class_blocks(epochs=11, spe=10, rng=None):
    """Sorted data in 2-step class blocks: each class's loss sits at its own level, in the same
    order every epoch (the corpus's hf_trainer_state unshuffled run): a wiggle too short for an
    autocorrelation peak that dips clearly in between, but the same shape in every epoch."""
    rng = rng or np.random.default_rng(3)
    steps = np.arange(1, epochs * spe + 1)
    per_class = np.array([0.0, 0.5, -0.3, 0.4, -0.5])
    shape = per_class[((steps - 1) % spe) // 2]
    noise = 0.25 * rng.standard_normal(len(steps))
    loss = (0.5 + np.exp(-steps / 15)) * np.exp(0.5 * shape + noise)
    return steps, loss, spe


def test_same_shape_every_epoch_is_found_by_the_position_in_the_epoch():
    steps, loss, spe = _short_class_blocks()
    run = run_of(loss=(steps, loss), epoch=(steps, steps / spe))
    f = judge(Unshuffled(), run)
    assert f is not None and f.evidence["epoch_share"] >= 0.3 and f.evidence["epoch_p"] < 1e-3
    assert "same shape in every epoch" in f.summary


def test_the_same_blocks_shuffled_each_epoch_are_not_unshuffled():
    steps, loss, spe = _short_class_blocks()
    rng = np.random.default_rng(4)
    for e in range(len(steps) // spe):  # reshuffle the order of the points inside each epoch
        loss[e * spe : (e + 1) * spe] = rng.permutation(loss[e * spe : (e + 1) * spe])
    assert judge(Unshuffled(), run_of(loss=(steps, loss), epoch=(steps, steps / spe))) is None


def test_a_learning_rate_cycling_every_epoch_vetoes_the_fold_too():
    steps, loss, spe = _short_class_blocks()
    lr = 0.1 * (1 + np.cos(np.pi * ((steps - 1) % spe) / spe)) / 2
    run = run_of(loss=(steps, loss), epoch=(steps, steps / spe), lr=(steps, lr))
    assert judge(Unshuffled(), run) is None


def _epochs_run(loss: np.ndarray, epoch_len: int):
    steps = np.arange(len(loss))
    return run_of(loss=(steps, loss), epoch=(steps, steps / epoch_len))


def test_epoch_staircase_that_never_climbs_back_is_not_unshuffled():
    # multi-epoch memorisation: a permanent drop at each epoch boundary, flat within the epoch
    rng = np.random.default_rng(5)
    epoch_len, n = 200, 1200
    steps = np.arange(n)
    loss = 1.5 - 0.3 * (steps // epoch_len) + rng.normal(0, 0.05, n)
    assert judge(Unshuffled(), _epochs_run(loss, epoch_len)) is None


def test_epoch_sawtooth_that_climbs_back_is_unshuffled():
    rng = np.random.default_rng(5)
    epoch_len, n = 200, 1200
    steps = np.arange(n)
    phase = (steps % epoch_len) / epoch_len
    loss = 1.5 - 0.0003 * steps + 0.4 * phase + rng.normal(0, 0.05, n)
    f = judge(Unshuffled(), _epochs_run(loss, epoch_len))
    assert f is not None and f.label == "unshuffled"


@pytest.mark.slow
def test_real_staircase_memorisation_is_not_unshuffled(real_runs_more):
    from lossforensics.classifiers.run import RunSeries

    from tests.classifiers._labelled import _load

    path = real_runs_more / "hf_medalpaca13b_epoch_staircase_memorisation"
    run = RunSeries(_load(str(path)))
    ev = Unshuffled().measure(run)
    assert ev["epoch_climb_back"] < 0.5 * ev["epoch_fall"]
    assert judge(Unshuffled(), run) is None


def _pretraining_loss(steps: np.ndarray) -> np.ndarray:
    """An LLM pretraining loss: a steep fall over the first hundred steps, then a slow creep."""
    return 2.95 + 5.4 * np.exp(-steps / 8) + 2.2 * np.exp(-steps / 120) - 0.25 * steps / 6000


def _pretraining_run(seed: int, saw: float = 0.0):
    """modded-nanogpt's log: steps 1-10, then every 50; val every 1000 steps (the epoch hint);
    `saw`: a linear sawtooth of that height in every 1000 steps."""
    rng = np.random.default_rng(seed)
    steps = np.r_[np.arange(1, 11), np.arange(50, 6101, 50)]
    train = _pretraining_loss(steps) + 0.08 * rng.standard_normal(len(steps))
    train += saw * (1 - (steps % 1000) / 1000)
    val_steps = np.arange(0, 6001, 1000)
    return run_of(loss=(steps, train), val_loss=(val_steps, _pretraining_loss(val_steps)))


@pytest.mark.parametrize("seed", range(6))
def test_a_steep_first_epoch_alone_is_no_fold(seed):
    # the first 1000 steps fall from 8.3 to 3: a residual that a one-epoch trend cannot follow,
    # phase-aligned in that epoch alone; the later epochs carry no shape
    assert judge(Unshuffled(), _pretraining_run(seed)) is None


def test_a_sawtooth_after_a_steep_first_epoch_is_still_found():
    f = judge(Unshuffled(), _pretraining_run(1, saw=0.3))
    assert f is not None and f.evidence["epoch_source"] == "val_cadence"
