"""Probes (the `torch` extra): re-run a diagnosis' first checks on the user's own model.

    >>> from lossforensics.probes import confirm
    >>> result = confirm(diagnosis, model_fn=make_model, data=loader,
    ...                  loss_fn=F.cross_entropy, optimizer_fn=lambda p: AdamW(p, lr=3e-3),
    ...                  steps=200, device="cuda")

torch is imported on first use, never at import time: `import probes` works without it, and
calling a probe then raises classifiers.errors.ProbeError with the install hint. Each probe
lives in its own module (probes.lr_drop, probes.clip, ...) and is also reachable by name with
`run_probe(name, ProbeSetup(...))`.
"""

from lossforensics.probes._torch import INSTALL_HINT
from lossforensics.probes.confirm import CheckedCause, CheckedFinding, Confirmation, confirm, plan
from lossforensics.probes.registry import REGISTRY, run_probe
from lossforensics.probes.result import CONFIRMED, INCONCLUSIVE, REFUTED, VERDICTS, ProbeResult
from lossforensics.probes.setup import ProbeSetup

__all__ = [
    "CONFIRMED",
    "INCONCLUSIVE",
    "INSTALL_HINT",
    "REFUTED",
    "REGISTRY",
    "VERDICTS",
    "CheckedCause",
    "CheckedFinding",
    "Confirmation",
    "ProbeResult",
    "ProbeSetup",
    "confirm",
    "plan",
    "run_probe",
]
