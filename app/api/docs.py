"""/docs (Swagger UI) and /redoc (ReDoc) served from the package, so they work offline.

FastAPI's own pages load their JavaScript, CSS and favicon from public CDNs; a service on a
cluster without internet would show a blank page. The same pages are built here with FastAPI's
`get_swagger_ui_html` / `get_redoc_html`, pointed at the copies in `static/` (swagger-ui-dist and
redoc from the npm registry, unmodified, each with its licence; `static/README.md` says which
versions and how to update them), mounted under `ASSETS_URL`.
"""

from __future__ import annotations

from pathlib import Path

from fastapi import FastAPI, Request
from fastapi.openapi.docs import (
    get_redoc_html,
    get_swagger_ui_html,
    get_swagger_ui_oauth2_redirect_html,
)
from fastapi.responses import HTMLResponse
from fastapi.staticfiles import StaticFiles

STATIC_DIR = Path(__file__).parent / "static"
ASSETS_URL = "/_docs-assets"
SWAGGER_JS = "swagger-ui/swagger-ui-bundle.js"
SWAGGER_CSS = "swagger-ui/swagger-ui.css"
REDOC_JS = "redoc/redoc.standalone.js"
FAVICON = "swagger-ui/favicon-32x32.png"


def install(app: FastAPI, *, docs_url: str = "/docs", redoc_url: str = "/redoc") -> None:
    """Mount the assets and add the two pages; the app must be built with docs_url=None and
    redoc_url=None so FastAPI's CDN pages are not registered first."""
    app.mount(ASSETS_URL, StaticFiles(directory=STATIC_DIR), name="docs-assets")
    openapi_url = app.openapi_url or "/openapi.json"
    oauth2_redirect_url = app.swagger_ui_oauth2_redirect_url

    def asset(request: Request, name: str) -> str:
        return f"{request.scope.get('root_path', '')}{ASSETS_URL}/{name}"

    @app.get(docs_url, include_in_schema=False)
    async def swagger_ui(request: Request) -> HTMLResponse:
        root = request.scope.get("root_path", "")
        return get_swagger_ui_html(
            openapi_url=f"{root}{openapi_url}",
            title=f"{app.title} - Swagger UI",
            swagger_js_url=asset(request, SWAGGER_JS),
            swagger_css_url=asset(request, SWAGGER_CSS),
            swagger_favicon_url=asset(request, FAVICON),
            oauth2_redirect_url=f"{root}{oauth2_redirect_url}" if oauth2_redirect_url else None,
            swagger_ui_parameters=app.swagger_ui_parameters,
        )

    if oauth2_redirect_url:

        @app.get(oauth2_redirect_url, include_in_schema=False)
        async def swagger_ui_redirect() -> HTMLResponse:
            return get_swagger_ui_oauth2_redirect_html()

    @app.get(redoc_url, include_in_schema=False)
    async def redoc(request: Request) -> HTMLResponse:
        root = request.scope.get("root_path", "")
        return get_redoc_html(
            openapi_url=f"{root}{openapi_url}",
            title=f"{app.title} - ReDoc",
            redoc_js_url=asset(request, REDOC_JS),
            redoc_favicon_url=asset(request, FAVICON),
            with_google_fonts=False,
        )
