"""Causes for the labels about train vs validation and bookkeeping: overfit,
distribution_mismatch, resume_discontinuity, metric_mismatch."""

from __future__ import annotations

from lossforensics.classifiers.playbook._rules import Rule, above, below, flag

# Priors: too little data (0.45) first, then model size and training too long (0.35). A val
# minimum in the first quarter of the run points at data; one past the middle at a missing
# early stop. A validation metric that kept improving by a sigma after the loss's minimum
# (score_gain_after_min_z) puts over-confidence first: the loss minimum is then the wrong
# checkpoint, and stopping there would throw away the metric the run is for.
OVERFIT = (
    Rule(
        "the model grows over-confident: the validation metric still improves while the loss rises",
        "procedure",
        0.0,
        (
            "Keep the checkpoint where the validation metric you care about is best, not the "
            "one at the loss minimum; stop early on that metric.",
            "Plot a reliability diagram at both checkpoints; try label smoothing or "
            "temperature scaling if the loss matters downstream.",
        ),
        None,
        lambda ev: 0.7 * above(ev, "score_gain_after_min_z", 1.0),
    ),
    Rule(
        "too little training data for the model (memorisation)",
        "data",
        0.45,
        (
            "Compare the parameter count with the number of training samples or tokens.",
            "Add data or augmentation; check for duplicates inflating the train set.",
        ),
        "batch_inspect",
        lambda ev: 0.2 * below(ev, "val_min_fraction", 0.25),
    ),
    Rule(
        "model too large, or no regularisation",
        "model",
        0.35,
        ("Add weight decay (AdamW) and dropout; try a smaller model.",),
    ),
    Rule(
        "trained past the best point (no early stopping)",
        "procedure",
        0.35,
        ("Keep the checkpoint at the validation minimum; add early stopping.",),
        None,
        lambda ev: 0.2 * above(ev, "val_min_fraction", 0.5),
    ),
    Rule(
        "learning rate or schedule keeps driving train loss down too fast",
        "hyperparameters",
        0.15,
        ("Try a lower peak LR or stronger weight decay and compare the val minimum.",),
        "lr_drop",
    ),
)

# Priors: preprocessing that differs between train and eval (0.5) first. A validation loss
# that barely moves (under 5%) points at a validation set from elsewhere; train and val moving
# against each other (negative correlation) at an evaluation mode that differs.
DISTRIBUTION_MISMATCH = (
    Rule(
        "preprocessing differs between train and validation (normalisation, tokenizer, "
        "resizing, augmentation left on)",
        "data",
        0.5,
        (
            "Compare summary statistics of a train batch and a val batch.",
            "Route both splits through one preprocessing function.",
        ),
        "batch_inspect",
    ),
    Rule(
        "validation drawn from another distribution, or labels differ between splits",
        "data",
        0.4,
        ("Check how the splits were made; compare label distributions.",),
        "batch_inspect",
        lambda ev: 0.15 * (flag(ev, "val_flat") or below(ev, "val_improvement_pct", 5.0)),
    ),
    Rule(
        "evaluation mode differs from training (BatchNorm stats, dropout, a wrong loss)",
        "procedure",
        0.3,
        ("Compute the loss on the same batch in train and eval mode.",),
        "train_eval_parity",
        lambda ev: 0.15 * below(ev, "correlation", 0.0),
    ),
)

# Priors: optimizer state not restored (0.45) first, more so for a jump over 5 standard
# errors; an LR that restarted with the loss points at the scheduler state (+0.35).
RESUME = (
    Rule(
        "sampler or data position not restored (epoch replayed or skipped)",
        "data",
        0.25,
        ("Check the data loader resumes at the saved position and epoch.",),
    ),
    Rule(
        "optimizer state not restored (fresh momentum / Adam moments)",
        "procedure",
        0.45,
        ("Save and load optimizer.state_dict() with the model; test a resume on a short run.",),
        None,
        lambda ev: 0.1 * above(ev, "loss_jump", 5.0),
    ),
    Rule(
        "LR scheduler not restored (warmup or schedule restarted)",
        "procedure",
        0.35,
        ("Save and load scheduler.state_dict(); plot the LR across the resume.",),
        None,
        lambda ev: 0.35 * flag(ev, "lr_jump"),
    ),
    Rule(
        "RNG or mixed-precision scaler state not restored",
        "procedure",
        0.15,
        ("Save RNG states and the gradient scaler's state with the checkpoint.",),
        "precision",
    ),
)

# Priors: a bug in the metric code (0.4) first. A loss rising while the metric improves is
# over-confidence (+0.5); a metric improving alone leans to calibration drift.
METRIC_MISMATCH = (
    Rule(
        "over-confidence: the loss punishes confident errors while the metric still improves",
        "model",
        0.2,
        (
            "Choose the checkpoint (and early stopping) on the metric you care about, not on "
            "the validation-loss minimum.",
            "Check calibration (reliability diagram, expected calibration error); temperature "
            "scaling or label smoothing restores it without retraining.",
        ),
        None,
        lambda ev: 0.5 * (ev.get("direction") == "loss_rises_metric_improves"),
    ),
    Rule(
        "class imbalance or label smoothing decoupling loss from the metric",
        "data",
        0.3,
        ("Check the class balance and whether the loss uses label smoothing or weights.",),
    ),
    Rule(
        "model becoming over- or under-confident (calibration drift)",
        "model",
        0.3,
        ("Plot a reliability diagram at two checkpoints.",),
        None,
        lambda ev: 0.1 * (ev.get("direction") == "metric_improves"),
    ),
    Rule(
        "a bug in the metric code (wrong argmax axis, threshold, averaging, ignore index)",
        "procedure",
        0.4,
        ("Recompute the metric by hand on a few samples and compare.",),
        "train_eval_parity",
    ),
)

RULES: dict[str, tuple[Rule, ...]] = {
    "overfit": OVERFIT,
    "distribution_mismatch": DISTRIBUTION_MISMATCH,
    "resume_discontinuity": RESUME,
    "metric_mismatch": METRIC_MISMATCH,
}
