"""`lossforensics audit FOLDER`: every run under a folder, diagnosed in parallel, by severity.

lossforensics audit ~/experiments
lossforensics audit ~/experiments --format html --out audit.html
lossforensics audit ~/experiments --format json | jq ...
lossforensics audit ~/experiments --fail-on nan,exploding     # exit 1 if any run has them
lossforensics audit ~/experiments --fail-on inconclusive      # ... or if no check could judge one
lossforensics audit /mnt/shared/runs --dask tcp://scheduler:8786
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer
from lossforensics.audit.audit import (
    FORMATS,
    AuditOptions,
    audit_folder,
    isolation_limits,
    parse_fail_on,
)
from lossforensics.audit.html import DEFAULT_MAX_PLOTS
from rich.console import Console

PIPE_WIDTH = 200


def register(cli: typer.Typer) -> None:
    @cli.command("audit")
    def audit(
        folder: Annotated[Path, typer.Argument(help="Folder to walk (or one run file/dir).")],
        format: Annotated[
            str, typer.Option("--format", "-f", help=f"Output: {', '.join(FORMATS)}.")
        ] = "table",
        out: Annotated[
            Path | None,
            typer.Option("--out", "-o", help="Write the output here instead of stdout."),
        ] = None,
        fail_on: Annotated[
            str,
            typer.Option(
                "--fail-on",
                help="Comma-separated labels ('error' = an unreadable run, 'inconclusive' = "
                "a run no check could judge): exit 1 if any run has one. Inconclusive runs "
                "exit 0 unless named here.",
            ),
        ] = "",
        jobs: Annotated[
            int | None,
            typer.Option("--jobs", "-j", help="Worker processes (default: one per CPU)."),
        ] = None,
        dask: Annotated[
            str | None,
            typer.Option("--dask", help="Dask scheduler address: run the audit on that cluster."),
        ] = None,
        max_plots: Annotated[
            int, typer.Option("--max-plots", help="HTML: plots for at most this many runs.")
        ] = DEFAULT_MAX_PLOTS,
        isolate: Annotated[
            bool,
            typer.Option(
                "--isolate",
                help="Read each file in a limited worker process, as the service reads "
                "uploads (LOSSFORENSICS_WORKER_* limits): a file past a limit fails alone.",
            ),
        ] = False,
    ) -> None:
        """Diagnose every run under FOLDER in parallel; report them by severity."""
        options = AuditOptions(
            format=format.lower(),
            out=out,
            fail_on=parse_fail_on(fail_on),
            jobs=jobs,
            dask=dask,
            max_plots=max_plots,
            isolate=isolation_limits(isolate),
        )
        # piped output is not cut at 80 columns: one run a line
        console = Console() if sys.stdout.isatty() else Console(width=PIPE_WIDTH)
        code = audit_folder(folder, options, console=console, err_console=Console(stderr=True))
        raise typer.Exit(code)
