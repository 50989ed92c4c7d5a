"""`lossforensics serve | diagnose | audit | convert`: the command line, one module a command.

Errors from the library print as one line naming the file and place, never a traceback:
exit 2 for bad input or usage, 1 where a command says so (audit --fail-on), 0 otherwise.
"""

from __future__ import annotations

import importlib
import sys

import typer

from classifiers.errors import LossForensicsError

COMMANDS: tuple[str, ...] = ("serve", "rediagnose", "convert", "audit", "diagnose")

cli = typer.Typer(
    name="lossforensics",
    help="Post-hoc loss-curve forensics: read a run's logs, label what went wrong, rank causes.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


@cli.callback()
def _root() -> None:
    """Post-hoc loss-curve forensics."""


for _name in COMMANDS:
    importlib.import_module(f"app.commands.{_name}").register(cli)


def main(argv: list[str] | None = None) -> int:
    """Console-script entry point; returns the exit code."""
    try:
        rc = cli(args=argv, standalone_mode=False)
    except LossForensicsError as exc:
        typer.echo(f"error [{exc.code}]: {exc}", err=True)
        return 2
    except typer.Exit as exc:
        return exc.exit_code
    except typer.Abort:
        typer.echo("aborted", err=True)
        return 130
    except Exception as exc:  # click usage errors and the like
        import click

        if isinstance(exc, click.ClickException):
            exc.show()
            return 2
        raise
    return rc if isinstance(rc, int) else 0


if __name__ == "__main__":
    sys.exit(main())
