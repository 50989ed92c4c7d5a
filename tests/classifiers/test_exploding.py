import numpy as np
from lossforensics.classifiers.exploding import Exploding

from tests.classifiers._labelled import judge, real_outcomes, run_of

RNG = np.random.default_rng(2)
STEPS = np.arange(2000)


def _healthy(steps=STEPS):
    return 0.5 + 2.0 * np.exp(-steps / 300) + 0.03 * RNG.standard_normal(len(steps))


def test_divergence_after_the_minimum_has_its_span_and_grad_evidence():
    loss = _healthy()
    loss[1200:] += np.linspace(0, 6, 800) ** 1.5
    grad = np.r_[np.ones(1200), np.linspace(1, 50, 800)]
    f = judge(Exploding(), run_of(loss=(STEPS, loss), grad_norm=(STEPS, grad)))
    assert f is not None and 1050 <= f.span.start_step <= 1300 and f.span.end_step == 1999
    assert f.evidence["grad_norm_growth"] > 10 and f.confidence > 0.9
    assert f.evidence["rise_log"] > 1


def test_sudden_jump_that_stays_up_ending_in_nan():
    loss = _healthy()
    loss[1500:] += 4.0
    loss[1950:] = np.nan
    f = judge(Exploding(), run_of(loss=(STEPS, loss)))
    assert f.evidence["sudden"] and f.evidence["ends_nonfinite"]


def test_negative_loss_that_climbs_back_up():
    loss = -3 + 2.5 * np.exp(-STEPS / 200) + 0.02 * RNG.standard_normal(len(STEPS))
    loss[1000:] += np.linspace(0, 4, 1000)
    assert judge(Exploding(), run_of(loss=(STEPS, loss))) is not None


def test_a_negative_loss_falling_by_orders_of_magnitude_is_an_unbounded_fall():
    """A Keras ECG model: binary cross-entropy on targets outside [0, 1], the loss -3.4e4 at
    epoch 0 and -6.5e7 at epoch 69, falling faster every epoch: a loss with no floor."""
    ep = np.arange(70)
    loss = -3.4e4 * (1 + ep) ** 1.8 * (1 + 0.01 * RNG.standard_normal(70))
    f = judge(Exploding(), run_of(loss=(ep, loss)))
    assert f is not None and f.evidence["kind"] == "unbounded_fall"
    assert f.evidence["fall_ratio"] >= 100 and f.evidence["late_fall_share"] >= 0.2
    assert "fell below zero" in f.summary
    # near misses: an ELBO-like loss that falls far below zero and levels off, and a VAE loss
    # that crosses zero from a large positive start, both converge
    levels = -1e3 * (1 - np.exp(-ep / 8)) - 10 + 2.0 * RNG.standard_normal(70)
    assert judge(Exploding(), run_of(loss=(ep, levels))) is None
    crosses = 4.6e4 * np.exp(-ep / 5) - 2e3 + 300 * RNG.standard_normal(70)
    assert judge(Exploding(), run_of(loss=(ep, crosses))) is None


def test_healthy_and_per_epoch_runs_do_not_explode():
    assert judge(Exploding(), run_of(loss=(STEPS, _healthy()))) is None
    ep = np.arange(12)
    assert judge(Exploding(), run_of(loss=(ep, 1.0 / (1 + ep)))) is None


def test_a_lone_low_print_is_no_minimum_the_short_run_rose_from():
    """Udacity's course loop prints `running_loss / print_every` and resets the sum at each
    epoch's start, so an epoch's first print divides a part of the interval's losses by all of
    it: one low point (1.04 among 2.0s), unsmoothed in a 30-point log, from which the flat rest
    read as a 90% blow-up. A rise from a level the run held is still one."""
    prints = np.arange(30)
    loss = np.r_[np.linspace(4.7, 2.4, 10), np.linspace(2.3, 2.2, 10), np.linspace(2.1, 2.0, 10)]
    loss = loss + 0.12 * np.random.default_rng(7).standard_normal(30)
    loss[[10, 20]] = [1.76, 1.04]  # each epoch's first print, after the reset
    assert judge(Exploding(), run_of(loss=(prints, loss))) is None
    blown = loss.copy()
    blown[22:] = [1.1, 1.9, 3.5, 6.0, 9.0, 14.0, 20.0, 30.0]  # held, then a real blow-up
    f = judge(Exploding(), run_of(loss=(prints, blown)))
    assert f is not None and f.evidence["min_step"] in (20, 21, 22)


def test_near_miss_a_spike_that_recovers_and_a_noisy_floor_near_zero():
    loss = _healthy()
    loss[1500:1510] += 5.0
    assert judge(Exploding(), run_of(loss=(STEPS, loss))) is None
    tiny = 0.01 + 0.004 * np.abs(RNG.standard_normal(len(STEPS))) + 2 * np.exp(-STEPS / 50)
    tiny[1800:] += 0.005  # +50% of a converged near-zero loss is not an explosion
    assert judge(Exploding(), run_of(loss=(STEPS, tiny))) is None


def test_real_runs_explode_only_where_the_loss_jumped_and_stayed_up(real_runs):
    rows = real_outcomes(real_runs, Exploding())
    misses = [e for e, fired, want in rows if want and not fired]
    false = [e for e, fired, want in rows if fired and not want]
    assert not misses
    # known disagreement: this run's loss climbs from 8 to 12 over its second half; labels.json
    # calls it oscillating + plateau, the rule (and many readers) call that divergence
    assert all("token_to_char1729587337" in e for e in false), false


def test_a_slow_sustained_divergence_is_exploding_of_its_own_kind():
    # down to a minimum, then a steady climb to ~15% above it over the last 40% of the run
    steps = np.arange(2000)
    rng = np.random.default_rng(3)
    loss = 0.5 + 1.5 * np.exp(-steps / 200)
    loss = loss + np.where(steps > 1200, 0.08 * (steps - 1200) / 800, 0.0)
    loss = loss + 0.005 * rng.standard_normal(len(steps))
    f = judge(Exploding(), run_of(loss=(steps, loss)))
    assert f is not None and f.evidence["kind"] == "slow_divergence"
    assert "steadily" in f.summary


def test_a_rise_to_a_new_level_that_holds_is_not_a_divergence():
    # climbs 15% after its minimum and then stays there for the last half: an equilibrium
    steps = np.arange(2000)
    loss = np.where(
        steps < 200, 1.0 - 0.2 * steps / 200, 0.8 + 0.12 * (1 - np.exp(-(steps - 200) / 150))
    )
    assert judge(Exploding(), run_of(loss=(steps, loss))) is None


def test_a_loss_redefined_mid_run_is_not_a_divergence_when_validation_kept_improving():
    # epochs 0-2 plain cross-entropy, then cross-entropy + Dice: the logged number jumps 6x
    # while the held-out loss keeps falling and the training loss keeps falling after the step
    ep = np.arange(10)
    train = np.array([0.141, 0.097, 0.083, 0.505, 0.495, 0.493, 0.488, 0.487, 0.486, 0.485])
    val = np.array([0.994, 0.995, 0.995, 0.926, 0.923, 0.921, 0.917, 0.917, 0.917, 0.916])
    run = run_of(loss=(ep, train), val_loss=(ep, val))
    assert judge(Exploding(), run) is None
    # ... and the diagnosis says it saw the step and why it is no blow-up
    why = Exploding().set_aside(run)
    # (the best is the level held around it, on a log this short: 0.097, beside the 0.083)
    assert why is not None and "stepped up at step 3 (ending 5.01x its best)" in why
    assert "redefined" in why
    # the same step with the held-out loss jumping too: the weights blew up
    blown = run_of(loss=(ep, train), val_loss=(ep, np.r_[val[:3], 3.0 * val[3:]]))
    f = judge(Exploding(), blown)
    assert f is not None and f.evidence["val_worst_after_min"] > 2
    # a loss that only fell has no step to set aside
    assert Exploding().set_aside(run_of(loss=(ep, 0.14 * np.exp(-ep / 4)))) is None


def _course_cases():
    """Healthy decays, rises of every size and place (late, early, sudden, slow, to a new
    level), losses ending non-finite, and losses that reach zero or below (no ratio)."""
    rng = np.random.default_rng(21)
    for trial in range(240):
        n = int(rng.integers(8, 1500))
        x = np.arange(n)
        y = 0.5 + 2.0 * np.exp(-x / max(1, n // 5)) + 0.03 * rng.standard_normal(n)
        at = int(rng.integers(0, n))
        kind = trial % 6
        if kind == 1:
            y[at:] += rng.uniform(0, 3)  # a step that stays
        elif kind == 2:
            y[at:] += np.linspace(0, rng.uniform(0, 2), n - at)  # a slow climb
        elif kind == 3:
            y[at:] *= 1.0 + np.linspace(0, rng.uniform(0, 1), n - at) ** 2
            y[-int(rng.integers(1, 4)) :] = np.nan
        elif kind == 4:
            y -= rng.uniform(0, 3)  # crosses zero: rises measured in ranges
        elif kind == 5:
            y[at : at + 5] += 4.0  # a spike that recovers
        yield x, y


def test_the_screen_rules_out_only_runs_the_full_measure_rules_out():
    """Exploding.detect screens on the cheap part of the course before the noise, the scale
    and the climb's trend are read: a run it screens out must be one the full measurement
    does not call exploded, and a run it lets through has the full measurement's evidence."""
    clf = Exploding()
    screened = fired = 0
    for x, y in _course_cases():
        run = run_of(loss=(x, y))
        full = clf.measure(run, grad=False)
        quick = clf.measure(run, grad=False, screen=True)
        if full is None:
            continue
        if quick is None:
            screened += 1
            assert not clf.exploded(full)
        else:
            assert quick == full
            fired += clf.exploded(full)
    assert screened > 50 and fired > 20


def _warmup_run(rise: float = 3.0, lr_peak_at: int = 500, constant_lr: bool = False):
    """A fine-tune logged every 25 steps over 1500: the loss falls 0.8 -> 0.12 by step 150, holds
    there to step 200, then climbs to `rise` x that best by step 500 and comes part of the way
    back (to about 1.5x) as the schedule decays; the LR warms up linearly to 1e-4 at
    `lr_peak_at`, then decays."""
    rng = np.random.default_rng(5)
    x = np.arange(25, 1525, 25)
    best = 0.12
    fall = np.geomspace(0.8, best, 6)
    climb = best * (1 + (rise - 1) * np.clip((x - 200) / 300, 0, 1))
    back = np.where(x > 500, 1.5 * best + (climb - 1.5 * best) * np.exp(-(x - 500) / 300), climb)
    loss = np.r_[fall, back[6:]] * (1 + 0.02 * rng.standard_normal(len(x)))
    lr = np.where(x <= lr_peak_at, 1e-4 * x / lr_peak_at, 1e-4 * (1500 - x) / (1500 - lr_peak_at))
    lr = np.full(len(x), 1e-4) if constant_lr else np.maximum(lr, 1e-7)
    return run_of(loss=(x, loss), learning_rate=(x, lr))


def test_a_loss_that_climbs_while_the_lr_warms_up_is_a_warmup_overshoot():
    f = judge(Exploding(), _warmup_run())
    assert f is not None and f.evidence["kind"] == "warmup_overshoot"
    assert f.evidence["warmup_rise"] >= 2 and f.evidence["lr_peak_step"] == 500
    assert "warming up" in f.summary


def test_near_misses_of_a_warmup_overshoot():
    # the same course with no warm-up logged (a constant LR): its end, 1.5x its best, is under
    # a quarter of the initial drop above it, which a blow-up needs
    assert judge(Exploding(), _warmup_run(constant_lr=True)) is None
    # a rise to 1.6x during the warm-up is the noise of a fine-tune settling, not an overshoot
    assert judge(Exploding(), _warmup_run(rise=1.6)) is None
    # the LR peaked at step 75, before the loss turned up: the rise came while the LR decayed
    assert judge(Exploding(), _warmup_run(lr_peak_at=75)) is None


def test_one_last_print_high_above_the_best_is_no_blow_up():
    """A DeiT MetricLogger excerpt, per-batch losses of two epochs: 0.0062-0.0082, then the
    last print 0.0109. A short log is read unsmoothed, so its end level rested on that one
    print; nothing shows the loss stayed there. Two last prints that both hold the rise do, and
    so does one last print an order of magnitude up (ssd.pytorch's 14.0 then 120128.9)."""
    steps = np.array([2077, 2087, 2097, 2107, 2108, 2118, 2128, 2138, 2139])
    loss = np.array([0.0082, 0.0082, 0.0063, 0.0065, 0.0062, 0.0062, 0.0078, 0.0065, 0.0109])
    assert judge(Exploding(), run_of(loss=(steps, loss))) is None
    ssd = np.array([27.40, 14.99, 20.76, 20.23, 15.18, 14.12, 14.00, 120128.9])
    f = judge(Exploding(), run_of(loss=(10 * np.arange(8), ssd)))
    assert f is not None and f.evidence["held_rise_log"] < 0.26  # a tenfold jump needs no hold
    held = np.append(loss, 0.0112)
    f = judge(Exploding(), run_of(loss=(np.append(steps, 2149), held)))
    assert f is not None and f.evidence["held_rise_log"] >= 0.26


def test_a_short_logs_best_is_the_level_it_held_not_one_lucky_batch():
    """torchtune's first 12 steps of a fine-tune: 2.09 falling to about 0.95, one batch at
    0.68, then 1.04, 1.04, 1.12. Read unsmoothed, the rise was measured from that one batch
    (+60%) and called a blow-up; the level the loss held around its best is about 0.86."""
    loss = np.array([2.09, 1.87, 1.17, 1.12, 0.97, 0.84, 0.95, 0.86, 0.68, 1.04, 1.04, 1.12])
    assert judge(Exploding(), run_of(loss=(np.arange(1, 13), loss))) is None


def test_near_miss_a_blow_up_from_the_first_print_still_counts():
    """litgpt's full fine-tune: 1.70 at its first print, then 11.46, 11.75, 11.50, ... (above
    the uniform loss of its vocabulary): the first print is a level as logged."""
    loss = np.array([1.702, 11.463, 11.754, 11.502, 11.481, 12.194, 10.022, 10.936, 10.551])
    f = judge(Exploding(), run_of(loss=(np.arange(1151, 1160), loss)))
    assert f is not None and f.evidence["min_step"] == 1151


def test_a_rise_while_the_held_out_score_keeps_improving_is_set_aside():
    """spaCy sums its loss over a batch its default batcher grows: the logged training loss
    climbs 26 -> 45 while the held-out F-score sets a new best at every evaluation. Weights that
    blew up do worse on held-out data at once: no divergence, set aside with the score's
    witness. The same rise with the score falling is a blow-up."""
    steps = np.arange(0, 2600, 200)
    loss = np.array([41.0, 30.2, 26.1, 24.0, 23.2, 23.0, 24.1, 27.0, 30.1, 34.2, 38.0, 42.1, 45.0])
    improving = np.linspace(0.3, 0.70, 13)
    run = run_of(loss=(steps, loss), val_accuracy=(steps, improving))
    assert judge(Exploding(), run) is None
    why = Exploding().set_aside(run)
    assert why is not None and "val_accuracy kept improving" in why
    falling = run_of(loss=(steps, loss), val_accuracy=(steps, improving[::-1] / 2 + 0.2))
    f = judge(Exploding(), falling)
    assert f is not None and f.evidence["held_out_improved"] is None


def test_a_short_noisy_log_whose_first_print_is_its_lowest_has_the_whole_logs_noise():
    """One noisy epoch of per-step losses (a MONAI tutorial's 0.108-0.338) whose first print
    happens to be its lowest: with no point before the best there was no noise to clear, and a
    rise of 0.06 read as a blow-up. The whole log's point-to-point noise is the yardstick then;
    a rise of an order of magnitude needs none."""
    loss = np.array(
        [
            0.1162,
            0.1221,
            0.1084,
            0.2122,
            0.3382,
            0.3024,
            0.1587,
            0.2373,
            0.2286,
            0.1184,
            0.2918,
            0.2250,
            0.2846,
            0.1723,
            0.2902,
            0.2303,
            0.1676,
            0.2387,
        ]
    )
    steps = np.arange(len(loss))
    assert judge(Exploding(), run_of(loss=(steps, loss))) is None
    blown = np.r_[loss[:6], loss[6:] * 40]
    f = judge(Exploding(), run_of(loss=(steps, blown)))
    assert f is not None and f.evidence["noise"] == 0.0
