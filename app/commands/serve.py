"""`lossforensics serve`: the HTTP service (uvicorn), settings from LOSSFORENSICS_* variables,
overridden by the options given here.

    lossforensics serve                              # 127.0.0.1:8000, embedded SQLite store
    lossforensics serve --with-samples               # ... with sample_runs/ loaded (make run)
    LOSSFORENSICS_TOKENS=tok:proj lossforensics serve --host 0.0.0.0

Without tokens anyone who can reach the port sees every run, so the service refuses to bind a
non-loopback address without tokens unless told `--allow-anonymous`.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated, Any

import typer
from lossforensics.settings import Settings

REPO_SAMPLES = Path(__file__).resolve().parents[2] / "sample_runs"


def build_settings(**overrides: Any) -> Settings:
    """Settings from the environment, with the options that were given taking precedence."""
    return Settings(**{k: v for k, v in overrides.items() if v is not None})


def settings_env(settings: Settings) -> dict[str, str]:
    """The settings as LOSSFORENSICS_* variables, for worker processes to read back."""
    out = {}
    for name, value in settings.model_dump().items():
        if value is not None:
            out[f"LOSSFORENSICS_{name.upper()}"] = str(value)
    return out


def per_worker(settings: Settings, workers: int) -> Settings:
    """The settings each of `workers` server processes runs with: the parsing pool
    (`worker_processes`) shared out among them, so that N server workers do not start N whole
    pools (on 2 cores, 2 server workers of 1 parsing process each keep both cores busy)."""
    share = max(1, -(-settings.worker_processes // workers))
    return settings.model_copy(update={"worker_processes": share})


def default_samples_dir() -> Path:
    cwd = Path.cwd() / "sample_runs"
    return cwd if cwd.is_dir() else REPO_SAMPLES


def startup_lines(settings: Settings) -> list[str]:
    where = f"http://{settings.host}:{settings.port}"
    store = "PostgreSQL" if settings.database_url else "SQLite"
    lines = [
        f"lossforensics: serving on {where} (docs at {where}/docs); "
        f"data in {settings.data_dir.resolve()} ({store} metadata)"
    ]
    if settings.auth_enabled:
        lines.append(
            f"lossforensics: bearer-token auth on, projects: {', '.join(settings.projects)}"
        )
    elif settings.binds_loopback:
        lines.append(
            "lossforensics: no LOSSFORENSICS_TOKENS set: no auth, so bound to "
            "loopback only; set tokens to serve other machines"
        )
    else:
        lines.append(
            "lossforensics: WARNING no auth and bound to a public interface: "
            "anyone who reaches this port sees and deletes every run"
        )
    return lines


def register(cli: typer.Typer) -> None:
    @cli.command("serve")
    def serve(
        host: Annotated[str | None, typer.Option(help="Interface (default 127.0.0.1).")] = None,
        port: Annotated[int | None, typer.Option(help="Port (default 8000).")] = None,
        data_dir: Annotated[
            Path | None, typer.Option("--data-dir", help="Frames, uploads and the SQLite file.")
        ] = None,
        database_url: Annotated[
            str | None,
            typer.Option(
                "--database-url", help="postgresql+psycopg://... (default: SQLite in data dir)."
            ),
        ] = None,
        with_samples: Annotated[
            bool,
            typer.Option("--with-samples", help="Load sample_runs/ at start (once; idempotent)."),
        ] = False,
        samples_dir: Annotated[
            Path | None,
            typer.Option(
                "--samples-dir", help="Where the sample runs are (default ./sample_runs)."
            ),
        ] = None,
        allow_anonymous: Annotated[
            bool,
            typer.Option("--allow-anonymous", help="Bind a non-loopback address without tokens."),
        ] = False,
        workers: Annotated[
            int,
            typer.Option(
                min=1, help="Worker processes (diagnosis is CPU-bound: up to one per core)."
            ),
        ] = 1,
        log_level: Annotated[str, typer.Option(help="uvicorn log level.")] = "info",
    ) -> None:
        """Run the HTTP service."""
        import uvicorn
        from lossforensics.api.app import create_app, open_store

        settings = build_settings(
            host=host, port=port, data_dir=data_dir, database_url=database_url
        )
        if not settings.auth_enabled and not settings.binds_loopback and not allow_anonymous:
            typer.echo(
                f"error: refusing to bind {settings.host} without LOSSFORENSICS_TOKENS "
                "(anyone could read and delete runs); set tokens, bind 127.0.0.1, or "
                "pass --allow-anonymous",
                err=True,
            )
            raise typer.Exit(2)
        if not settings.host_allow_list and settings.host_allow_list is not None:
            typer.echo(
                f"error: binding {settings.host} needs LOSSFORENSICS_ALLOWED_HOSTS, the host "
                "names clients use to reach this server (e.g. 'lf.example.com,localhost'; '*' "
                "for any): a foreign Host header is how DNS rebinding reaches a service",
                err=True,
            )
            raise typer.Exit(2)
        for line in startup_lines(settings):
            typer.echo(line, err=True)
        samples = (samples_dir or default_samples_dir()) if with_samples else None
        if workers == 1:
            app = create_app(settings, samples_dir=samples)
            uvicorn.run(
                app,
                host=settings.host,
                port=settings.port,
                log_level=log_level,
                timeout_graceful_shutdown=10,
            )
            return
        open_store(settings, samples).close()  # clean-up and samples once, before any worker
        os.environ.update(settings_env(per_worker(settings, workers)))
        uvicorn.run(
            "lossforensics.api.app:worker_app",
            factory=True,
            workers=workers,
            host=settings.host,
            port=settings.port,
            log_level=log_level,
            timeout_graceful_shutdown=10,
            timeout_worker_healthcheck=120,
        )  # a worker imports pandas, scipy, ... first
