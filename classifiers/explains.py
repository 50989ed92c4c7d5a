"""Which finding explains which: one problem is reported once, by its cause.

Several checks can see the same problem from different sides: a run whose LR was cut too early
also looks flat (plateau) and stuck high (underfit); a model that never learned anything is
flat from its first step (plateau) and high (underfit) at once; a loss that swings without a
trend is high because it swings (oscillating, then underfit). Reporting each as its own label
makes one problem look like several and can put the consequence in the verdict above its cause.

`EXPLAINS` is the one table of those relations. `apply_explains(findings)` removes every
finding that another finding of the same run explains and records it in the explaining
finding's evidence under `explains` (label, confidence, summary, why), so the user still reads it,
as evidence of the cause rather than as a second diagnosis. A rule may carry a condition on the
two findings' evidence (plateau explains underfit only when the loss never moved; underfit
explains a plateau that came after a drop); conditions of opposite rules exclude each other, so
two findings never explain each other away.

The table, cause -> consequence, and why it holds in general:

- lr_decayed_too_early -> plateau, underfit: the stall begins where the LR fell; the LR cut is
  what to fix.
- vanishing_gradients -> plateau, underfit: the loss stops because no gradient reaches the
  weights.
- plateau (flat from the first step, never below its first logged level, or a short log held
  at chance level) -> underfit: a loss that never moved did not learn a little and stall;
  nothing was learned (a wiring bug before a capacity one).
- underfit -> plateau (stuck after a drop): a model that fits its training data only partly
  stalls high; the stall is how underfitting looks, not a second problem.
- plateau -> distribution_mismatch, when the loss never got below its first logged value (its
  best level is at least `AT_START_LEVEL` of it): a loss pinned at chance level (the entropy of
  the class prior, often after an early blow-up) learned nothing, whatever the val does.
- metric_mismatch -> plateau, when the plateau was read on the validation loss (the training
  loss too sparse) and the mismatch is that loss's flatness beside a held-out metric that
  improved: the flat curve is the mismatch's evidence, and by the metric the run still learns.
- oscillating -> underfit, plateau: the trend is flat and high because the loss swings.
- plateau -> oscillating, when the loss learned nothing (as for underfit above) and its swings
  are uncorrelated from one log to the next (their lag-1 autocorrelation inside white noise's
  95% band, `WHITE_NOISE_Z`/sqrt(points)): each log is one small batch's loss scattered around
  a level that never moved, which is a plateau however noisy each log is; swings that carry
  over to the next log are weights thrown back and forth, and stay oscillation.
- nan -> underfit, when the training loss went non-finite and stayed so: the run was cut short,
  so where its loss stood before is no verdict on what the model could fit.
- oscillating -> overfit, when overfit saw only a stall (its val rose by under `OVERFIT_CLEAR_Z`
  sigmas) or read the rise from 2-4 evaluations, too few to measure their noise: an unstable
  run's val goes up and down with its weights; a gap read from that is the swing's. A clear rise
  stays overfit.
- oscillating -> loss_spikes, when both read the same loss (training or validation): a loss
  that swings by a tenth of its level or more around a trend that barely moves jumps at every
  swing; the jumps are the swings, not bad batches.
- underfit -> metric_mismatch, when the mismatch is a validation loss held near a classifier's
  chance level (`loss_at_chance`) while the metric improved: a model that fits its training data
  only partly keeps its loss near chance, and the metric's climb is the little it learned; the
  loss is not blind to it.
- unshuffled -> loss_spikes, when the sawtooth stays raised over its own period (at least
  `SPIKE_WIDTH` of it): the jumps are its rising edges, not bad batches.
- resume_discontinuity -> exploding, loss_spikes: the jump sits at a restart; the restart lost
  optimizer or scheduler state.
- resume_discontinuity -> oscillating, when the log holds `MANY_RESTARTS` (3) restarts or more:
  appended sessions each start their loss again, and that bounce is what the swing reads.
- overfit -> distribution_mismatch, when the val loss fell by overfit's `VAL_DROP_Z` (2) sigmas with
  the training loss before the minimum it rose from (and the mismatch was read from the losses,
  not the scores): the curves moved together, then apart, which is overfitting; a val set unlike
  the training data never follows it.
- exploding -> oscillating, when the swings' trend rose, or the loss blew up within the first
  `DIVERGED_EARLY` (a tenth) of the run: a diverged loss bounces at the level it blew up to; the
  swings are the divergence's.
- exploding -> unshuffled, when the loss blew up within the first `DIVERGED_EARLY` of the run:
  the epoch shape is folded from the diverged loss, whose bounce at a huge effective step tracks
  whatever batch it is on; the divergence is what to fix, and the sawtooth stays readable in
  its evidence.
- exploding -> vanishing_gradients, when the loss ended above where it started: gradients that
  shrink while the loss climbs are the blow-up's saturated units (dead ReLUs, saturated gates),
  not a signal that cannot reach the weights; vanishing gradients stall a loss, they do not
  raise it.

`ACCOUNTED_SIGNS` maps a label's set-aside signs (Classifier.set_aside: what its check saw and
judged benign) to the findings whose own evidence already describes them, so the diagnosis
does not explain one thing twice in two ways: jumps of the loss that the loss_spikes check
judged batch noise are, beside an oscillating, unshuffled, exploding or resume_discontinuity
finding, that finding's swings, sawtooth edges, blow-up or restarts.

`LEADS` holds relations where both findings stay, each a fact the user must read, but the cause
leads the verdict although its label is less severe: exploding leads nan when the loss had
already blown up on finite values (past exploding's full threshold) before its first
non-finite one - the NaN is where the divergence ended, and the divergence is what to fix. A
NaN is never dropped: a non-finite loss is always reported. metric_mismatch leads overfit when the
val loss rose after its minimum while the val score kept improving: the model grows over-confident
on the examples it still gets wrong, but the metric the run is for is still getting better, so
which of the two to trust (and to stop on) is the first question; the rise stays reported as
overfit beside it. distribution_mismatch leads nan when every non-finite value is in the
validation loss (training stayed finite): the validation path is what is broken, and the NaN is
one of its symptoms (a validation generator that skips the training rescale overflows where
training does not). loss_spikes leads overfit: spikes are bad batches (corrupt or atypical
samples), a data problem, and the data is looked at before the training procedure and the
hyper-parameters that overfitting points to; each spike also kicks the weights that the next
evaluation measures, so a val rise beside spikes is read after them: when the first training-loss
spike came at or before the val minimum, or the rise is not clear (under `OVERFIT_CLEAR_Z` sigmas).
A clear rise that began before any spike, or beside val-only spikes, leads by severity. plateau
leads overfit when both read a held-out score that stood still while the training loss collapsed,
with no validation loss logged: the stall of the metric the run is for is what the log shows (stop
where it stalled); the memorisation is inferred beside it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace

from lossforensics.classifiers._spikes import SPIKE_WIDTH
from lossforensics.classifiers.diagnosis import SCORE_DECIMALS, Finding, SetAside
from lossforensics.classifiers.overfit import VAL_DROP_Z

# A loss whose best level kept at least this share of the first logged loss (the untrained model's,
# chance level for a classifier) learned nothing: 1 - plateau's 3% "no real change" in log terms
AT_START_LEVEL = 0.97

# overfit's own bar for a clear rise of the val loss (Overfit's rise_z default, in sigmas)
OVERFIT_CLEAR_Z = 2.5

# A log with 3 restarts or more is a string of appended sessions: one restart is a resume, a
# run of them sets the curve's up-and-down shape on its own
MANY_RESTARTS = 3

# A loss that blew up within the first tenth of the run is the diverged loss for nine tenths of
# it: a pattern read across the run (epoch shape, swings) is read from the divergence
DIVERGED_EARLY = 0.1

# the two-sided 95% band of a white-noise series' autocorrelation is +-1.96/sqrt(n) (Bartlett)
WHITE_NOISE_Z = 1.96

# A restart within this share of the run's logged span of a jump's start is that jump's cause
# (the two checks place a jump at slightly different steps: a smoothed minimum vs a raw restart)
RESTART_NEAR = 0.05


def _learned_nothing(plateau: Finding) -> bool:
    """A plateau flat from its first step, or one whose loss never got below its first logged
    level (chance): a dip then a climb back (heavy weight decay) did learn, then lost it."""
    kept = plateau.evidence.get("best_kept")
    at_start = kept is not None and kept >= AT_START_LEVEL
    return plateau.evidence.get("kind") in ("flat_from_start", "held_at_chance") or at_start


def _flat_from_start(cause: Finding, effect: Finding) -> bool:
    return _learned_nothing(cause)


def _swings_are_noise(plateau: Finding, oscillating: Finding) -> bool:
    """The loss learned nothing (`_learned_nothing`) and its swings around the trend are
    uncorrelated from one log to the next: the residuals' lag-1 autocorrelation is inside the
    95% band of white noise, `WHITE_NOISE_Z`/sqrt(points). The swings are the noise of each
    logged estimate (small batches), not weights thrown back and forth by too large a step,
    which keep a swing going over the next log."""
    lag1, points = oscillating.evidence.get("lag1"), oscillating.evidence.get("points")
    if lag1 is None or lag1 != lag1 or not points:
        return False
    return _learned_nothing(plateau) and lag1 < WHITE_NOISE_Z / points**0.5


def _plateau_of_swings(cause: Finding, effect: Finding) -> bool:
    return not _swings_are_noise(effect, cause)


def _same_series(cause: Finding, effect: Finding) -> bool:
    """Both findings read the same loss (evidence `series`: 'train' or 'val')."""
    return cause.evidence.get("series", "train") == effect.evidence.get("series", "train")


def _loss_held_at_chance(cause: Finding, effect: Finding) -> bool:
    """metric_mismatch read a validation loss held near a classifier's chance level."""
    return effect.evidence.get("loss_at_chance") is not None


def _stuck_after_drop(cause: Finding, effect: Finding) -> bool:
    return not _learned_nothing(effect)


def _ended_non_finite(cause: Finding, effect: Finding) -> bool:
    """nan explains underfit when the training loss went non-finite and stayed so (not only
    the validation loss): the run was cut short, so where its loss stood before is no verdict
    on what the model could fit."""
    return not cause.evidence.get("recovered", True) and not cause.evidence.get("val_only")


def _flat_val_beside_a_metric_that_improves(cause: Finding, effect: Finding) -> bool:
    """metric_mismatch explains plateau when the plateau was read on the validation loss (the
    training loss too sparse to judge) and the mismatch is that loss's: flat while the held-out
    metric improved. The flat curve is the mismatch's evidence; by the metric the run is for,
    it still learns."""
    return (
        effect.evidence.get("series") == "val"
        and cause.evidence.get("direction") == "metric_improves"
    )


def _stuck_at_start_level(cause: Finding, effect: Finding) -> bool:
    """plateau explains distribution_mismatch: the train loss never got below its first logged
    value, so whatever 'improvement' the mismatch check saw was a recovery (from an early
    blow-up) to the chance level, and a val flat beside it is flat because nothing was learned."""
    kept = cause.evidence.get("best_kept")
    return kept is not None and kept >= AT_START_LEVEL


def _broad_sawtooth(cause: Finding, effect: Finding) -> bool:
    """unshuffled explains loss_spikes: its cycle stays raised over its own period (not only
    at a logged epoch), so the jumps are the sawtooth's rising edges."""
    width = cause.evidence.get("width")
    return width is not None and width == width and width >= SPIKE_WIDTH


def _blew_up_before_nan(cause: Finding, effect: Finding) -> bool:
    """exploding explains nan: the finite loss rose past exploding's full threshold, and rose
    before the first non-finite value."""
    first_bad = effect.evidence.get("first_nonfinite_step")
    full = cause.evidence.get("rise_full", True)
    return bool(full) and (first_bad is None or cause.evidence.get("min_step", 0) < first_bad)


def _at_a_restart(cause: Finding, effect: Finding) -> bool:
    """The jump (exploding's minimum, a spike's span) starts near the restart the resume check
    reports, or the resume check saw the scheduler restart with it."""
    resume = cause.evidence.get("resume_step")
    if resume is None or effect.span is None:
        return False
    lo, hi = effect.span.start_step, effect.span.end_step
    reach = RESTART_NEAR * max(hi - lo, abs(resume), 1)
    return lo - reach <= resume <= hi


def _rise_within_swings(cause: Finding, effect: Finding) -> bool:
    """oscillating explains overfit when overfit saw only a stall, no clear rise (its val rose
    by under `OVERFIT_CLEAR_Z` sigmas), or read the rise from a few evaluations whose noise it
    could not measure: an unstable run's val goes up and down with its weights, and a widening
    gap read from that is the swing's."""
    if effect.evidence.get("reading") == "few_evaluations":  # no noise to measure a rise by
        return True
    rise = effect.evidence.get("val_rise_z")
    return rise is not None and rise < OVERFIT_CLEAR_Z


def _spikes_came_first(cause: Finding, effect: Finding) -> bool:
    """loss_spikes leads overfit when its first spike, in the training loss, came at or before
    the validation minimum the rise starts from (each spike kicks the weights the next
    evaluation measures: the rise is read after them), or when overfit saw no clear rise
    (`_rise_within_swings`). A clear rise that began before any spike, or beside spikes in the
    validation loss only (an evaluation moves no weights), is overfitting the spikes did not
    cause."""
    low, first = effect.evidence.get("val_min_step"), cause.evidence.get("first_step")
    trained = cause.evidence.get("series") != "val"
    if trained and low is not None and first is not None and first <= low:
        return True
    return _rise_within_swings(cause, effect)


def _trend_rose(cause: Finding, effect: Finding) -> bool:
    """exploding explains oscillating when the swings' trend rose (oscillating's
    `trend_progress` below zero): a diverged loss bouncing at its new level."""
    progress = effect.evidence.get("trend_progress")
    return progress is not None and progress < 0


def _diverged_from_start(cause: Finding, effect: Finding) -> bool:
    """exploding explains a pattern read across the run (an epoch sawtooth, swings) when the loss
    blew up (kind `blow_up`, past exploding's full threshold) within the first `DIVERGED_EARLY`
    of the run: nearly every point folded or measured is the diverged loss, whose batch-to-batch
    bounce at a huge effective step makes any fixed batch order show as an epoch shape."""
    ev = cause.evidence
    return (
        ev.get("kind") == "blow_up"
        and bool(ev.get("rise_full", False))
        and ev.get("min_fraction", 1.0) <= DIVERGED_EARLY
    )


def _bounces_after_blow_up(cause: Finding, effect: Finding) -> bool:
    """exploding explains oscillating: the swings' trend rose (`_trend_rose`), or the loss blew
    up at the run's start and swings at its diverged level (`_diverged_from_start`)."""
    return _trend_rose(cause, effect) or _diverged_from_start(cause, effect)


def _loss_climbed(cause: Finding, effect: Finding) -> bool:
    """exploding explains vanishing_gradients: the loss ended above its start (the vanishing
    check's `loss_progress`, the share of the starting loss removed, is negative)."""
    progress = effect.evidence.get("loss_progress")
    return progress is not None and progress < 0


def _metric_still_improves(cause: Finding, effect: Finding) -> bool:
    """metric_mismatch leads overfit: its val loss rose after its minimum while the val score
    kept improving (direction `loss_rises_metric_improves`)."""
    return cause.evidence.get("direction") == "loss_rises_metric_improves"


def _val_only_nan(cause: Finding, effect: Finding) -> bool:
    """distribution_mismatch leads nan: every non-finite value is in the validation loss
    (nan's `val_only`); training stayed finite, so the NaN is the broken validation path's."""
    return bool(effect.evidence.get("val_only"))


def _held_out_stall(cause: Finding, effect: Finding) -> bool:
    """plateau leads overfit when both read the same held-out score's stall (no val loss):
    the stall is what the log measured, the memorisation is inferred beside it."""
    return (
        cause.evidence.get("kind") == "held_out_stall"
        and effect.evidence.get("reading") == "held_out_stall"
    )


def _val_followed_first(cause: Finding, effect: Finding) -> bool:
    """overfit explains distribution_mismatch (its loss reading) when the val loss fell with the
    training loss, by `VAL_DROP_Z` sigmas, before the minimum it rose from: the two
    curves moved together until the model began to memorise, which is overfitting's shape; a
    mismatched val set never follows. A mismatch read from the scores stays."""
    drop = cause.evidence.get("val_drop_before_z")
    return drop is not None and drop >= VAL_DROP_Z and effect.evidence.get("reading") != "scores"


def _many_restarts(cause: Finding, effect: Finding) -> bool:
    """resume_discontinuity explains oscillating when the log holds `MANY_RESTARTS` restarts or
    more: sessions appended one after another each start their loss again, and the bounce from
    one session to the next is what the swing measure reads."""
    return int(cause.evidence.get("restarts", 0)) >= MANY_RESTARTS


@dataclass(frozen=True)
class Explains:
    """`cause` explains `effect` (when `when(cause_finding, effect_finding)` holds)."""

    cause: str
    effect: str
    why: str
    when: Callable[[Finding, Finding], bool] | None = None

    def holds(self, cause: Finding, effect: Finding) -> bool:
        return self.when is None or self.when(cause, effect)


EXPLAINS: tuple[Explains, ...] = (
    Explains("lr_decayed_too_early", "plateau", "the loss stalled where the LR was cut"),
    Explains("lr_decayed_too_early", "underfit", "the loss stayed high after the LR was cut"),
    Explains("vanishing_gradients", "plateau", "no gradient reaches the weights"),
    Explains("vanishing_gradients", "underfit", "no gradient reaches the weights"),
    Explains("plateau", "underfit", "the loss never moved: nothing was learned", _flat_from_start),
    Explains("underfit", "plateau", "an underfitting model stalls high", _stuck_after_drop),
    Explains(
        "plateau",
        "distribution_mismatch",
        "the loss is stuck at its untrained level",
        _stuck_at_start_level,
    ),
    Explains("oscillating", "underfit", "the trend is high because the loss swings"),
    Explains("oscillating", "loss_spikes", "the jumps are the loss's swings", _same_series),
    Explains(
        "underfit",
        "metric_mismatch",
        "a model that barely fits keeps its loss near chance while the metric climbs a little",
        _loss_held_at_chance,
    ),
    Explains("nan", "underfit", "the run ended non-finite: it was cut short", _ended_non_finite),
    Explains(
        "oscillating", "plateau", "the trend is flat because the loss swings", _plateau_of_swings
    ),
    Explains(
        "plateau",
        "oscillating",
        "the swings are the noise of a loss that never moved beyond it",
        _swings_are_noise,
    ),
    Explains(
        "metric_mismatch",
        "plateau",
        "the validation loss is flat while the metric the run is for improves",
        _flat_val_beside_a_metric_that_improves,
    ),
    Explains("unshuffled", "loss_spikes", "the jumps are the sawtooth's edges", _broad_sawtooth),
    Explains("resume_discontinuity", "exploding", "the jump is at a restart", _at_a_restart),
    Explains("resume_discontinuity", "loss_spikes", "the jump is at a restart", _at_a_restart),
    Explains(
        "resume_discontinuity",
        "oscillating",
        "the swings are sessions restarting, one after another",
        _many_restarts,
    ),
    Explains(
        "oscillating",
        "overfit",
        "the val's rise is within the swings of an unstable run",
        _rise_within_swings,
    ),
    Explains(
        "overfit",
        "distribution_mismatch",
        "the val loss fell with the training loss before it rose: it followed, then overfit",
        _val_followed_first,
    ),
    Explains(
        "exploding",
        "oscillating",
        "the loss bounces at the level it blew up to",
        _bounces_after_blow_up,
    ),
    Explains(
        "exploding",
        "unshuffled",
        "the epoch shape is read from a loss that diverged at the start",
        _diverged_from_start,
    ),
    Explains(
        "exploding",
        "vanishing_gradients",
        "the gradients vanished in units the blow-up saturated",
        _loss_climbed,
    ),
)

# a set-aside sign of the key's label is dropped beside a finding of any of these labels: that
# finding's evidence describes the same sign (the module docstring says why)
ACCOUNTED_SIGNS: dict[str, frozenset[str]] = {
    "loss_spikes": frozenset({"oscillating", "unshuffled", "exploding", "resume_discontinuity"}),
}


def unaccounted(set_aside: list[SetAside], findings: list[Finding]) -> list[SetAside]:
    """The set-aside signs no finding accounts for (ACCOUNTED_SIGNS). Order is kept."""
    found = {f.label for f in findings}
    return [s for s in set_aside if not ACCOUNTED_SIGNS.get(s.label, frozenset()) & found]


# Both findings stay (each is a fact the user should read), but the cause leads the verdict
# although its label is less severe.
LEADS: tuple[Explains, ...] = (
    Explains("exploding", "nan", "the NaN ends a blow-up", _blew_up_before_nan),
    Explains(
        "metric_mismatch",
        "overfit",
        "the val loss rises while the metric the run is for still improves",
        _metric_still_improves,
    ),
    Explains(
        "distribution_mismatch",
        "nan",
        "only the validation loss went non-finite, on data unlike the training data",
        _val_only_nan,
    ),
    Explains(
        "plateau",
        "overfit",
        "the held-out score stopped improving; the memorisation is read beside it",
        _held_out_stall,
    ),
    Explains(
        "loss_spikes",
        "overfit",
        "bad batches are a data problem, looked at before the training procedure; each spike "
        "also moves the weights the validation loss is measured on",
        _spikes_came_first,
    ),
)


def explainer(effect: Finding, findings: Iterable[Finding]) -> tuple[Finding, Explains] | None:
    """The first finding (in the order given) that explains `effect`, with its rule."""
    for cause in findings:
        if cause is effect:
            continue
        for rule in EXPLAINS:
            if rule.cause == cause.label and rule.effect == effect.label:
                if rule.holds(cause, effect):
                    return cause, rule
    return None


def apply_explains(findings: list[Finding]) -> list[Finding]:
    """The findings no other finding explains; each explained one moves into the evidence
    (`explains`: label, confidence, summary, why) of the finding at the root of its chain of
    explainers (lr_decayed_too_early explains plateau, which explains underfit: both go to the
    LR cut). A chain that loops explains nothing. Order is kept."""
    direct = {id(f): got for f in findings if (got := explainer(f, findings)) is not None}
    moved: dict[int, list[dict]] = {}
    kept: list[Finding] = []
    for f in findings:
        root, seen = f, {id(f)}
        while id(root) in direct:
            root = direct[id(root)][0]
            if id(root) in seen:  # a loop: nobody at its root
                root = f
                break
            seen.add(id(root))
        if root is f:
            kept.append(f)
            continue
        moved.setdefault(id(root), []).append(
            {
                "label": f.label,
                "confidence": round(float(f.confidence), SCORE_DECIMALS),
                "summary": f.summary,
                "why": direct[id(f)][1].why,
            }
        )
    return [
        replace(f, evidence={**f.evidence, "explains": moved[id(f)]}) if id(f) in moved else f
        for f in kept
    ]


def apply_leads(findings: list[Finding]) -> list[Finding]:
    """`findings` (ordered) with each LEADS cause moved just before its effect when the rule
    holds and the effect came first."""
    out = list(findings)
    for rule in LEADS:
        causes = [f for f in out if f.label == rule.cause]
        effects = [f for f in out if f.label == rule.effect]
        if not causes or not effects or not rule.holds(causes[0], effects[0]):
            continue
        i, j = out.index(effects[0]), out.index(causes[0])
        if i < j:
            out.insert(i, out.pop(j))
    return out
