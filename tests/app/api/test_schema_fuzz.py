"""schemathesis against the served OpenAPI schema: whatever it sends, never a 5xx, and every
error is problem+json with a library error code."""

from __future__ import annotations

import pytest
import schemathesis
from hypothesis import HealthCheck, settings

from classifiers.errors import ERRORS_BY_CODE


@pytest.fixture(scope="module")
def api_schema(server):
    return schemathesis.openapi.from_url(f"{server.url}/openapi.json")


schema = schemathesis.pytest.from_fixture("api_schema")


@pytest.mark.slow
@schema.parametrize()
@settings(max_examples=25, deadline=None, derandomize=True,
          suppress_health_check=list(HealthCheck))
def test_no_input_yields_a_server_error(case, server):
    resp = case.call(base_url=server.url, timeout=60)
    assert resp.status_code < 500, (case.method, case.path, resp.text[:500])
    if resp.status_code >= 400:
        assert resp.headers["content-type"].startswith("application/problem+json")
        assert resp.json()["code"] in ERRORS_BY_CODE
