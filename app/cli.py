"""`lossforensics serve | diagnose | audit | convert | watch`: the command line, one module
a command.

Errors from the library print as one line naming the file and place, never a traceback:
exit 2 for bad input or usage, 1 where a command says so (audit --fail-on), 0 otherwise.
"""

from __future__ import annotations

import importlib
import sys

import click
import typer
from lossforensics.classifiers.errors import LossForensicsError

# typer >= 0.29 bundles its own click: its usage errors are not `click.ClickException`s. Catch
# both, found by name in typer's own hierarchy so no private module is imported.
_USAGE_ERRORS: tuple[type[Exception], ...] = tuple(
    {click.ClickException}
    | {c for c in typer.BadParameter.__mro__ if c.__name__ == "ClickException"}
)

COMMANDS: tuple[str, ...] = ("serve", "rediagnose", "convert", "audit", "diagnose", "watch")

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
    importlib.import_module(f"lossforensics.commands.{_name}").register(cli)


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
    except _USAGE_ERRORS as exc:
        exc.show()  # type: ignore[attr-defined]
        return 2
    return rc if isinstance(rc, int) else 0


if __name__ == "__main__":
    sys.exit(main())
