"""Every probe, by name: importing this module registers them all (no torch import yet)."""

from __future__ import annotations

from typing import Any

from lossforensics.classifiers.errors import ProbeError
from lossforensics.classifiers.labels import PROBES
from lossforensics.probes import (  # noqa: F401  (imported to register)
    activation_health,
    batch_inspect,
    clip,
    grad_flow,
    lr_drop,
    lr_range_test,
    nan_origin,
    overfit_one_batch,
    precision,
    train_eval_parity,
)
from lossforensics.probes.base import REGISTRY, ProbeSpec
from lossforensics.probes.result import ProbeResult
from lossforensics.probes.setup import ProbeSetup

if set(REGISTRY) != set(PROBES):  # the playbook names PROBES; each must have an implementation
    raise ImportError(
        f"probes registered {sorted(REGISTRY)} but lossforensics.classifiers.labels.PROBES "
        f"names {sorted(PROBES)}"
    )


def spec(name: str) -> ProbeSpec:
    try:
        return REGISTRY[name]
    except KeyError:
        raise ProbeError(f"unknown probe {name!r}; probes are: {', '.join(PROBES)}") from None


def run_probe(name: str, setup: ProbeSetup, **options: Any) -> ProbeResult:
    """Run one probe by name (options are the probe's keyword arguments)."""
    return spec(name).run(setup, **options)
