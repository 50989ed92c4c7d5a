"""The batch audit: find every run under a folder, diagnose them in parallel, report by
severity, and say which hyper-parameter a pathology follows across a sweep.

    discover_runs(folder) -> run sources      (app.discover)
    run_audit(sources, executor) -> RunAudits (app.audit.executor, app.audit.worker)
    AuditSummary.build(...)                   (app.audit.summary, app.audit.sweep)
    print_table / to_json / to_csv / render_html

`audit_folder` ties them together for the CLI (`lossforensics audit`).
"""

from app.audit.audit import AuditOptions, audit_folder
from app.audit.executor import open_executor, run_audit
from app.audit.summary import AuditSummary
from app.audit.sweep import HparamEffect, find_effects
from app.audit.worker import RunAudit, audit_source

__all__ = [
    "AuditOptions", "AuditSummary", "HparamEffect", "RunAudit", "audit_folder", "audit_source",
    "find_effects", "open_executor", "run_audit",
]
