"""lossforensics' analysis core: the normalised frame, the classifiers and the playbook.

Pure numpy/pandas/scipy: nothing here imports the service side, the probes, FastAPI, httpx,
typer or torch. The names below load on first use, so importing one light module
(`lossforensics.classifiers.errors`, `.diagnosis`) does not pull in scipy. No name here is also
a submodule's name (`diagnose`, `registry`): a lazily bound function would be replaced by its
module once that module is imported; `lossforensics.classifiers.diagnose.diagnose` is the
one-run function, `diagnose_all` the frame-wide one.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from lossforensics.classifiers.diagnose import diagnose_all
    from lossforensics.classifiers.diagnosis import (
        Cause,
        Diagnosis,
        Finding,
        MetricInfo,
        SetAside,
        Skipped,
        Span,
    )
    from lossforensics.classifiers.errors import LossForensicsError
    from lossforensics.classifiers.frame import COLUMNS, empty_frame, make_frame, validate_frame
    from lossforensics.classifiers.labels import ALL_LABELS, HEALTHY, LABELS, PROBES, SEVERITY
    from lossforensics.classifiers.registry import all_classifiers
    from lossforensics.classifiers.roles import ROLES, infer_role

_EXPORTS = {
    "diagnose_all": "diagnose",
    "Cause": "diagnosis",
    "Diagnosis": "diagnosis",
    "Finding": "diagnosis",
    "MetricInfo": "diagnosis",
    "SetAside": "diagnosis",
    "Skipped": "diagnosis",
    "Span": "diagnosis",
    "LossForensicsError": "errors",
    "COLUMNS": "frame",
    "empty_frame": "frame",
    "make_frame": "frame",
    "validate_frame": "frame",
    "ALL_LABELS": "labels",
    "HEALTHY": "labels",
    "LABELS": "labels",
    "PROBES": "labels",
    "SEVERITY": "labels",
    "all_classifiers": "registry",
    "ROLES": "roles",
    "infer_role": "roles",
}
__all__ = [
    "ALL_LABELS",
    "COLUMNS",
    "HEALTHY",
    "LABELS",
    "PROBES",
    "ROLES",
    "SEVERITY",
    "Cause",
    "Diagnosis",
    "Finding",
    "LossForensicsError",
    "MetricInfo",
    "SetAside",
    "Skipped",
    "Span",
    "all_classifiers",
    "diagnose_all",
    "empty_frame",
    "infer_role",
    "make_frame",
    "validate_frame",
]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'lossforensics.classifiers' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value
