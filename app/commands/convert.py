"""`lossforensics convert PATH --to csv|parquet|jsonl`: any supported log, as the normalised
frame (run, metric, role, step, value, wall_time, seq).

    lossforensics convert runs/exp1 --to csv > exp1.csv
    lossforensics convert wandb_export.csv --to parquet --out runs.parquet
    lossforensics convert metrics.json --to jsonl --role 'loss_*=train_loss'

The data goes to stdout (csv, jsonl) or --out; read warnings go to stderr, one a line.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path
from typing import Annotated

import typer
from lossforensics.commands._options import FormatOption, RoleOption
from lossforensics.ingest import load_run
from lossforensics.ingest._export import EXPORT_FORMATS, write_csv, write_jsonl, write_parquet


def _usage_error(message: str) -> typer.Exit:
    """A usage mistake: one line on stderr, exit 2 (as the CLI does for bad input)."""
    typer.echo(f"error [usage]: {message}", err=True)
    return typer.Exit(2)


def parse_roles(pairs: list[str]) -> dict[str, str]:
    """['train/*=train_loss', ...] -> {'train/*': 'train_loss'} (split at the last '=', since
    role names never hold one)."""
    roles = {}
    for pair in pairs:
        metric, sep, role = pair.rpartition("=")
        if not sep or not metric.strip() or not role.strip():
            raise _usage_error(f"--role expects METRIC=ROLE, got {pair!r}")
        roles[metric.strip()] = role.strip()
    return roles


def _write_atomic(out: Path, to: str, frame) -> None:
    """Write beside the target and rename, so a failed write never leaves half a file."""
    out.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=out.parent, prefix=f".{out.name}.", suffix=".tmp")
    os.close(fd)
    os.chmod(tmp, 0o644)  # mkstemp makes it private; the output is an ordinary file
    try:
        if to == "parquet":
            write_parquet(frame, Path(tmp))
        else:
            with open(tmp, "w", encoding="utf-8", newline="") as fh:
                (write_csv if to == "csv" else write_jsonl)(frame, fh)
        os.replace(tmp, out)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def register(cli: typer.Typer) -> None:
    @cli.command("convert")
    def convert(
        path: Annotated[Path, typer.Argument(help="A log file or run directory.")],
        to: Annotated[
            str, typer.Option("--to", help=f"Output format: {', '.join(EXPORT_FORMATS)}.")
        ] = "csv",
        out: Annotated[
            Path | None,
            typer.Option("--out", "-o", help="Write here (required for parquet); default stdout."),
        ] = None,
        role: RoleOption = None,
        format: FormatOption = None,
        run: Annotated[str | None, typer.Option("--run", help="Name the run this.")] = None,
    ) -> None:
        """Read PATH (any supported format) and write the normalised frame."""
        to = to.lower()
        if to not in EXPORT_FORMATS:
            raise _usage_error(f"--to must be one of {', '.join(EXPORT_FORMATS)}")
        if to == "parquet" and out is None:
            raise _usage_error("parquet is binary: give --out FILE")
        result = load_run(path, format=format, roles=parse_roles(role or []), run=run)
        for warning in result.warnings:
            typer.echo(f"warning: {warning}", err=True)
        if out is not None:
            _write_atomic(out, to, result.frame)
            typer.echo(
                f"wrote {len(result.frame)} points of {len(result.runs)} run(s) "
                f"({result.format}) to {out}",
                err=True,
            )
        elif to == "csv":
            write_csv(result.frame, sys.stdout)
        else:
            write_jsonl(result.frame, sys.stdout)
