"""The batch audit: find every run under a folder, diagnose them in parallel, report by
severity, and say which hyper-parameter a pathology follows across a sweep.

    discover_runs(folder) -> run sources      (lossforensics.discover)
    run_audit(sources, executor) -> RunAudits (audit.executor, audit.worker)
    AuditSummary.build(...)                   (audit.summary, audit.sweep)
    print_table / to_json / to_csv / render_html

`audit_folder` ties them together for the CLI (`lossforensics audit`).
"""

from lossforensics.audit.audit import AuditOptions, audit_folder
from lossforensics.audit.executor import open_executor, run_audit
from lossforensics.audit.summary import AuditSummary
from lossforensics.audit.sweep import HparamEffect, find_effects
from lossforensics.audit.worker import RunAudit, audit_source

__all__ = [
    "AuditOptions",
    "AuditSummary",
    "HparamEffect",
    "RunAudit",
    "audit_folder",
    "audit_source",
    "find_effects",
    "open_executor",
    "run_audit",
]
