"""`audit_folder`: discovery, parallel diagnosis, one output, and the exit code.

Exit codes (the CLI returns them as is): 0 clean, 1 when a `fail_on` label was found in any run
(CI gating), 2 for usage errors or when nothing readable was found (raised as typed errors that
lossforensics.cli maps to 2).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

from lossforensics.audit.executor import open_executor, run_audit
from lossforensics.audit.html import DEFAULT_MAX_PLOTS, PREVIEW_POINTS, draw_thumbnails, render_html
from lossforensics.audit.output import print_table, to_csv, to_json
from lossforensics.audit.summary import AuditSummary
from lossforensics.audit.worker import ERROR
from lossforensics.classifiers.errors import InputError
from lossforensics.classifiers.labels import INCONCLUSIVE, LABELS
from lossforensics.discover import discover_runs, require_runs
from lossforensics.isolate import WorkerLimits
from lossforensics.settings import Settings, worker_limits
from rich.console import Console

FORMATS = ("table", "json", "csv", "html")
EXIT_CLEAN, EXIT_FAIL_ON = 0, 1


@dataclass(frozen=True)
class AuditOptions:
    format: str = "table"
    out: Path | None = None
    fail_on: tuple[str, ...] = ()
    jobs: int | None = None
    dask: str | None = None
    max_plots: int = DEFAULT_MAX_PLOTS
    isolate: WorkerLimits | None = None  # read each source in a limited worker


def parse_fail_on(text: str | None) -> tuple[str, ...]:
    """'nan, exploding' -> ('nan', 'exploding'); 'error' matches unreadable runs,
    'inconclusive' runs that no check could judge."""
    names = tuple(dict.fromkeys(t.strip() for t in (text or "").split(",") if t.strip()))
    unknown = [n for n in names if n not in LABELS and n not in (ERROR, INCONCLUSIVE)]
    if unknown:
        raise InputError(
            f"--fail-on: unknown label(s) {', '.join(unknown)}; "
            f"choose from {', '.join(sorted(LABELS))}, '{INCONCLUSIVE}' or 'error'"
        )
    return names


def audit_folder(
    folder: str | Path, options: AuditOptions, *, console: Console, err_console: Console
) -> int:
    """Audit `folder`, write the chosen format to `options.out` or `console`, return the exit
    code. Progress and skipped paths go to `err_console`, so stdout stays machine-readable."""
    if options.format not in FORMATS:
        raise InputError(f"--format must be one of {', '.join(FORMATS)}, got {options.format!r}")
    preview = PREVIEW_POINTS if options.format == "html" and options.max_plots > 0 else 0
    with open_executor(options.jobs, options.dask, isolate=options.isolate) as executor:
        summary = _summarise(folder, executor, err_console, preview)
        thumbs = draw_thumbnails(summary.runs, executor, options.max_plots) if preview else {}
    _emit(summary, options, console, err_console, thumbs)
    failing = summary.runs_with(options.fail_on) if options.fail_on else []
    if failing:
        err_console.print(
            f"--fail-on: {len(failing):,} run(s) have {', '.join(options.fail_on)}", highlight=False
        )
        return EXIT_FAIL_ON
    return EXIT_CLEAN


def audit(
    folder: str | Path,
    *,
    jobs: int | None = None,
    dask: str | None = None,
    console: Console | None = None,
    isolate: bool | WorkerLimits = False,
) -> AuditSummary:
    """Audit `folder` and return the summary (every run's diagnosis, by severity), writing
    nothing: the programmatic form of `lossforensics audit`. `jobs` sizes the local process
    pool; `dask` is a scheduler address that runs the same work on a Dask cluster. `isolate`
    reads every source in a limited worker, as the service reads uploads (True: the service's
    worker limits from the settings; or the WorkerLimits to use): a source past a limit is a
    failed run whose error names the limit, and the rest are audited. Progress goes to
    `console` when one is given."""
    quiet = console or Console(quiet=True)
    limits = isolation_limits(isolate)
    with open_executor(jobs, dask, isolate=limits) as executor:
        return _summarise(folder, executor, quiet, 0)


def isolation_limits(isolate: bool | WorkerLimits) -> WorkerLimits | None:
    """The worker limits an `isolate` option asks for (True: the service's, from settings)."""
    if isinstance(isolate, WorkerLimits):
        return isolate
    return worker_limits(Settings()) if isolate else None


def _summarise(folder: str | Path, executor, console: Console, preview: int) -> AuditSummary:
    start = time.perf_counter()
    found = require_runs(discover_runs(folder))
    runs = run_audit(found.sources, executor, console=console, preview_points=preview)
    return AuditSummary.build(found.root, runs, found.problems, time.perf_counter() - start)


def _emit(
    summary: AuditSummary,
    options: AuditOptions,
    console: Console,
    err_console: Console,
    thumbs: dict[str, bytes],
) -> None:
    if options.format == "table":
        if options.out is None:
            print_table(summary, console)
            return
        with open(options.out, "w", encoding="utf-8") as fh:
            print_table(summary, Console(file=fh, width=200, color_system=None))
        return
    text = {"json": to_json, "csv": to_csv}.get(options.format)
    body = text(summary) if text else render_html(summary, thumbs)
    if options.out is None:
        console.file.write(body if body.endswith("\n") else body + "\n")
        console.file.flush()
    else:
        Path(options.out).write_text(body, encoding="utf-8")
        err_console.print(f"wrote {options.out} ({len(summary.runs):,} runs)", highlight=False)
    for problem in summary.problems:
        err_console.print(f"skipped {problem}", highlight=False)
