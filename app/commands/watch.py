"""`lossforensics watch PATH`: follow a growing log or folder and say each finding as it appears.

    lossforensics watch runs/exp1                      # until Ctrl-C
    lossforensics watch metrics.jsonl --fail-on nan,exploding     # exit 1 at the first of them
    lossforensics watch runs/ --post http://lf:8000    # also send the points to a service

Every `--interval` seconds the new points are read (`ingest.follow`: only what grew; a record
cut mid-flush waits for the next tick) and each run's IncrementalDiagnosis takes them in; its
diagnosis then equals a full `diagnose` of everything read so far. Findings are said by the
callbacks' rule (`integrations.alerts`): nan and exploding at once, a course label (plateau,
overfit, ...) once it persists while the run grows by a quarter, and at `--idle-exit`
whatever the final diagnosis still holds. Each is printed once, with its summary and first
check; one said and later explained otherwise is said to be superseded. `--fail-on` acts on
the findings said. On a terminal a live table shows each run's points, last step and verdict;
otherwise (a pipe, a CI log) plain lines.

Exit codes: 1 as soon as a finding named by `--fail-on` is said, 0 on Ctrl-C or after
`--idle-exit` seconds without new points (1 if the final diagnoses hold a `--fail-on` label),
2 for bad input or usage.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Annotated

import typer
from lossforensics.classifiers.diagnosis import Finding
from lossforensics.classifiers.incremental import IncrementalDiagnosis, Tick
from lossforensics.commands._options import FormatOption, RoleOption
from lossforensics.commands.convert import parse_roles
from lossforensics.ingest.follow import Follower
from lossforensics.integrations.alerts import Alerts
from rich.console import Console
from rich.live import Live
from rich.markup import escape
from rich.table import Table

EXIT_FAIL_ON = 1


class Watch:
    """The watch loop, with its console, clock and sleep passed in (tests run it without a
    terminal or real waiting). `post(run, frame)` sends new points somewhere (a service)."""

    def __init__(
        self,
        follower: Follower,
        *,
        console: Console,
        fail_on: frozenset[str] = frozenset(),
        post: Callable[[str, object], None] | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.follower = follower
        self.console = console
        self.fail_on = fail_on
        self.post = post
        self.clock = clock
        self.runs: dict[str, IncrementalDiagnosis] = {}
        self.alerts: dict[str, Alerts] = {}
        self.failed: list[tuple[str, Finding]] = []
        self.last_growth = clock()

    def tick(self) -> int:
        """Read what grew, re-diagnose the runs that got points, print what changed; returns
        the number of new points."""
        batch = self.follower.poll()
        for w in batch.warnings:
            self.console.print(f"[yellow]warning:[/] {escape(str(w))}")
        if not len(batch):
            return 0
        self.last_growth = self.clock()
        runs = batch.frame["run"].astype(str)
        for name in runs.unique().tolist():
            rows = batch.frame[(runs == name).to_numpy()]
            live = self.runs.get(name)
            if live is None:
                source = {"format": None, "files": self.follower.files}
                live = self.runs[name] = IncrementalDiagnosis(name, source=source)
                self.alerts[name] = Alerts()
            live.add_frame(rows)
            if self.post is not None:
                self.post(name, rows)
            self.report(name, live.tick())
        return len(batch)

    def report(self, run: str, tick: Tick, *, final: bool = False) -> None:
        """Print the findings the alert rule says now (`final`: the watch is ending)."""
        if not tick.judged and not final:
            return
        live = self.runs[run]
        new, superseded = self.alerts[run].update(tick.diagnosis, live.points, final=final)
        for f in new:
            self.console.print(_finding_line(run, f), highlight=False)
            if f.label in self.fail_on:
                self.failed.append((run, f))
        for s in superseded:
            self.console.print(
                f"[dim]{escape(run)}[/]  [yellow]superseded[/] {escape(s.describe())}",
                highlight=False,
            )

    def finish(self) -> None:
        """The end of the watch: say what each run's final diagnosis still holds."""
        for name, live in self.runs.items():
            self.report(name, live.tick(), final=True)

    def table(self) -> Table:
        table = Table(box=None, header_style="bold")
        for col in ("run", "points", "last step", "verdict", "findings"):
            table.add_column(col)
        for name, live in self.runs.items():
            d = live.diagnosis
            steps = [m.last_step for m in d.metrics if m.last_step is not None] if d else []
            table.add_row(
                escape(name),
                str(live.points),
                str(max(steps)) if steps else "",
                d.verdict if d else "",
                ", ".join(self.alerts[name].said),
            )
        return table

    def run(
        self,
        interval: float,
        idle_exit: float | None = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> int:
        """Tick until a --fail-on finding is said (1), or --idle-exit seconds without points
        (0, or 1 when the final diagnoses hold a --fail-on label)."""
        live = Live(self.table(), console=self.console, auto_refresh=False, transient=True)
        with live if self.console.is_terminal else _Nothing():
            while True:
                self.tick()
                ending = idle_exit is not None and self.clock() - self.last_growth >= idle_exit
                if ending:
                    self.finish()
                if self.console.is_terminal:
                    live.update(self.table(), refresh=True)
                if self.failed:
                    run, f = self.failed[0]
                    self.console.print(
                        f"[bold red]stopping:[/] {escape(run)} has {f.label} (--fail-on)"
                    )
                    return EXIT_FAIL_ON
                if ending:
                    return 0
                sleep(interval)


class _Nothing:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> None:
        return None


def _finding_line(run: str, f: Finding) -> str:
    span = f" steps {f.span.start_step}-{f.span.end_step}" if f.span else ""
    line = f"{escape(run)}  [bold red]{f.label}[/] ({f.confidence:.2f}){span}: {escape(f.summary)}"
    checks = next((c.checks[0] for c in f.causes if c.checks), None)
    return line + (f"\n    first check: {escape(checks)}" if checks else "")


def poster(url: str, token: str | None = None) -> Callable[[str, object], None]:
    """A `post` sending each run's new points to a service's live run of the same name."""
    from lossforensics.client import Client

    client = Client(url, token=token)
    ids: dict[str, str] = {}

    def post(run: str, frame: object) -> None:
        if run not in ids:
            ids[run] = client.create_live_run(run).id
        client.append(ids[run], frame)

    return post


def _labels(value: str | None) -> frozenset[str]:
    return frozenset(x.strip() for x in (value or "").split(",") if x.strip())


def register(cli: typer.Typer) -> None:
    @cli.command("watch")
    def watch(
        path: Annotated[Path, typer.Argument(help="A log file or folder that is growing.")],
        fail_on: Annotated[
            str | None,
            typer.Option("--fail-on", help="Comma-separated labels: exit 1 when one appears."),
        ] = None,
        post: Annotated[
            str | None, typer.Option("--post", help="Send the points to this service URL.")
        ] = None,
        token: Annotated[
            str | None, typer.Option("--token", help="Bearer token for --post.")
        ] = None,
        interval: Annotated[float, typer.Option(help="Seconds between ticks.")] = 2.0,
        idle_exit: Annotated[
            float | None,
            typer.Option("--idle-exit", help="Exit 0 after this many seconds without points."),
        ] = None,
        format: FormatOption = None,
        role: RoleOption = None,
    ) -> int:
        """Follow a growing log and print each new finding once."""
        follower = Follower(path, format=format, roles=parse_roles(role or []))
        w = Watch(
            follower,
            console=Console(soft_wrap=True),
            fail_on=_labels(fail_on),
            post=poster(post, token) if post else None,
        )
        try:
            code = w.run(interval, idle_exit)
        except KeyboardInterrupt:
            code = 0
        raise typer.Exit(code)
