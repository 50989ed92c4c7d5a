"""Text renderings of an audit: the terminal table, JSON (one Diagnosis per run, as a list) and
CSV (one row per run, hyper-parameters as `hp.<name>` columns). HTML lives in app/audit/html.py.
"""

from __future__ import annotations

import csv
import io
import json

from lossforensics.audit.summary import AuditSummary
from lossforensics.audit.worker import ERROR
from lossforensics.classifiers.labels import HEALTHY, INCONCLUSIVE
from rich.console import Console
from rich.table import Table
from rich.text import Text

_VERDICT_STYLE = {
    HEALTHY: "green",
    INCONCLUSIVE: "dim yellow",
    ERROR: "magenta",
    "nan": "bold red",
    "exploding": "bold red",
}


def print_table(summary: AuditSummary, console: Console) -> None:
    """Runs by severity, then the label counts, the sweep effects and what could not be read."""
    table = Table(box=None, header_style="bold", pad_edge=False)
    longest = max((len(r.name) for r in summary.runs), default=3)
    table.add_column("run", overflow="fold", min_width=min(longest, 48))
    table.add_column("verdict", no_wrap=True, min_width=9)
    table.add_column("conf", justify="right", no_wrap=True, min_width=4)
    table.add_column("top cause", no_wrap=True, overflow="ellipsis", max_width=44)
    table.add_column("first check", no_wrap=True, overflow="ellipsis", max_width=56)
    for r in summary.runs:
        style = _VERDICT_STYLE.get(r.verdict, "yellow")
        conf = "" if r.confidence is None else f"{r.confidence:.2f}"
        cause = r.top_cause if r.diagnosis is not None else _error_text(r.error)
        if r.verdict == INCONCLUSIVE and r.diagnosis is not None and r.diagnosis.skipped:
            cause = f"not judged: {r.diagnosis.skipped[0].reason}"
        table.add_row(
            Text(r.name), Text(r.verdict, style=style), conf, Text(cause), Text(r.first_check)
        )
    console.print(table)
    console.print()
    console.print(Text(summary.headline(), style="bold"))
    for effect in summary.effects:
        console.print(Text(f"sweep: {effect.sentence()}  (p={effect.p_value:.2g})"))
    for problem in summary.problems:
        console.print(Text(f"skipped {problem}", style="dim"))


def _error_text(error: dict | None) -> str:
    if not error:
        return ""
    return f"[{error.get('code')}] {error.get('message')}"


def to_json(summary: AuditSummary, *, indent: int | None = 2) -> str:
    """A JSON list: each run's Diagnosis (run = its audit name) with `path` and `hparams`; a run
    that could not be read has verdict "error" and an `error` object."""
    return json.dumps([r.to_dict() for r in summary.runs], indent=indent, allow_nan=False)


CSV_COLUMNS = (
    "run",
    "path",
    "format",
    "verdict",
    "labels",
    "confidence",
    "top_cause",
    "first_check",
    "error_code",
    "error_message",
)


def to_csv(summary: AuditSummary) -> str:
    params = sorted({k for r in summary.runs for k in r.hparams})
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow([*CSV_COLUMNS, *(f"hp.{p}" for p in params)])
    for r in summary.runs:
        err = r.error or {}
        conf = "" if r.confidence is None else f"{r.confidence:.4f}"
        writer.writerow(
            [
                r.name,
                r.source.path,
                r.source.format,
                r.verdict,
                ";".join(r.labels),
                conf,
                r.top_cause,
                r.first_check,
                err.get("code", ""),
                err.get("message", ""),
                *(_num(r.hparams.get(p)) for p in params),
            ]
        )
    return buf.getvalue()


def _num(value: float | None) -> str:
    return "" if value is None else f"{value:g}"
