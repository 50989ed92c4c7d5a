"""Routes of the browser interface: the pages and sign-in/sign-out (a session cookie)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Form, Request, Response
from fastapi.responses import FileResponse, RedirectResponse
from lossforensics.api.deps import SESSION_COOKIE, SettingsDep, project_of_token, session_value
from lossforensics.classifiers.errors import AuthError

router = APIRouter(include_in_schema=False)

# Pages load only their own origin's files; the chart draws on a canvas, styles are files.
CSP = (
    "default-src 'self'; img-src 'self' data: blob:; style-src 'self' 'unsafe-inline'; "
    "script-src 'self'; connect-src 'self'; frame-ancestors 'none'; base-uri 'self'; "
    "form-action 'self'"
)
HEADERS = {
    "Content-Security-Policy": CSP,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
    "Cache-Control": "no-cache",
}
SESSION_MAX_AGE = 7 * 24 * 3600


def _page(name: str) -> FileResponse:
    from lossforensics.web import STATIC

    return FileResponse(STATIC / name, media_type="text/html", headers=HEADERS)


@router.get("/")
def runs_page() -> FileResponse:
    return _page("index.html")


@router.get("/runs/{run_id}")
def run_page(run_id: str) -> FileResponse:
    return _page("run.html")


@router.get("/compare")
def compare_page() -> FileResponse:
    return _page("compare.html")


@router.get("/signin")
def signin_page() -> FileResponse:
    return _page("signin.html")


@router.get("/favicon.ico")
def favicon() -> Response:
    return Response(status_code=204)


@router.get("/session")
def session(request: Request, settings: SettingsDep) -> dict:
    """Whether auth is on and whether this browser is signed in (never a 401, so a page can
    decide to show the sign-in form without a failed request in its console)."""
    if not settings.auth_enabled:
        return {"auth": False, "signed_in": True, "project": None}
    cookie = request.cookies.get(SESSION_COOKIE) or ""
    project = project_of_token(settings, cookie, hashed=True) if cookie else None
    return {"auth": True, "signed_in": project is not None, "project": project}


@router.post("/session")
def sign_in(
    settings: SettingsDep,
    token: Annotated[str, Form(max_length=4096)],
    next: Annotated[str, Form(max_length=2048)] = "/",
) -> Response:
    """Trade a token for a session cookie, then go to `next` (a path on this site only)."""
    project = project_of_token(settings, token)
    if project is None:
        raise AuthError("unknown token")
    target = next if next.startswith("/") and not next.startswith("//") else "/"
    resp = RedirectResponse(target, status_code=303)
    resp.set_cookie(
        SESSION_COOKIE,
        session_value(token),
        max_age=SESSION_MAX_AGE,
        httponly=True,
        samesite="strict",
        secure=False,  # loopback and plain-HTTP deployments; a TLS proxy may add Secure
        path="/",
    )
    return resp


@router.post("/session/end")
def sign_out() -> Response:
    resp = RedirectResponse("/signin", status_code=303)
    resp.delete_cookie(SESSION_COOKIE, path="/", httponly=True, samesite="strict")
    return resp
