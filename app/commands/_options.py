"""Options several sub-commands share, declared once so their flags and help read the same."""

from __future__ import annotations

from typing import Annotated

import typer

RoleOption = Annotated[
    list[str] | None,
    typer.Option("--role", help="METRIC=ROLE override (glob patterns allowed); repeatable."),
]
FormatOption = Annotated[
    str | None,
    typer.Option("--format", help="Input format, when detection should be skipped."),
]
