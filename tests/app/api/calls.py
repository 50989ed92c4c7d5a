"""HTTP helpers of the API tests: upload files, assert a problem+json answer."""

from __future__ import annotations

from pathlib import Path

import httpx


def upload(
    client: httpx.Client, *paths: Path, url: str = "/v1/runs", names: list[str] | None = None, **kw
) -> httpx.Response:
    files = [
        ("file", ((names[i] if names else p.name), p.read_bytes())) for i, p in enumerate(paths)
    ]
    return client.post(url, files=files, **kw)


def assert_problem(resp: httpx.Response, status: int, code: str) -> dict:
    """The response is RFC 9457 problem+json with this status and library error code."""
    assert resp.status_code == status, resp.text
    assert resp.headers["content-type"].startswith("application/problem+json")
    body = resp.json()
    assert body["status"] == status and body["code"] == code, body
    assert body["type"].endswith(code) and body["title"] and body["detail"]
    return body
