"""docker/ cannot be built here; these tests keep it honest: the image's command parses with the
real CLI, the compose environment names real settings, and the container's rules hold (non-root,
no torch, healthcheck on /healthz, tokens set when binding 0.0.0.0)."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import pytest
import typer
import yaml
from lossforensics.cli import cli
from lossforensics.settings import Settings

DOCKER = Path(__file__).resolve().parents[1] / "docker"


def _instructions() -> list[tuple[str, str]]:
    text = (DOCKER / "Dockerfile").read_text().replace("\\\n", " ")
    out = []
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            word, _, rest = line.partition(" ")
            out.append((word.upper(), rest.strip()))
    return out


def _one(name: str) -> str:
    found = [rest for word, rest in _instructions() if word == name]
    assert len(found) == 1, f"expected one {name}, found {found}"
    return found[0]


def _parse_serve(args: list[str]) -> dict:
    """Parse with the real `serve` command; unknown options raise click.UsageError."""
    assert args[:2] == ["lossforensics", "serve"], args
    command = typer.main.get_command(cli).commands["serve"]
    return command.make_context("serve", list(args[2:])).params


def test_cmd_runs_the_real_cli_on_all_interfaces():
    params = _parse_serve(json.loads(_one("CMD")))
    assert params["host"] == "0.0.0.0" and params["port"] == 8000
    assert str(params["data_dir"]) == "/data"


def test_base_user_healthcheck_and_no_torch():
    assert re.fullmatch(r"python:3\.11-slim(-\w+)?", _one("FROM"))
    user = _one("USER")
    assert user not in ("root", "0")
    health = _one("HEALTHCHECK")
    port = _parse_serve(json.loads(_one("CMD")))["port"]
    assert f"127.0.0.1:{port}/healthz" in health
    installs = " ".join(rest for word, rest in _instructions() if word == "RUN")
    assert "pip install" in installs and "torch" not in installs
    assert re.search(r"'\.\[postgres\]'", installs)


def _compose() -> dict:
    return yaml.safe_load((DOCKER / "compose.yaml").read_text())


def _resolve(value: str) -> str:
    """Compose interpolation with a token set: ${X:-default} -> default, ${X:?msg} -> 'tok:p'."""
    value = re.sub(r"\$\{LOSSFORENSICS_TOKENS:\?[^}]*\}", "tok:proj", value)
    return re.sub(r"\$\{\w+:-([^}]*)\}", r"\1", value)


def test_compose_environment_names_real_settings():
    env = _compose()["services"]["api"]["environment"]
    fields = set(Settings.model_fields)
    for name in env:
        assert name.startswith("LOSSFORENSICS_"), name
        assert name.removeprefix("LOSSFORENSICS_").lower() in fields, f"{name} is no setting"
    settings = Settings(
        **{k.removeprefix("LOSSFORENSICS_").lower(): _resolve(str(v)) for k, v in env.items()}
    )
    assert settings.auth_enabled, "the container binds 0.0.0.0: tokens are required"
    assert settings.database_url.startswith("postgresql+psycopg://")
    assert "@db:5432/" in settings.database_url


def test_compose_requires_tokens_and_waits_for_a_healthy_postgres():
    compose = _compose()
    api, db = compose["services"]["api"], compose["services"]["db"]
    assert ":?" in api["environment"]["LOSSFORENSICS_TOKENS"]  # compose refuses to start without
    assert api["depends_on"]["db"]["condition"] == "service_healthy"
    assert db["image"].startswith("postgres")
    assert "pg_isready" in " ".join(db["healthcheck"]["test"])
    assert api["build"]["dockerfile"] == "docker/Dockerfile"
    url = api["environment"]["LOSSFORENSICS_DATABASE_URL"]
    assert db["environment"]["POSTGRES_DB"] in url and db["environment"]["POSTGRES_USER"] in url


def test_the_parser_used_above_rejects_unknown_options():
    with pytest.raises(Exception, match="No such option"):  # typer's (vendored) click
        _parse_serve(shlex.split("lossforensics serve --no-such-option"))
