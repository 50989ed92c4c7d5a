import numpy as np
from lossforensics.classifiers.diagnose import diagnose
from lossforensics.classifiers.diagnosis import Finding, Span
from lossforensics.classifiers.explains import EXPLAINS, apply_explains, apply_leads
from lossforensics.classifiers.labels import LABELS

from tests.classifiers._labelled import frame_of

RNG = np.random.default_rng(10)


def _f(label: str, conf: float = 0.8, span=(0, 100), **evidence) -> Finding:
    return Finding(label, conf, Span(*span), evidence, f"{label} summary")


def test_table_names_only_known_labels_and_gives_a_reason():
    for rule in EXPLAINS:
        assert rule.cause in LABELS and rule.effect in LABELS and rule.why


def test_lr_cut_explains_plateau_and_underfit_and_keeps_them_as_evidence():
    out = apply_explains(
        [_f("lr_decayed_too_early"), _f("plateau", kind="stuck_after_drop"), _f("underfit")]
    )
    assert [f.label for f in out] == ["lr_decayed_too_early"]
    explained = {e["label"] for e in out[0].evidence["explains"]}
    assert explained == {"plateau", "underfit"}


def test_flat_from_start_plateau_explains_underfit_but_a_stall_after_a_drop_is_underfits():
    flat = apply_explains([_f("plateau", kind="flat_from_start"), _f("underfit")])
    assert [f.label for f in flat] == ["plateau"]
    stall = apply_explains([_f("plateau", kind="stuck_after_drop"), _f("underfit")])
    assert [f.label for f in stall] == ["underfit"]
    assert stall[0].evidence["explains"][0]["label"] == "plateau"


def test_a_chain_goes_to_its_root():
    # the LR cut explains the plateau, which would explain the underfit: both go to the cut
    out = apply_explains(
        [_f("lr_decayed_too_early"), _f("plateau", kind="flat_from_start"), _f("underfit")]
    )
    assert [f.label for f in out] == ["lr_decayed_too_early"]
    assert len(out[0].evidence["explains"]) == 2


def test_exploding_leads_the_nan_that_ends_a_blow_up_and_both_stay():
    blew_up = _f("exploding", min_step=300, rise_full=True)
    nan = _f("nan", first_nonfinite_step=900)
    out = apply_leads(apply_explains([nan, blew_up]))
    assert [f.label for f in out] == ["exploding", "nan"]
    tail_only = _f("exploding", min_step=300, rise_full=False)
    assert [f.label for f in apply_leads([nan, tail_only])] == ["nan", "exploding"]


def test_a_run_that_ended_non_finite_is_no_underfit_verdict():
    # nanoGPT on shakespeare_char: the usual early stall near 3.3, then NaN at iter 425 for good
    ended = apply_explains([_f("nan", recovered=False, val_only=False), _f("underfit")])
    assert [f.label for f in ended] == ["nan"]
    assert ended[0].evidence["explains"][0]["label"] == "underfit"
    # a NaN the run recovered from, or one only in the validation loss, explains nothing
    for nan in (_f("nan", recovered=True), _f("nan", recovered=False, val_only=True)):
        assert {f.label for f in apply_explains([nan, _f("underfit")])} == {"nan", "underfit"}


def test_resume_explains_a_jump_at_its_restart_only():
    resume = _f("resume_discontinuity", resume_step=5000)
    at = _f("exploding", span=(4990, 9000), min_step=4990)
    assert [f.label for f in apply_explains([at, resume])] == ["resume_discontinuity"]
    elsewhere = _f("exploding", span=(20000, 30000), min_step=20000)
    assert {f.label for f in apply_explains([elsewhere, resume])} == {
        "exploding",
        "resume_discontinuity",
    }


def test_unrelated_findings_are_untouched():
    found = [_f("overfit"), _f("loss_spikes")]
    assert apply_explains(found) == found


def test_diagnose_reports_an_early_lr_cut_once():
    steps = np.arange(0, 4000, 20)
    lr = np.where(steps < 1000, 1e-3, 1e-6)
    progress = np.cumsum(lr / lr.max()) / len(steps)
    loss = 0.8 + 2.0 * np.exp(-8 * progress) + 0.01 * RNG.standard_normal(len(steps))
    d = diagnose(frame_of(loss=(steps, loss), lr=(steps, lr)))
    labels = [f.label for f in d.findings]
    assert d.verdict == "lr_decayed_too_early"
    assert "plateau" not in labels and "underfit" not in labels


def test_a_broad_sawtooth_explains_the_jumps_at_its_edges_but_not_narrow_recurring_spikes():
    spikes = _f("loss_spikes")
    broad = _f("unshuffled", width=0.2)
    assert [f.label for f in apply_explains([spikes, broad])] == ["unshuffled"]
    narrow = _f("unshuffled", width=0.03)  # fired on a logged epoch: both stay
    assert [f.label for f in apply_explains([spikes, narrow])] == ["loss_spikes", "unshuffled"]


def test_a_loss_pinned_at_chance_after_an_early_blow_up_is_a_plateau_not_a_mismatch():
    # binary classifier: starts at ln 2, blows up early, falls back to the majority-class
    # entropy and stays there; the val sits there too
    steps = np.arange(0, 3000, 10)
    chance = np.log(2.0)
    train = chance + 0.002 * RNG.standard_normal(len(steps))
    train[3:12] = chance + 4.0 * np.exp(-np.arange(9) / 3.0)
    vx = steps[::15]
    val = chance + 0.002 * RNG.standard_normal(len(vx))
    d = diagnose(frame_of(loss=(steps, train), val_loss=(vx, val)))
    assert d.verdict == "plateau"
    assert "distribution_mismatch" not in [f.label for f in d.findings]


def test_a_blow_up_explains_gradients_that_vanished_while_the_loss_climbed():
    blew_up = _f("exploding", min_step=15, rise_full=True)
    saturated = _f("vanishing_gradients", loss_progress=-0.9)
    out = apply_explains([blew_up, saturated])
    assert [f.label for f in out] == ["exploding"]
    assert out[0].evidence["explains"][0]["label"] == "vanishing_gradients"
    # gradients that vanished while the loss stalled are their own problem
    stalled = _f("vanishing_gradients", loss_progress=0.05)
    assert {f.label for f in apply_explains([blew_up, stalled])} == {
        "exploding",
        "vanishing_gradients",
    }


def test_a_metric_still_improving_leads_the_val_loss_rise_and_both_stay():
    rise = _f("overfit", val_min_step=4140)
    mismatch = _f("metric_mismatch", 0.9, direction="loss_rises_metric_improves")
    assert [f.label for f in apply_leads(apply_explains([rise, mismatch]))] == [
        "metric_mismatch",
        "overfit",
    ]
    # a loss that improves beside a frozen metric says nothing about the rise
    frozen = _f("metric_mismatch", 0.9, direction="loss_improves")
    assert [f.label for f in apply_leads([rise, frozen])] == ["overfit", "metric_mismatch"]


def test_swings_explain_a_stalled_val_but_not_a_clear_rise():
    swings = _f("oscillating", 0.7)
    stall = _f("overfit", 0.4, val_rise_z=1.3)
    assert [f.label for f in apply_explains([stall, swings])] == ["oscillating"]
    clear = _f("overfit", 0.8, val_rise_z=6.0)
    assert {f.label for f in apply_explains([clear, swings])} == {"oscillating", "overfit"}
    # 3-4 evaluations cannot measure their noise: beside swings, the rise is the swing's
    few = _f("overfit", 0.5, reading="few_evaluations")
    assert [f.label for f in apply_explains([few, swings])] == ["oscillating"]


def test_a_blow_up_explains_the_bouncing_at_its_new_level_but_not_swings_that_fell():
    blew_up = _f("exploding", min_step=15, rise_full=True)
    bouncing = _f("oscillating", trend_progress=-0.8)
    assert [f.label for f in apply_explains([blew_up, bouncing])] == ["exploding"]
    falling = _f("oscillating", trend_progress=0.1)
    assert {f.label for f in apply_explains([blew_up, falling])} == {"exploding", "oscillating"}


def test_a_blow_up_at_the_start_explains_the_epoch_shape_and_swings_read_after_it():
    at_start = _f("exploding", kind="blow_up", rise_full=True, min_fraction=0.01)
    shape, swings = _f("unshuffled"), _f("oscillating", trend_progress=0.2)
    kept = apply_explains([at_start, shape, swings])
    assert [f.label for f in kept] == ["exploding"]
    assert {e["label"] for e in kept[0].evidence["explains"]} == {"unshuffled", "oscillating"}
    # a blow-up late in the run leaves the sawtooth and the swings before it their own labels
    late = _f("exploding", kind="blow_up", rise_full=True, min_fraction=0.6)
    assert {f.label for f in apply_explains([late, shape, swings])} == {
        "exploding",
        "unshuffled",
        "oscillating",
    }
    # a slow divergence is no bounce at a huge step: the sawtooth stays
    slow = _f("exploding", kind="slow_divergence", rise_full=True, min_fraction=0.01)
    assert {f.label for f in apply_explains([slow, shape])} == {"exploding", "unshuffled"}


def test_diagnose_reads_a_sawtooth_after_an_early_blow_up_as_the_blow_ups():
    """A warm-up to a huge LR: the loss climbs 10x over the first 8% of the run, then bounces
    at that level with the same shape every 40-step epoch (a fixed batch order)."""
    rng = np.random.default_rng(3)
    steps = np.arange(5, 1255, 5)
    shape = rng.normal(0, 0.35, 8)
    loss = 20 * np.exp(shape[(steps % 40) // 5] + rng.normal(0, 0.15, len(steps)))
    loss[:20] = np.geomspace(2.0, 20, 20) * np.exp(rng.normal(0, 0.05, 20))
    d = diagnose(frame_of(loss=(steps, loss), epoch=(steps, steps / 40)))
    assert d.verdict == "exploding" and d.labels == ["exploding"]
    assert "unshuffled" in {e["label"] for e in d.findings[0].evidence["explains"]}


def test_many_restarts_explain_the_swings_but_one_resume_does_not():
    many = apply_explains([_f("resume_discontinuity", restarts=14), _f("oscillating")])
    assert [f.label for f in many] == ["resume_discontinuity"]
    assert many[0].evidence["explains"][0]["label"] == "oscillating"
    one = apply_explains([_f("resume_discontinuity", restarts=1), _f("oscillating")])
    assert sorted(f.label for f in one) == ["oscillating", "resume_discontinuity"]


def test_a_val_that_fell_with_training_before_it_rose_is_overfit_not_a_mismatch():
    followed = apply_explains(
        [_f("distribution_mismatch"), _f("overfit", val_drop_before_z=2.4, val_rise_z=4.9)]
    )
    assert [f.label for f in followed] == ["overfit"]
    assert followed[0].evidence["explains"][0]["label"] == "distribution_mismatch"
    # a val that never fell before its minimum: both stay
    never = apply_explains(
        [_f("distribution_mismatch"), _f("overfit", val_drop_before_z=0.3, val_rise_z=9.0)]
    )
    assert {f.label for f in never} == {"distribution_mismatch", "overfit"}
    # a mismatch read from the scores is not the val loss's shape: it stays
    scores = apply_explains(
        [_f("distribution_mismatch", reading="scores"), _f("overfit", val_drop_before_z=5.0)]
    )
    assert {f.label for f in scores} == {"distribution_mismatch", "overfit"}


def test_diagnose_calls_a_val_that_followed_then_climbed_overfit():
    # evaluated every 200 steps: the val falls 13% with training to a minimum at the second
    # evaluation, then climbs 45% while the training loss goes to near zero
    steps = np.arange(100, 1101)
    train = 7.1 * np.exp(-steps / 220) + 0.05 * (1 + 0.02 * RNG.standard_normal(steps.size))
    evals = np.arange(100, 1101, 200)
    val = np.array([7.14, 6.22, 6.9, 7.9, 8.6, 9.0])
    d = diagnose(frame_of(train_loss=(steps, train), val_loss=(evals, val)))
    assert d.verdict == "overfit"
    assert "distribution_mismatch" not in {f.label for f in d.findings}


def test_spikes_lead_an_overfit_beside_them_and_both_stay():
    rise = _f("overfit", val_min_step=50, val_rise_z=8.0)
    spikes = _f("loss_spikes", first_step=40)
    ordered = apply_leads([rise, _f("plateau"), spikes])
    assert [f.label for f in ordered] == ["loss_spikes", "overfit", "plateau"]
    # a more severe label still comes first
    ordered = apply_leads([_f("exploding"), rise, spikes])
    assert [f.label for f in ordered] == ["exploding", "loss_spikes", "overfit"]


def test_a_clear_val_rise_that_began_before_the_first_spike_is_not_led_by_it():
    # dev loss rising 133% from epoch 7 (31 sigmas); one train spike at epoch 88: the
    # overfitting came first, and the spike did not cause it
    rise = _f("overfit", val_min_step=7, val_rise_z=31.0)
    late = _f("loss_spikes", first_step=88)
    assert [f.label for f in apply_leads([rise, late])] == ["overfit", "loss_spikes"]
    # a rise within the noise is still read after the spikes, wherever they fall
    unclear = _f("overfit", val_min_step=31, val_rise_z=1.6)
    assert [f.label for f in apply_leads([unclear, late])] == ["loss_spikes", "overfit"]
    # a val-only spike before a clear rise moved no weights: the rise leads
    eval_blip = _f("loss_spikes", first_step=3, series="val")
    rise_after = _f("overfit", val_min_step=11, val_rise_z=9.0)
    assert [f.label for f in apply_leads([rise_after, eval_blip])] == ["overfit", "loss_spikes"]
    assert [f.label for f in apply_leads([unclear, eval_blip])] == ["loss_spikes", "overfit"]


def test_uncorrelated_swings_of_a_loss_that_never_moved_are_its_noise_not_oscillation():
    flat = _f("plateau", kind="flat_from_start")
    noise = apply_explains([flat, _f("oscillating", lag1=-0.12, points=118)])
    assert [f.label for f in noise] == ["plateau"]
    assert noise[0].evidence["explains"][0]["label"] == "oscillating"
    # swings that carry over to the next log (weights thrown back and forth) stay oscillation
    swings = apply_explains([flat, _f("oscillating", lag1=0.6, points=118)])
    assert [f.label for f in swings] == ["oscillating"]
    # and a loss that fell before it stalled learned something: the stall is the swings'
    stall = apply_explains([_f("plateau", kind="stuck_after_drop"), _f("oscillating", lag1=0.0)])
    assert [f.label for f in stall] == ["oscillating"]


def test_diagnose_calls_a_per_step_loss_at_chance_with_batch_noise_a_plateau():
    """A binary classifier stuck at ln 2, logged every 50 steps at batch size 32: each log is
    one batch's loss, scattered by about 20% around a level that never moves."""
    steps = np.arange(49, 6000, 50)
    loss = np.log(2) * np.exp(0.2 * RNG.standard_normal(len(steps)))
    d = diagnose(frame_of(loss=(steps, loss)))
    assert d.verdict == "plateau" and "oscillating" not in d.labels
    # the same level swinging in a slow cycle over 8 logs is an oscillation
    cycle = np.log(2) * (1 + 0.3 * np.sin(2 * np.pi * np.arange(len(steps)) / 8))
    d = diagnose(frame_of(loss=(steps, cycle)))
    assert d.verdict == "oscillating"


def test_a_flat_val_loss_beside_a_metric_that_improves_is_the_mismatch_not_a_plateau():
    mismatch = _f("metric_mismatch", direction="metric_improves")
    out = apply_explains([_f("plateau", kind="flat_from_start", series="val"), mismatch])
    assert [f.label for f in out] == ["metric_mismatch"]
    assert out[0].evidence["explains"][0]["label"] == "plateau"
    # near misses: a plateau read on the training loss, or a mismatch the other way, stay
    train = apply_explains([_f("plateau", kind="flat_from_start", series="train"), mismatch])
    assert {f.label for f in train} == {"plateau", "metric_mismatch"}
    other_way = _f("metric_mismatch", direction="loss_improves")
    val = apply_explains([_f("plateau", kind="flat_from_start", series="val"), other_way])
    assert {f.label for f in val} == {"plateau", "metric_mismatch"}


def test_diagnose_reads_a_valid_log_whose_loss_is_flat_while_bleu_climbs_as_a_mismatch():
    # Marian's valid.log, a window from update 16000: cross-entropy flat at 1.57-1.63 while
    # BLEU climbs 45.3 -> 49.6 (the only curves logged)
    steps = np.arange(16000, 28000, 2000)
    ce = np.array([1.62407, 1.57675, 1.56571, 1.5797, 1.60316, 1.62924])
    bleu = np.array([45.3174, 46.9387, 48.0642, 48.8603, 49.2167, 49.584])
    d = diagnose(frame_of(val_loss=(steps, ce), val_bleu=(steps, bleu)))
    assert d.verdict == "metric_mismatch"
    assert "plateau" not in [f.label for f in d.findings]


def test_a_loss_that_oscillates_explains_the_jumps_spikes_saw_in_it():
    """Adam at 80x its LR bounces the loss around a flat trend: each swing is a jump the
    spike check finds. On the same loss the jumps are the swings, one problem reported once;
    a validation spike beside a training loss's swings is another loss's, and stays."""
    same = apply_explains([_f("oscillating", series="train"), _f("loss_spikes", series="train")])
    assert [f.label for f in same] == ["oscillating"]
    assert same[0].evidence["explains"][0]["label"] == "loss_spikes"
    other = apply_explains([_f("oscillating", series="train"), _f("loss_spikes", series="val")])
    assert sorted(f.label for f in other) == ["loss_spikes", "oscillating"]


def test_underfit_explains_a_validation_loss_held_at_chance_beside_a_climbing_metric():
    """A small CNN on 7 classes: its val loss stays near ln 7 (1.94 -> 1.85) while accuracy
    climbs 14% -> 30%, and its training loss kept 91% of its start. The loss near chance is
    the underfitting, the metric's climb the little it learned. A mismatch read otherwise (the
    loss improved, the metric did not) is a fact of its own and stays."""
    at_chance = _f("metric_mismatch", direction="metric_improves", loss_at_chance=7)
    out = apply_explains([_f("underfit"), at_chance])
    assert [f.label for f in out] == ["underfit"]
    assert out[0].evidence["explains"][0]["label"] == "metric_mismatch"
    other = _f("metric_mismatch", direction="loss_improves", loss_at_chance=None)
    assert sorted(f.label for f in apply_explains([_f("underfit"), other])) == [
        "metric_mismatch",
        "underfit",
    ]
