"""`lossforensics diagnose PATH`: read one run's logs (or a file holding several runs), label
what went wrong, and show the ranked causes with the first checks to run.

    lossforensics diagnose runs/exp1
    lossforensics diagnose trainer_state.json --json            # the Diagnosis JSON
    lossforensics diagnose wandb_export.csv --json | jq '.[].verdict'   # several runs: a list
    lossforensics diagnose metrics.json --role 'total_loss=train_loss' --format jsonl
    python train.py 2>&1 | tee train.log | lossforensics diagnose -   # console output on stdin

The default output is for a person: the verdict, each finding with its confidence, step span and
summary, its top causes with their first check, the labels that could not be judged (dimmed)
and the reader's warnings. `--json` prints exactly `Diagnosis.to_dict()`: one object for one
run, a list when PATH holds several.

The verdict `inconclusive` means no check could judge how the loss went (too few points, no loss
logged); it is not `healthy`, and the output says why. The exit code is 0 whatever the verdict,
unless `--fail-on` names labels (or `inconclusive`): then 1 when any run has one of them.
"""

from __future__ import annotations

import dataclasses
import json
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Annotated, BinaryIO

import typer
from lossforensics.analysis import diagnose_read, diagnose_source, read_source
from lossforensics.classifiers.diagnosis import Diagnosis, Finding
from lossforensics.classifiers.errors import LossForensicsError
from lossforensics.classifiers.labels import HEALTHY, INCONCLUSIVE
from lossforensics.commands._options import FormatOption, RoleOption
from lossforensics.commands.convert import parse_roles
from rich.console import Console
from rich.markup import escape

TOP_CAUSES = 3
_VERDICT_STYLE = {HEALTHY: "bold green", INCONCLUSIVE: "bold yellow"}
EXIT_FAIL_ON = 1


def diagnose_path(
    path: Path, *, roles: dict[str, str] | None = None, format: str | None = None
) -> list[Diagnosis]:
    """Read PATH and diagnose every run in it (`analysis.diagnose_source`: reader warnings ride
    along in each Diagnosis)."""
    if str(path) == "-":
        return diagnose_stdin(roles=roles, format=format)
    return diagnose_source(path, format=format, roles=roles)[1]


def diagnose_stdin(
    *,
    roles: dict[str, str] | None = None,
    format: str | None = None,
    stream: BinaryIO | None = None,
) -> list[Diagnosis]:
    """`diagnose -`: pasted text on stdin (console output, or any log file piped in), spooled
    to a temporary file and detected as usual; the run is named 'stdin'."""
    stream = stream if stream is not None else sys.stdin.buffer
    with tempfile.TemporaryDirectory(prefix="lossforensics-stdin-") as tmp:
        spooled = Path(tmp) / "stdin.log"
        with open(spooled, "wb") as out:
            shutil.copyfileobj(stream, out)
        try:
            result = read_source(
                spooled, format=format, roles=roles, run="stdin", display_name="<stdin>"
            )
        except LossForensicsError as exc:
            exc.file = "<stdin>" if exc.file == str(spooled) else exc.file
            raise
        result.files = ["<stdin>"]
        for i, w in enumerate(result.warnings):
            if w.file == str(spooled):
                result.warnings[i] = dataclasses.replace(w, file="<stdin>")
    return diagnose_read(result, display_name="<stdin>")


def to_json(diagnoses: list[Diagnosis]) -> str:
    """The Diagnosis JSON: a single object for one run, a list for several."""
    payload = [d.to_dict() for d in diagnoses]
    return json.dumps(payload[0] if len(payload) == 1 else payload, indent=2)


def render(diagnoses: list[Diagnosis], console: Console) -> None:
    """A readable report, one block a run."""
    for i, diagnosis in enumerate(diagnoses):
        if i:
            console.rule(style="dim")
        render_one(diagnosis, console)


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def render_one(d: Diagnosis, console: Console) -> None:
    style = _VERDICT_STYLE.get(d.verdict, "bold red")
    points = sum(m.points for m in d.metrics)
    console.print(
        f"[bold]{escape(d.run) or '(unnamed run)'}[/]  verdict: [{style}]"
        f"{d.verdict}[/]  [dim]({_count(len(d.metrics), 'metric')}, {_count(points, 'point')}, "
        f"{escape(str(d.source.get('format') or 'unknown format'))})[/]"
    )
    if d.verdict == INCONCLUSIVE:
        console.print(
            "  [yellow]Inconclusive:[/] no check could judge how the loss went, so this is not "
            "a healthy verdict. Why:"
        )
        for reason in dict.fromkeys(s.reason for s in d.skipped):
            console.print(f"    {escape(reason)}")
    elif not d.findings:
        console.print("  No problem found by the classifiers that could judge this run.")
    for f in d.findings:
        _render_finding(f, console)
    for aside in d.set_aside:
        console.print(f"  [dim]Set aside ({aside.label}):[/] {escape(aside.reason)}")
    if d.skipped and d.verdict != INCONCLUSIVE:
        console.print("  [dim]Not judged:[/]")
        for s in d.skipped:
            console.print(f"    [dim]{s.label}: {escape(s.reason)}[/]")
    for w in d.warnings:
        if d.verdict == INCONCLUSIVE and str(w).startswith(f"{INCONCLUSIVE}:"):
            continue  # said above, with the reasons
        console.print(f"  [yellow]warning:[/] {escape(str(w))}")


def failing(diagnoses: list[Diagnosis], fail_on: tuple[str, ...]) -> list[Diagnosis]:
    """The diagnoses whose verdict or findings name one of `fail_on`."""
    wanted = set(fail_on)
    return [d for d in diagnoses if wanted & {d.verdict, *d.labels}]


def _render_finding(f: Finding, console: Console) -> None:
    span = f"steps {f.span.start_step}-{f.span.end_step}" if f.span else "whole run"
    console.print(f"  [bold red]{f.label}[/]  confidence {f.confidence:.2f}  [dim]{span}[/]")
    console.print(f"    {escape(f.summary)}")
    for cause in f.causes[:TOP_CAUSES]:
        probe = f"  [dim](probe: {cause.probe})[/]" if cause.probe else ""
        console.print(
            f"    {cause.rank}. {escape(cause.cause)} [dim]score {cause.score:.2f}[/]{probe}"
        )
        if cause.checks:
            console.print(f"       [cyan]first check:[/] {escape(cause.checks[0])}")


def register(cli: typer.Typer) -> None:
    @cli.command("diagnose")
    def diagnose(
        path: Annotated[
            Path, typer.Argument(help="A log file or run directory; '-' reads text on stdin.")
        ],
        as_json: Annotated[
            bool,
            typer.Option(
                "--json", help="Print the Diagnosis JSON (a list when PATH holds several runs)."
            ),
        ] = False,
        role: RoleOption = None,
        format: FormatOption = None,
        fail_on: Annotated[
            str,
            typer.Option(
                "--fail-on",
                help="Comma-separated labels, 'inconclusive' included: exit 1 if a run has one "
                "(default: exit 0 whatever the verdict).",
            ),
        ] = "",
    ) -> None:
        """Diagnose the run(s) in PATH: verdict, findings, ranked causes and first checks."""
        from lossforensics.audit.audit import parse_fail_on  # one parser for both commands

        gate = parse_fail_on(fail_on)
        diagnoses = diagnose_path(path, roles=parse_roles(role or []), format=format)
        if as_json:
            typer.echo(to_json(diagnoses))
        else:
            render(diagnoses, Console(highlight=False))
        hits = failing(diagnoses, gate)
        if hits:
            typer.echo(f"--fail-on: {len(hits)} run(s) have {', '.join(gate)}", err=True)
            raise typer.Exit(EXIT_FAIL_ON)
