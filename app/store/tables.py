"""The metadata schema (SQLAlchemy Core): one row a run, one row per (run, label) for filtering.

The frame itself lives in a Parquet file named after the run id (app/store/frames.py); the row is
written after the file, in one transaction, so a row always has its file.
"""

from __future__ import annotations

import sqlalchemy as sa

metadata = sa.MetaData()

runs = sa.Table(
    "lf_runs",
    metadata,
    sa.Column("id", sa.String(32), primary_key=True),
    sa.Column("project", sa.String(200), nullable=False),
    sa.Column("name", sa.Text, nullable=False),
    sa.Column("created_at", sa.Float, nullable=False),
    sa.Column("diagnosed_at", sa.Float, nullable=False),
    sa.Column("format", sa.String(64)),
    sa.Column("files", sa.JSON, nullable=False),
    sa.Column("points", sa.BigInteger, nullable=False),
    sa.Column("verdict", sa.String(64), nullable=False),
    sa.Column("diagnosis", sa.JSON, nullable=False),
    # Where the run came from when loading must be idempotent ('sample:overfit_resnet'); else NULL.
    sa.Column("origin", sa.Text),
    sa.UniqueConstraint("project", "origin", name="uq_lf_runs_project_origin"),
    sa.Index("ix_lf_runs_project_created", "project", "created_at"),
)

run_labels = sa.Table(
    "lf_run_labels",
    metadata,
    sa.Column(
        "run_id", sa.String(32), sa.ForeignKey("lf_runs.id", ondelete="CASCADE"), primary_key=True
    ),
    sa.Column("label", sa.String(64), primary_key=True),
    sa.Index("ix_lf_run_labels_label", "label"),
)

# One row per Idempotency-Key a project sent to an endpoint (`scope`, e.g. 'POST /v1/runs'):
# the fingerprint of the request it came with, and once done the answer given (status NULL
# while the first request is still working). Rows older than the key's lifetime are replaced.
idempotency_keys = sa.Table(
    "lf_idempotency_keys",
    metadata,
    sa.Column("project", sa.String(200), primary_key=True),
    sa.Column("scope", sa.String(200), primary_key=True),
    sa.Column("key", sa.String(200), primary_key=True),
    sa.Column("fingerprint", sa.String(64), nullable=False),
    sa.Column("created_at", sa.Float, nullable=False),
    sa.Column("status", sa.Integer),
    sa.Column("answer", sa.JSON),
    sa.Index("ix_lf_idempotency_created", "created_at"),
)
