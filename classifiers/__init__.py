"""lossforensics' analysis core: the normalised frame, the classifiers and the playbook.

Pure numpy/pandas/scipy: nothing here imports app, probes, FastAPI, httpx, typer or torch.
"""

from classifiers.diagnose import diagnose, diagnose_all
from classifiers.diagnosis import Cause, Diagnosis, Finding, MetricInfo, Skipped, Span
from classifiers.errors import LossForensicsError
from classifiers.frame import COLUMNS, empty_frame, make_frame, validate_frame
from classifiers.labels import ALL_LABELS, HEALTHY, LABELS, PROBES, SEVERITY
from classifiers.registry import all_classifiers, registry
from classifiers.roles import ROLES, infer_role

__all__ = [
    "ALL_LABELS", "COLUMNS", "HEALTHY", "LABELS", "PROBES", "ROLES", "SEVERITY", "Cause",
    "Diagnosis", "Finding", "LossForensicsError", "MetricInfo", "Skipped", "Span", "empty_frame",
    "all_classifiers", "diagnose", "diagnose_all", "infer_role", "make_frame", "registry",
    "validate_frame",
]
