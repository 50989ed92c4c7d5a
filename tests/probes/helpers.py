"""ProbeSetup shortcuts for the probe tests."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import torch
import torch.nn.functional as F
from lossforensics.probes import ProbeSetup

from tests.probes import toys


def adam(lr: float = 1e-2) -> Callable[[Any], torch.optim.Optimizer]:
    return lambda params: torch.optim.Adam(params, lr=lr)


def sgd(lr: float) -> Callable[[Any], torch.optim.Optimizer]:
    return lambda params: torch.optim.SGD(params, lr=lr)


def classify(
    model_fn: Callable[[], Any],
    tmp: Path,
    *,
    data: Any = None,
    lr: float = 1e-2,
    steps: int = 40,
    **kw: Any,
) -> ProbeSetup:
    """A classification setup on the blobs (Adam, cross-entropy)."""
    return ProbeSetup(
        model_fn,
        toys.blobs() if data is None else data,
        F.cross_entropy,
        adam(lr),
        steps=steps,
        log_dir=tmp,
        **kw,
    )


def regress(lr: float, tmp: Path, *, steps: int = 40, **kw: Any) -> ProbeSetup:
    """The regression setup with plain SGD: lr 0.5 diverges, lr 0.01 trains."""
    return ProbeSetup(
        toys.regressor, toys.regression(), F.mse_loss, sgd(lr), steps=steps, log_dir=tmp, **kw
    )


TOO_HIGH, FINE = 0.5, 0.01
