"""The playbook: for each label, the candidate causes, ranked by this run's evidence.

Every label in classifiers.labels.SEVERITY has a list of `Rule`s (one per candidate cause):
a prior score, a tier from the debugging hierarchy (data, model, procedure, hyper-parameters:
most failures sit in the first two, so advice starts there unless the evidence says otherwise),
the first checks a person runs, the probe that automates one of them, and a `weigh` function
that moves the prior using the finding's evidence. Scores are clipped to [0, 1]; causes are
ranked by score, ties broken by tier order.

Evidence keys the ranking reads (a classifier should emit those it can measure; a missing key
simply leaves the prior unchanged):

    nan          early (bool: within the first steps), grad_norm_jump (grad norm just before /
                 its earlier median), grad_norm_calm (bool), loss_rise_before (rise of the loss
                 before the NaN, in units of the curve's range), recovered (bool)
    exploding    early (bool), grad_norm_growth (late / early grad norm), ends_nonfinite (bool),
                 sudden (bool: most of the rise in a few points), kind ('blow_up' |
                 'slow_divergence' | 'warmup_overshoot' | 'unbounded_fall')
    plateau      kind ('flat_from_start' | 'stuck_after_drop' | 'held_out_stall' |
                 'frozen_predictions' | 'held_at_chance'), lr_final_ratio (last / peak LR)
    oscillating  amplitude_ratio (swing / net movement), lag1 (residual autocorrelation)
    loss_spikes  count, series ('train' | 'val'), max_rise_ratio
    unshuffled   epoch_match (bool: period equals the epoch length), strength
    underfit     improvement (fraction of the initial loss removed), gap_ratio
    overfit      val_min_fraction (where val bottoms out, 0..1 of the run), val_rise_pct
    distribution_mismatch  val_improvement_pct (or val_flat), correlation (train vs val)
    lr_decayed_too_early   lr_drop_factor (peak / final LR), decay_fraction (0..1 of the run
                 where the LR fell), cuts (number of step cuts)
    vanishing_gradients    grad_norm_decay (early / late grad norm)
    over_clipping          clip_fraction (share of steps above the threshold)
    resume_discontinuity   lr_jump (bool: the LR restarted too), loss_jump (in noise sigmas)
    metric_mismatch        direction ('loss_improves' | 'metric_improves' |
                           'loss_rises_metric_improves')
"""

from __future__ import annotations

from dataclasses import replace

from lossforensics.classifiers.diagnosis import SCORE_DECIMALS, Cause, Finding
from lossforensics.classifiers.labels import PROBES, SEVERITY
from lossforensics.classifiers.playbook._rules import TIERS, Rule
from lossforensics.classifiers.playbook.generalisation import RULES as _GENERALISATION
from lossforensics.classifiers.playbook.optimisation import RULES as _OPTIMISATION
from lossforensics.classifiers.playbook.progress import RULES as _PROGRESS

PLAYBOOK: dict[str, tuple[Rule, ...]] = {**_OPTIMISATION, **_PROGRESS, **_GENERALISATION}

_missing = set(SEVERITY) - set(PLAYBOOK)
if _missing:  # pragma: no cover - guarded by tests; fails at import, never silently
    raise RuntimeError(f"playbook has no causes for: {sorted(_missing)}")
_named_probes = {r.probe for rules in PLAYBOOK.values() for r in rules if r.probe is not None}
_bad_probes = _named_probes - set(PROBES)
if _bad_probes:  # pragma: no cover
    raise RuntimeError(f"playbook names unknown probes: {sorted(_bad_probes)}")


def rank_causes(label: str, evidence: dict | None = None) -> tuple[Cause, ...]:
    """The label's causes, scored from `evidence`, best first (empty for an unknown label).
    A cause that scores 0 is left out: it holds only when its evidence is there (a validation
    metric still improving, a held-out score's stall), and this run's evidence rules it out."""
    ev = dict(evidence or {})
    scored = [
        (score, TIERS.index(rule.tier), i, rule)
        for i, rule in enumerate(PLAYBOOK.get(label, ()))
        if (score := rule.score(ev)) > 0.0
    ]
    scored.sort(key=lambda t: (-t[0], t[1], t[2]))
    return tuple(
        Cause(rank, rule.cause, round(score, SCORE_DECIMALS), rule.checks, rule.probe)
        for rank, (score, _, _, rule) in enumerate(scored, start=1)
    )


def attach_causes(finding: Finding) -> Finding:
    """The finding with its ranked causes filled in."""
    return replace(finding, causes=rank_causes(finding.label, finding.evidence))


__all__ = ["PLAYBOOK", "TIERS", "Rule", "attach_causes", "rank_causes"]
