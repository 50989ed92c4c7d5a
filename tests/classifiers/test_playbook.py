import pytest
from lossforensics.classifiers.diagnosis import Finding
from lossforensics.classifiers.labels import PROBES, SEVERITY
from lossforensics.classifiers.playbook import PLAYBOOK, TIERS, attach_causes, rank_causes


def test_every_label_has_ranked_causes_with_checks_and_known_probes():
    assert set(PLAYBOOK) == set(SEVERITY)
    for label in SEVERITY:
        causes = rank_causes(label)
        assert len(causes) >= 3, label
        assert [c.rank for c in causes] == list(range(1, len(causes) + 1))
        assert all(0.0 <= c.score <= 1.0 and c.checks for c in causes)
        assert {c.probe for c in causes} <= {*PROBES, None}
        assert any(c.probe for c in causes), label
    assert rank_causes("healthy") == ()


@pytest.mark.parametrize("label", SEVERITY)
def test_without_evidence_advice_starts_with_data_or_model_or_procedure(label):
    top = rank_causes(label)[0]
    rule = next(r for r in PLAYBOOK[label] if r.cause == top.cause)
    if label not in {"exploding", "oscillating", "over_clipping"}:  # these are LR evidence
        assert TIERS.index(rule.tier) < TIERS.index("hyperparameters"), (label, top.cause)


def test_nan_ranking_follows_the_grad_norm():
    blowup = rank_causes("nan", {"grad_norm_jump": 50.0, "grad_norm_calm": False})
    assert blowup[0].probe == "lr_drop"
    calm = rank_causes("nan", {"grad_norm_jump": 1.1, "grad_norm_calm": True})
    assert calm[0].probe in {"batch_inspect", "nan_origin"}
    assert [c.probe for c in calm].index("lr_drop") >= 3
    early = rank_causes("nan", {"early": True})
    assert {early[0].probe, early[1].probe} <= {"batch_inspect", "activation_health"}


def test_plateau_ranking_follows_its_kind():
    flat = rank_causes("plateau", {"kind": "flat_from_start"})
    assert flat[0].probe == "overfit_one_batch" and "gradient" in flat[0].cause
    # a short log held at chance level learned nothing from the start: the same causes
    at_chance = rank_causes("plateau", {"kind": "held_at_chance"})
    assert [c.cause for c in at_chance] == [c.cause for c in flat]
    stuck = rank_causes("plateau", {"kind": "stuck_after_drop", "lr_final_ratio": 0.001})
    assert stuck[0].probe == "lr_range_test"
    # a held-out score's stall beside a falling training loss: the loop works, stop earlier
    held = rank_causes("plateau", {"kind": "held_out_stall"})
    assert "held-out metric stopped improving" in held[0].cause
    assert "early stopping" in held[0].checks[0]
    assert all("gradient" not in c.cause for c in held[:2])
    # the cause is not offered for a flat training loss
    assert "held-out" not in rank_causes("plateau", {"kind": "flat_from_start"})[0].cause
    # a held-out score frozen at one value: one answer for every input, then frozen weights
    frozen = rank_causes("plateau", {"kind": "frozen_predictions"})
    assert "majority class" in frozen[0].cause and "gradient" in frozen[1].cause
    assert "majority class" not in flat[0].cause
    # a flat loss beside a score that learned: updates reach the weights, the loss is wrong
    learned = {"kind": "flat_from_start", "score_start": 0.1, "score_end": 0.9}
    ranked = rank_causes("plateau", learned)
    assert "probabilities rather than logits" in ranked[0].cause
    assert "gradient reaches" not in ranked[1].cause
    assert "probabilities" not in flat[0].cause


def test_spikes_in_validation_only_point_at_eval_mode():
    assert rank_causes("loss_spikes", {"series": "val"})[0].probe == "train_eval_parity"
    assert rank_causes("loss_spikes", {"series": "train"})[0].probe == "batch_inspect"


def test_b_labels_read_the_keys_their_classifiers_emit():
    early = rank_causes("overfit", {"val_min_fraction": 0.1})[0]
    late = rank_causes("overfit", {"val_min_fraction": 0.8})[0]
    assert "data" in early.cause and "early stopping" in late.cause
    assert "scheduler" in rank_causes("resume_discontinuity", {"lr_jump": True})[0].cause.lower()
    # a val metric still improving after the loss minimum: stop on the metric, not the loss
    confident = rank_causes("overfit", {"val_min_fraction": 0.2, "score_gain_after_min_z": 9.8})
    assert (
        "over-confident" in confident[0].cause
        and "not the one at the loss" in (confident[0].checks[0])
    )
    assert "over-confident" not in rank_causes("overfit", {"score_gain_after_min_z": -2.0})[0].cause
    assert "plateau" in rank_causes("lr_decayed_too_early", {"cuts": 4})[0].cause


def test_garbage_evidence_moves_nothing_and_attach_keeps_the_finding():
    assert rank_causes("nan", {"grad_norm_jump": "n/a", "early": None}) == rank_causes("nan")
    f = Finding("nan", 0.9, None, {"early": True}, "x")
    g = attach_causes(f)
    assert g.causes == rank_causes("nan", {"early": True}) and f.causes == ()
    assert (g.label, g.confidence, g.summary) == (f.label, f.confidence, f.summary)


def _positives():
    """One run each label of engineer A's fires on, with every role its evidence can read."""
    import numpy as np
    from lossforensics.classifiers.registry import get

    from tests.classifiers._labelled import judge, run_of

    rng = np.random.default_rng(0)
    s = np.arange(1200)
    lr, grad = np.full(len(s), 1e-3), 1 + 0.05 * rng.standard_normal(len(s))
    base = 0.4 + 2 * np.exp(-s / 200) + 0.02 * rng.standard_normal(len(s))
    nan = base.copy()
    nan[900:] = np.nan
    boom = base.copy()
    boom[700:] += np.linspace(0, 8, 500)
    flat = np.r_[2.3 * np.exp(-s[:100] / 20) + 0.7, np.full(1100, 0.7)] + 0.002 * rng.random(1200)
    osc = 1.2 + 0.4 * np.sin(s / 6.0)
    spikes = base.copy()
    spikes[[300, 600, 900]] *= 6
    saw = 0.5 + np.exp(-s / 300) + 0.4 * np.exp(-(s % 48) / 3.0)
    ep = np.arange(20)
    under = 1.1 + 0.5 * np.exp(-ep / 1.5)
    cases = {
        "nan": run_of(loss=(s, nan), grad_norm=(s, grad), lr=(s, lr)),
        "exploding": run_of(loss=(s, boom), grad_norm=(s, grad * (1 + (s > 700) * s / 50))),
        "plateau": run_of(loss=(s, flat), lr=(s, lr)),
        "oscillating": run_of(loss=(s, osc)),
        "loss_spikes": run_of(loss=(s, spikes)),
        "unshuffled": run_of(loss=(s, saw), epoch=(s, s / 48)),
        "underfit": run_of(loss=(ep, under), val_loss=(ep, under * 1.01)),
    }
    return {label: judge(get(label)(), run) for label, run in cases.items()}


READS = {
    "nan": {"early", "grad_norm_jump", "grad_norm_calm", "loss_rise_before", "recovered"},
    "exploding": {"early", "grad_norm_growth", "ends_nonfinite", "sudden"},
    "plateau": {"kind", "lr_final_ratio"},
    "oscillating": {"amplitude_ratio", "lag1"},
    "loss_spikes": {"count", "series", "max_rise_ratio"},
    "unshuffled": {"epoch_match", "strength"},
    "underfit": {"improvement", "gap_ratio"},
}


def test_the_evidence_the_playbook_reads_is_what_the_classifiers_emit():
    for label, finding in _positives().items():
        assert finding is not None, label
        missing = READS[label] - set(finding.evidence)
        assert not missing, (label, missing)
