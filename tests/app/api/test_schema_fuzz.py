"""schemathesis against the served OpenAPI schema: whatever it sends to any operation, never a
5xx, and every error is problem+json with a library error code."""

from __future__ import annotations

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from lossforensics.classifiers.errors import ERRORS_BY_CODE

EXAMPLES = 25


@pytest.mark.slow
def test_no_input_yields_a_server_error(server):
    schema = schemathesis.openapi.from_url(f"{server.url}/openapi.json")
    operations = [result.ok() for result in schema.get_all_operations()]
    assert len(operations) >= 8
    for op in operations:

        @given(case=op.as_strategy())
        @settings(
            max_examples=EXAMPLES,
            deadline=None,
            derandomize=True,
            database=None,
            suppress_health_check=list(HealthCheck),
        )
        def check(case: schemathesis.Case) -> None:
            resp = case.call(base_url=server.url, timeout=60)
            where = f"{case.method} {case.formatted_path}"
            assert resp.status_code < 500, (where, resp.text[:500])
            if resp.status_code >= 400:
                assert resp.headers["content-type"][0].startswith("application/problem+json"), where
                assert resp.json()["code"] in ERRORS_BY_CODE, where

        check()
