"""Deployment settings of the service: one pydantic-settings class, read once and injected.

Every field reads from the environment with the `LOSSFORENSICS_` prefix (`LOSSFORENSICS_DATA_DIR`,
`LOSSFORENSICS_TOKENS`, ...). Classifier thresholds are not settings: they belong to the library.

The defaults bound the server's process tree under 1.5 GiB with every worker busy on a hostile
upload (docs/security.md, "Memory"): WORKER_PROCESSES x WORKER_MEMORY_BYTES (2 x 480 MiB) for
the workers, plus the server (~260 MiB idle) holding at most two results of
WORKER_OUTPUT_BYTES, each as received bytes and as objects (2 x 2 x 64 MiB), plus ~12 MiB for
multiprocessing's resource tracker: 960 + 260 + 256 + 12 = 1,488 MiB. MAX_POINTS_PER_UPLOAD
(1M points, 64 bytes each) is what fits in that output, and reading 1M points peaks near 430 MiB
in a worker, under its 480.
"""

from __future__ import annotations

import ipaddress
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import Field, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

if TYPE_CHECKING:
    from lossforensics.isolate import WorkerLimits

MiB = 1024 * 1024
ANONYMOUS_PROJECT = "default"
LOOPBACK_HOSTS = ("localhost", "127.0.0.1", "::1")


class Settings(BaseSettings):
    """Where data lives, how much an upload may hold, who may call, where to listen."""

    model_config = SettingsConfigDict(env_prefix="LOSSFORENSICS_", extra="ignore")

    data_dir: Path = Field(Path(".lf-data"), description="Parquet frames, uploads, SQLite file")
    database_url: str | None = Field(
        None,
        description="SQLAlchemy URL for metadata (postgresql+psycopg://...); "
        "unset = SQLite file in data_dir",
    )
    host: str = Field("127.0.0.1", description="interface to bind")
    port: int = Field(8000, ge=0, le=65535, description="port to bind")
    tokens: str = Field("", description="'token:project,token2:project2'; empty = no auth")
    max_upload_bytes: int = Field(1024 * MiB, gt=0, description="bytes per request body (413)")
    max_unpacked_bytes: int = Field(
        4096 * MiB, gt=0, description="bytes after decompressing archives (zip bombs)"
    )
    max_archive_members: int = Field(10_000, gt=0, description="members per archive")
    max_points_per_run: int = Field(50_000_000, gt=0, description="points per stored run")
    max_files_per_upload: int = Field(1_000, gt=0, description="file parts per request")
    max_points_per_upload: int = Field(
        1_000_000,
        gt=0,
        description="points read from one upload, counted while reading (1M points are ~64 MB: "
        "within WORKER_OUTPUT_BYTES)",
    )
    max_columns: int = Field(
        10_000, gt=0, description="columns of a CSV (a W&B export of n runs: 3n+1)"
    )
    max_cells: int = Field(
        5_000_000,
        gt=0,
        description="cells (columns x rows) of one CSV, counted chunk by chunk while reading: a "
        "wide table is refused before its points are built (a 700-run W&B export of 1,000 steps "
        "is 2.1M)",
    )
    max_metric_name_chars: int = Field(1024, gt=0, description="characters of a metric name")
    max_run_name_chars: int = Field(1024, gt=0, description="characters of a run name")
    max_line_bytes: int = Field(
        16 * MiB, gt=0, description="bytes of one CSV header line or field (read whole up to this)"
    )
    isolate: bool = Field(True, description="read every upload in a limited worker process")
    worker_processes: int = Field(
        2,
        ge=1,
        le=64,
        description="size of the parsing worker pool (one starts with the server, the others "
        "when all are busy); times WORKER_MEMORY_BYTES, the workers' share of the memory bound",
    )
    worker_memory_bytes: int = Field(
        480 * MiB,
        gt=0,
        description="resident memory a parsing worker may reach, its imports included (413); "
        "2 x 480 MiB + the server's ~520 MiB at most keeps the tree under 1.5 GiB",
    )
    worker_cpu_seconds: int = Field(120, gt=0, description="CPU seconds per upload (413)")
    worker_wall_seconds: float = Field(300.0, gt=0, description="wall seconds per upload (413)")
    worker_output_bytes: int = Field(
        64 * MiB,
        gt=0,
        description="bytes a worker may send back for one upload (413); the server holds each "
        "result twice while it unpacks it",
    )
    allowed_hosts: str = Field(
        "",
        description="comma-separated Host names served; empty = localhost and loopback addresses "
        "on a loopback bind (required on any other bind); '*' = any host",
    )
    allowed_origins: str = Field(
        "", description="comma-separated extra origins (scheme://host:port) allowed to POST/DELETE"
    )
    orphan_grace_seconds: float = Field(
        0.0,
        ge=0,
        description="leave orphan frames younger than this at start "
        "(set > 0 when several hosts share data_dir)",
    )

    @field_validator("tokens")
    @classmethod
    def _tokens_parse(cls, value: str) -> str:
        parse_tokens(value)
        return value

    @property
    def token_projects(self) -> dict[str, str]:
        """Bearer token -> project it may see."""
        return parse_tokens(self.tokens)

    @property
    def auth_enabled(self) -> bool:
        return bool(self.token_projects)

    @property
    def projects(self) -> list[str]:
        """Every project a caller can be in (the anonymous one when auth is off)."""
        return sorted(set(self.token_projects.values())) or [ANONYMOUS_PROJECT]

    @property
    def resolved_database_url(self) -> str:
        if self.database_url:
            return self.database_url
        return f"sqlite:///{(self.data_dir / 'lossforensics.db').resolve()}"

    @property
    def binds_loopback(self) -> bool:
        return is_loopback(self.host)

    @property
    def origin_allow_list(self) -> frozenset[str]:
        return frozenset(o.strip() for o in self.allowed_origins.split(",") if o.strip())

    @property
    def host_allow_list(self) -> frozenset[str] | None:
        """Host names requests may name (lower case, no port); None = any. Empty when the bind
        is not loopback and no list is set: the server then refuses to start."""
        names = {h.strip().lower().strip("[]") for h in self.allowed_hosts.split(",") if h.strip()}
        if "*" in names:
            return None
        if not names and self.binds_loopback:
            names = set(LOOPBACK_HOSTS)
        return frozenset(names)


def worker_limits(settings: Settings) -> WorkerLimits:
    """The hard limits of a parsing worker, from the settings."""
    from lossforensics.isolate import WorkerLimits

    return WorkerLimits(
        memory_bytes=settings.worker_memory_bytes,
        cpu_seconds=settings.worker_cpu_seconds,
        wall_seconds=settings.worker_wall_seconds,
        output_bytes=settings.worker_output_bytes,
    )


def parse_tokens(spec: str) -> dict[str, str]:
    """'tok1:projA, tok2:projB' -> {'tok1': 'projA', 'tok2': 'projB'}; raises ValueError."""
    out: dict[str, str] = {}
    for item in (p.strip() for p in spec.split(",")):
        if not item:
            continue
        token, sep, project = item.partition(":")
        token, project = token.strip(), project.strip()
        if not sep or not token or not project:
            raise ValueError(f"token entry {item[:4]}... must be 'token:project'")
        out[token] = project
    return out


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False
