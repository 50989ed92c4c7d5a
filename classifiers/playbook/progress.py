"""Causes for the labels where training stops making progress: plateau, underfit,
lr_decayed_too_early, unshuffled."""

from __future__ import annotations

from lossforensics.classifiers.playbook._rules import Evidence, Rule, above, below, flag


def _flat_start(ev: Evidence) -> bool:
    """Nothing learned from the start: a flat loss, or a short log held at chance level."""
    return ev.get("kind") in ("flat_from_start", "held_at_chance")


def _stuck(ev: Evidence) -> bool:
    return ev.get("kind") == "stuck_after_drop"


def _score_learned(ev: Evidence) -> bool:
    """A loss flat from the start beside a score that climbed toward its bound: the weights
    were updated, and the loss is what does not move (classifiers._score_learned)."""
    return _flat_start(ev) and "score_start" in ev


def _held_out(ev: Evidence) -> bool:
    """The stall is a held-out score's, beside a training loss that kept falling: the training
    loop works, the extra training did not generalise."""
    return ev.get("kind") == "held_out_stall"


def _frozen(ev: Evidence) -> bool:
    """A held-out score identical at every evaluation: the model's answers never changed."""
    return ev.get("kind") == "frozen_predictions"


# Priors: near even (0.15-0.3): the kind of plateau decides. Flat from the start points at a
# training loop that does not update (+0.45), labels, or an LR so high it sits at a trivial
# solution; stuck after a drop at capacity and an LR too low, all the more when the LR ended
# below 5% of its peak. A held-out score's stall beside a training loss still falling puts
# training past the point where it stopped paying off first (+0.6) and the causes of a flat
# training loss last (-0.2: that loss did fall). A held-out score frozen at one value puts a model
# that answers one class for every input first (+0.6), weights that are not updated next (+0.2).
# A loss flat from the start beside a score that learned puts a loss that does not measure the
# learning first (+0.7) and the weights-not-updated causes back (-0.5: the score shows updates).
PLATEAU = (
    Rule(
        "the loss does not measure what the model learns: it is computed on probabilities "
        "rather than logits (a softmax before CrossEntropyLoss, a sigmoid before "
        "BCEWithLogitsLoss), so its gradient all but vanishes, or the logged value is not the "
        "loss being minimised",
        "procedure",
        0.0,
        (
            "Print the model's output for one batch: CrossEntropyLoss and BCEWithLogitsLoss "
            "expect raw logits, so drop a softmax or sigmoid at the end of the model.",
            "Check that the value logged is the loss passed to backward().",
        ),
        None,
        lambda ev: 0.7 * _score_learned(ev),
    ),
    Rule(
        "the model gives one answer for every input (the majority class): imbalanced classes, "
        "a loss that does not weight them, or outputs collapsed by a too-high learning rate",
        "data",
        0.0,
        (
            "Count the predicted classes on the validation set: one class for every input is "
            "the collapse; compare the frozen score with that class's share.",
            "Weight the loss by class or resample the classes; divide the LR by 10.",
        ),
        "batch_inspect",
        lambda ev: 0.6 * _frozen(ev),
    ),
    Rule(
        "training went on after the held-out metric stopped improving: the model only "
        "memorises its training examples from there",
        "procedure",
        0.0,
        (
            "Keep the checkpoint where the held-out metric peaked and stop on that metric "
            "(early stopping).",
            "Log a validation loss beside the metric: the train-val gap opens where it stalled.",
            "More data, augmentation or regularisation if the metric must go higher.",
        ),
        None,
        lambda ev: 0.6 * _held_out(ev),
    ),
    Rule(
        "labels that do not match the inputs (shuffled apart, wrong column, wrong mapping)",
        "data",
        0.25,
        (
            "Look at a few samples with their labels; check the label distribution.",
            "Overfit one small batch: the loss must go to about 0.",
        ),
        "overfit_one_batch",
        lambda ev: 0.15 * _flat_start(ev) - 0.2 * _held_out(ev) - 0.2 * _score_learned(ev),
    ),
    Rule(
        "no gradient reaches the weights (detached graph, frozen parameters, optimizer "
        "built without them, zero_grad/backward/step misplaced)",
        "procedure",
        0.25,
        (
            "Check requires_grad on the parameters and that the optimizer's param groups "
            "hold them.",
            "Overfit one small batch: if the loss does not move, the wiring is broken.",
        ),
        "overfit_one_batch",
        lambda ev: (
            0.45 * _flat_start(ev)
            + 0.2 * _frozen(ev)
            - 0.1 * _stuck(ev)
            - 0.2 * _held_out(ev)
            - 0.5 * _score_learned(ev)
        ),
    ),
    Rule(
        "dead or saturated units (dead ReLUs, saturated sigmoids), or a capacity limit",
        "model",
        0.3,
        (
            "Measure the fraction of dead or saturated activations per layer.",
            "Try a wider or deeper model on a small subset.",
        ),
        "activation_health",
        lambda ev: 0.15 * _stuck(ev) - 0.2 * _held_out(ev),
    ),
    Rule(
        "learning rate too low, or the schedule already decayed it",
        "hyperparameters",
        0.25,
        ("Plot the LR; run an LR range test and restart from the stalled checkpoint.",),
        "lr_range_test",
        lambda ev: (
            0.2 * _stuck(ev) + 0.25 * below(ev, "lr_final_ratio", 0.05) - 0.2 * _held_out(ev)
        ),
    ),
    Rule(
        "learning rate so high that the model sits at a trivial solution",
        "hyperparameters",
        0.15,
        ("Divide the LR by 10 and compare the first few hundred steps.",),
        "lr_drop",
        lambda ev: 0.1 * _flat_start(ev) - 0.2 * _held_out(ev),
    ),
)

# Priors: a model too small (0.4) is the usual cause, more so when under 30% of the initial
# loss was removed; features, regularisation and the LR follow.
UNDERFIT = (
    Rule(
        "features that carry too little signal, or preprocessing that destroys it",
        "data",
        0.3,
        ("Check normalisation and that inputs reach the model as intended.",),
        "batch_inspect",
    ),
    Rule(
        "model too small for the task",
        "model",
        0.4,
        ("Train a larger model on a small subset; it should reach a much lower loss.",),
        "overfit_one_batch",
        lambda ev: 0.1 * below(ev, "improvement", 0.3),
    ),
    Rule(
        "too much regularisation (dropout, weight decay, augmentation)",
        "procedure",
        0.3,
        ("Turn regularisation off on a subset and see whether train loss drops.",),
    ),
    Rule(
        "learning rate too low to get anywhere in the budget",
        "hyperparameters",
        0.25,
        ("Run an LR range test; try a 3-10x higher LR.",),
        "lr_range_test",
    ),
)

# Priors: milestones wrong for the run length (0.5), more so when the LR fell in the first half
# of the run; a drop over 100x points at a mis-set total step count, more than 2 cuts at a
# plateau-triggered decay.
LR_DECAYED = (
    Rule(
        "schedule milestones or decay rate wrong for the run length",
        "procedure",
        0.5,
        ("Plot the LR against the step count; check milestones and gamma.",),
        "lr_range_test",
        lambda ev: 0.15 * below(ev, "decay_fraction", 0.5),
    ),
    Rule(
        "scheduler's total steps mis-set (epochs vs steps, or stepped per batch)",
        "procedure",
        0.35,
        ("Check what the scheduler counts and how often scheduler.step() is called.",),
        None,
        lambda ev: 0.1 * above(ev, "lr_drop_factor", 100.0),
    ),
    Rule(
        "plateau-triggered decay too aggressive (patience too short, factor too small)",
        "hyperparameters",
        0.25,
        ("Raise ReduceLROnPlateau's patience and factor; set a higher min_lr.",),
        "lr_range_test",
        lambda ev: 0.3 * above(ev, "cuts", 2),
    ),
)

# Priors: sorted, unshuffled data (0.6) is by far the usual cause, more so when the period
# equals the epoch length.
UNSHUFFLED = (
    Rule(
        "data sorted (by class, length or source) and not shuffled",
        "data",
        0.6,
        (
            "Print the labels of the first batches of an epoch: they should be mixed.",
            "Set shuffle=True (or a shuffling sampler) for the training loader.",
        ),
        "batch_inspect",
        lambda ev: 0.2 * flag(ev, "epoch_match"),
    ),
    Rule(
        "sampler or shuffling seeded identically every epoch, or shuffled once only",
        "procedure",
        0.3,
        ("Check the sampler's set_epoch()/seed handling in distributed training.",),
    ),
    Rule(
        "curriculum or length bucketing that cycles every epoch",
        "data",
        0.2,
        ("Check whether batches are built by length or difficulty.",),
    ),
)

RULES: dict[str, tuple[Rule, ...]] = {
    "plateau": PLATEAU,
    "underfit": UNDERFIT,
    "lr_decayed_too_early": LR_DECAYED,
    "unshuffled": UNSHUFFLED,
}
