"""Causes for the labels where optimisation itself misbehaves: nan, exploding, loss_spikes,
oscillating, over_clipping, vanishing_gradients."""

from __future__ import annotations

from lossforensics.classifiers.playbook._rules import Evidence, Rule, above, below, flag

# a gradient norm 5x its earlier median just before the NaN ran away; ordinary noise stays
# within 2-3x
_GRAD_JUMP_RUNAWAY = 5.0
# a loss that rose by half its range just before the NaN was already diverging
_LOSS_RISE_RUNAWAY = 0.5


def _late_calm(ev: Evidence) -> bool:
    """NaN after training was under way, with the gradient norm quiet before it."""
    return not flag(ev, "early") and flag(ev, "grad_norm_calm")


def _blowup(ev: Evidence) -> bool:
    """The gradient norm or the loss ran away just before the NaN."""
    return above(ev, "grad_norm_jump", _GRAD_JUMP_RUNAWAY) or above(
        ev, "loss_rise_before", _LOSS_RISE_RUNAWAY
    )


# Priors: how often each cause is behind a NaN in practice (bad inputs first, then a bad
# batch or a layer's numerics). An early NaN points at data and init (+0.4); a late one after a
# calm gradient at one batch or one op; a gradient or loss running away first (_blowup) at the
# learning rate and precision instead.
NAN = (
    Rule(
        "NaN or inf already in the inputs or labels",
        "data",
        0.35,
        (
            "Assert every batch is finite (inputs and targets) before the forward pass.",
            "Scan the dataset once for NaN/inf and for values far outside the expected scale.",
        ),
        "batch_inspect",
        lambda ev: 0.4 * flag(ev, "early") + 0.15 * _late_calm(ev) - 0.2 * _blowup(ev),
    ),
    Rule(
        "one bad sample or batch (corrupt, empty, extreme values)",
        "data",
        0.3,
        (
            "Log the batch ids of the step that went NaN and replay that batch alone.",
            "Check for empty targets, zero-length sequences or all-masked batches.",
        ),
        "batch_inspect",
        lambda ev: 0.35 * _late_calm(ev) + 0.1 * flag(ev, "recovered") - 0.2 * _blowup(ev),
    ),
    Rule(
        "a layer's numerics: log(0), divide by zero, sqrt of a negative, exp/softmax overflow",
        "model",
        0.3,
        (
            "Run the failing step with autograd anomaly detection on.",
            "Add forward hooks that report the first module whose output is non-finite.",
            "Add epsilons to logs, divisions and norms; use log-softmax instead of log(softmax).",
        ),
        "nan_origin",
        lambda ev: 0.3 * _late_calm(ev) + 0.1 * flag(ev, "early") - 0.1 * _blowup(ev),
    ),
    Rule(
        "bad initialisation (weights too large, or a degenerate layer)",
        "model",
        0.15,
        (
            "Print activation and weight scales per layer after init: they should be O(1).",
            "Try the framework's default init or He/Xavier for the affected layers.",
        ),
        "activation_health",
        lambda ev: 0.4 * flag(ev, "early"),
    ),
    Rule(
        "half-precision overflow (fp16 without loss scaling, or scaling broken)",
        "procedure",
        0.2,
        (
            "Re-run the steps before the NaN in fp32 (or bf16): if it stays finite, it is range.",
            "Check the gradient scaler is used and that its scale is not collapsing.",
        ),
        "precision",
        lambda ev: 0.2 * _blowup(ev) + 0.05 * (not flag(ev, "early")),
    ),
    Rule(
        "optimisation blow-up: learning rate too high, no warmup, no gradient clipping",
        "hyperparameters",
        0.15,
        (
            "Divide the learning rate by 10 and re-run the steps before the NaN.",
            "Clip the gradient norm at 1.0 and add a warmup.",
        ),
        "lr_drop",
        lambda ev: 0.55 * _blowup(ev) - 0.1 * flag(ev, "early"),
    ),
)

# Priors: the learning rate (0.45) and missing clipping (0.4) explain most blow-ups. A sudden
# rise points at one batch or clipping; a gradient norm grown over 10x at the learning rate; a
# non-finite end at fp16 overflow; an early rise at the init; a rise while the LR was still
# warming up (kind warmup_overshoot) at the learning rate first (+0.4): the warm-up's peak is
# too high.
EXPLODING = (
    Rule(
        "a loss with no floor for these targets (labels outside the loss's range, a sign error)",
        "data",
        0.05,
        (
            "Check the targets lie in the range the loss expects (0/1 for binary cross-entropy, "
            "class ids for cross-entropy) and the loss's sign.",
            "Compute the loss by hand on one batch: cross-entropy and MSE never go below 0.",
        ),
        "batch_inspect",
        lambda ev: 0.9 * (ev.get("kind") == "unbounded_fall"),
    ),
    Rule(
        "a bad or extreme batch kicking the weights far away",
        "data",
        0.2,
        ("Log batch ids around the start of the rise and inspect their inputs and labels.",),
        "batch_inspect",
        lambda ev: 0.2 * flag(ev, "sudden") - 0.1 * above(ev, "grad_norm_growth", 10.0),
    ),
    Rule(
        "bad initialisation (activations or outputs too large from the start)",
        "model",
        0.2,
        ("Check per-layer activation scales at init and after a few steps.",),
        "activation_health",
        lambda ev: 0.4 * flag(ev, "early"),
    ),
    Rule(
        "no gradient clipping, so one large gradient derails training",
        "procedure",
        0.4,
        ("Clip the global gradient norm at 1.0 and log the pre-clip norm.",),
        "clip",
        lambda ev: 0.15 * flag(ev, "sudden") + 0.1 * above(ev, "grad_norm_growth", 10.0),
    ),
    Rule(
        "half-precision overflow",
        "procedure",
        0.2,
        ("Re-run the rising stretch in fp32 or bf16.",),
        "precision",
        lambda ev: 0.25 * flag(ev, "ends_nonfinite"),
    ),
    Rule(
        "learning rate too high for this phase, or no warmup",
        "hyperparameters",
        0.45,
        (
            "Divide the learning rate by 10: it stops most divergence.",
            "Add a warmup of a few hundred steps; run an LR range test to find the edge.",
        ),
        "lr_drop",
        lambda ev: (
            0.2 * above(ev, "grad_norm_growth", 10.0)
            + 0.1 * (not flag(ev, "early"))
            + 0.4 * (ev.get("kind") == "warmup_overshoot")
        ),
    ),
)

# Priors: bad batches explain most spikes (0.5). Spikes in the validation loss only point at
# evaluation-time statistics (+0.5) and away from batches and the LR; many spikes (over 5), or
# spikes larger than the curve's range, at an LR on the edge of stability.
LOSS_SPIKES = (
    Rule(
        "bad or atypical batches (corrupt samples, outliers, very long sequences)",
        "data",
        0.5,
        (
            "Log the batch ids at each spike and look at those samples.",
            "Check whether the spikes recur at the same position in every epoch.",
        ),
        "batch_inspect",
        lambda ev: 0.1 * above(ev, "count", 2) - 0.2 * (ev.get("series") == "val"),
    ),
    Rule(
        "evaluation-time statistics: BatchNorm running stats or dropout differ at eval",
        "procedure",
        0.15,
        (
            "Evaluate the same batch in train and eval mode and compare the losses.",
            "Check model.eval()/model.train() placement and BatchNorm momentum.",
        ),
        "train_eval_parity",
        lambda ev: 0.5 * (ev.get("series") == "val"),
    ),
    Rule(
        "half-precision range: occasional overflow in a few steps",
        "procedure",
        0.15,
        ("Run the stretch with a spike in fp32 or bf16.",),
        "precision",
    ),
    Rule(
        "learning rate close to the edge of stability",
        "hyperparameters",
        0.25,
        ("Clip the gradient norm at 1.0; lower the learning rate 2-3x and compare.",),
        "clip",
        lambda ev: (
            0.2 * above(ev, "count", 5)
            + 0.1 * above(ev, "max_rise_ratio", 1.0)
            - 0.15 * (ev.get("series") == "val")
        ),
    ),
)

# Priors: a learning rate too high explains most oscillation (0.45). Swings more than twice
# the net movement add to it; slow correlated swings (lag-1 autocorrelation over 0.5) point at
# momentum, step-to-step noise (under 0.2) at a small batch.
OSCILLATING = (
    Rule(
        "batches that differ a lot from each other (ordering, tiny batches, mixed sources)",
        "data",
        0.25,
        ("Check the data is shuffled and that batches mix sources and classes.",),
        "batch_inspect",
    ),
    Rule(
        "momentum or Adam betas too high for the step size",
        "procedure",
        0.2,
        ("Lower momentum (0.9 -> 0.8) or Adam beta1, or raise beta2.",),
        None,
        lambda ev: 0.2 * above(ev, "lag1", 0.5),
    ),  # slow, correlated swings: momentum
    Rule(
        "learning rate too high for this phase of training",
        "hyperparameters",
        0.45,
        ("Divide the learning rate by 3 to 10; use warmup then decay.",),
        "lr_drop",
        lambda ev: 0.15 * above(ev, "amplitude_ratio", 2.0),
    ),
    Rule(
        "batch too small for the gradient noise",
        "hyperparameters",
        0.3,
        ("Double the batch size (or accumulate gradients) and compare the swings.",),
        None,
        lambda ev: 0.1 * below(ev, "lag1", 0.2),
    ),  # step-to-step noise: batch noise
)

# Priors: a threshold below the model's normal gradient scale is the usual cause (0.5), all
# the more when over 80% of steps are clipped.
OVER_CLIPPING = (
    Rule(
        "outlier samples producing huge gradients",
        "data",
        0.2,
        ("Log the pre-clip norm per batch and inspect the batches with the largest.",),
        "batch_inspect",
    ),
    Rule(
        "clip threshold too low for this model's normal gradient scale",
        "procedure",
        0.5,
        ("Plot the pre-clip gradient norm; set the threshold above its typical value.",),
        "clip",
        lambda ev: 0.2 * above(ev, "clip_fraction", 0.8),
    ),
    Rule(
        "learning rate too high, so gradients stay large",
        "hyperparameters",
        0.3,
        ("Lower the learning rate and watch the clip frequency.",),
        "lr_drop",
    ),
)

# Priors: saturating activations or depth without residuals/normalisation (0.5), then init;
# a gradient norm decayed over 100x adds to the architecture cause.
VANISHING = (
    Rule(
        "inputs not normalised (tiny or saturating input scale)",
        "data",
        0.2,
        ("Check input mean and std per feature.",),
        "batch_inspect",
    ),
    Rule(
        "saturating activations or depth without residuals or normalisation",
        "model",
        0.5,
        (
            "Log per-layer gradient norms; look for layers orders of magnitude smaller.",
            "Use ReLU/GELU, residual connections and LayerNorm/BatchNorm.",
        ),
        "grad_flow",
        lambda ev: 0.15 * above(ev, "grad_norm_decay", 100.0),
    ),
    Rule(
        "bad initialisation shrinking the signal layer by layer",
        "model",
        0.35,
        ("Use He (ReLU) or Xavier (tanh) init and compare activation scales per layer.",),
        "activation_health",
    ),
    Rule(
        "learning rate decayed or too small",
        "hyperparameters",
        0.15,
        ("Plot the LR; run an LR range test.",),
        "lr_range_test",
    ),
)

RULES: dict[str, tuple[Rule, ...]] = {
    "nan": NAN,
    "exploding": EXPLODING,
    "loss_spikes": LOSS_SPIKES,
    "oscillating": OSCILLATING,
    "over_clipping": OVER_CLIPPING,
    "vanishing_gradients": VANISHING,
}
