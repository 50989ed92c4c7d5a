"""`lossforensics rediagnose`: diagnose every stored run again, after the classifiers changed.

Reads the same LOSSFORENSICS_* settings as `serve` (same data dir, same database), so it can
run beside a live server. Prints each run whose verdict changed, then a count.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from lossforensics.commands.serve import build_settings


def register(cli: typer.Typer) -> None:
    @cli.command("rediagnose")
    def rediagnose(
        data_dir: Annotated[
            Path | None, typer.Option("--data-dir", help="The service's data dir.")
        ] = None,
        database_url: Annotated[
            str | None, typer.Option("--database-url", help="The service's database URL.")
        ] = None,
    ) -> None:
        """Diagnose every stored run again with the current classifiers."""
        from lossforensics.store import RunStore
        from lossforensics.store.pipeline import rediagnose_all

        settings = build_settings(data_dir=data_dir, database_url=database_url)
        store = RunStore.open(settings.data_dir, settings.database_url)
        try:
            results = rediagnose_all(store)
        finally:
            store.close()
        changed = 0
        for record, before in results:
            if record.verdict != before:
                changed += 1
                typer.echo(
                    f"{record.id}  {record.project}/{record.name}: {before} -> {record.verdict}"
                )
        typer.echo(f"rediagnosed {len(results)} run(s); {changed} verdict(s) changed")
