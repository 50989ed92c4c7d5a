"""The browser interface at `/`: plain HTML pages and small vanilla JS modules over the JSON API,
shipped in the package (uPlot vendored under static/vendor/, nothing from a CDN).

Pages are static files; their scripts read `/v1/...`. With auth on, `POST /session` trades a
token for a session cookie (HttpOnly, SameSite=Strict, holding a hash of the token, never the
token), which `deps.get_project` accepts beside the bearer header, so the pages, downloads and
report.html open in a browser.
"""

from __future__ import annotations

from pathlib import Path

from fastapi import FastAPI

STATIC = Path(__file__).parent / "static"


def install(app: FastAPI) -> None:
    """Mount the pages and their static files (under /ui) on `app`."""
    from fastapi.staticfiles import StaticFiles
    from lossforensics.web import pages

    app.include_router(pages.router)
    app.mount("/ui", StaticFiles(directory=STATIC), name="web-static")
