"""The fixed vocabulary shared by the classifiers, the playbook, the API, the CLI and the probes.

Label names come from the domain notes and never change: the evaluation, the API and stored
diagnoses all use them. SEVERITY orders them for the verdict (first = most severe).

A verdict is the most severe label found with a confidence of at least one half (a doubtful
finding, more often wrong than right, is listed but leads no likely one; classifiers.diagnose.
LIKELY), unless a cause leads it (classifiers.explains.LEADS),
`healthy` when the checks that could judge the run found nothing, or `inconclusive` when no
check could judge how the loss went (too few points, no loss logged): an absence of evidence is
never reported as a healthy run.
"""

from __future__ import annotations

HEALTHY = "healthy"
INCONCLUSIVE = "inconclusive"

SEVERITY: tuple[str, ...] = (
    "nan",
    "exploding",
    "resume_discontinuity",
    # a label that names the cause of a stall outranks the stall itself: the verdict of a run
    # that flattened where its LR was cut, or where its gradients died, is that cause; and it
    # outranks what the validation curve shows, since every later evaluation is of a model that
    # stopped training: the schedule or the gradient flow is what to fix first
    "vanishing_gradients",
    "lr_decayed_too_early",
    "distribution_mismatch",
    "overfit",
    "plateau",
    "underfit",
    "oscillating",
    "loss_spikes",
    "unshuffled",
    "over_clipping",
    "metric_mismatch",
)

LABELS: frozenset[str] = frozenset(SEVERITY)
ALL_LABELS: tuple[str, ...] = (HEALTHY, *SEVERITY)
# Every value `Diagnosis.verdict` can take.
VERDICTS: tuple[str, ...] = (*SEVERITY, HEALTHY, INCONCLUSIVE)

# Probe names: each automates one first check (probes/ implements them; the playbook names them).
PROBES: tuple[str, ...] = (
    "lr_drop",
    "clip",
    "precision",
    "overfit_one_batch",
    "lr_range_test",
    "grad_flow",
    "activation_health",
    "nan_origin",
    "batch_inspect",
    "train_eval_parity",
)


def severity_rank(label: str) -> int:
    """0 for the most severe label; then inconclusive, then healthy and unknown labels."""
    try:
        return SEVERITY.index(label)
    except ValueError:
        return len(SEVERITY) + (label != INCONCLUSIVE)
