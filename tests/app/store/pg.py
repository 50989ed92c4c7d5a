"""A private PostgreSQL schema per test, on the server named by LOSSFORENSICS_TEST_DATABASE_URL
(tests skip with the reason when it is unset)."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
import sqlalchemy as sa

ENV = "LOSSFORENSICS_TEST_DATABASE_URL"


@contextmanager
def pg_schema_url() -> Iterator[str]:
    """A URL whose connections use a fresh schema (dropped afterwards)."""
    base = os.environ.get(ENV)
    if not base:
        pytest.skip(f"{ENV} is unset (run `bash .ci/postgres.sh` and source .ci/pg.env)")
    schema = f"lf_test_{uuid.uuid4().hex[:12]}"
    admin = sa.create_engine(base)
    with admin.begin() as conn:
        conn.exec_driver_sql(f'CREATE SCHEMA "{schema}"')
    url = sa.make_url(base).update_query_dict({"options": f"-csearch_path={schema}"})
    try:
        yield url.render_as_string(hide_password=False)
    finally:
        with admin.begin() as conn:
            conn.exec_driver_sql(f'DROP SCHEMA "{schema}" CASCADE')
        admin.dispose()
