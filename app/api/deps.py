"""Shared dependencies of the routers: the injected settings, the store, and the caller's
project (bearer-token auth when tokens are configured, one anonymous project otherwise).
They are `async def` on purpose: they never block, and a sync dependency costs a thread hop."""

from __future__ import annotations

import hmac
from typing import Annotated

from fastapi import Depends, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from lossforensics.classifiers.errors import AuthError
from lossforensics.report.cache import RenderCache
from lossforensics.settings import ANONYMOUS_PROJECT, Settings
from lossforensics.store import RunStore

_bearer = HTTPBearer(
    auto_error=False,
    description="A token from LOSSFORENSICS_TOKENS; "
    "needed only when the server has tokens configured.",
)


async def get_settings(request: Request) -> Settings:
    return request.app.state.settings


async def get_store(request: Request) -> RunStore:
    return request.app.state.store


async def get_render_cache(request: Request) -> RenderCache:
    """The app's cache of drawn plots and reports (one per worker process)."""
    cache = getattr(request.app.state, "render_cache", None)
    if cache is None:
        cache = request.app.state.render_cache = RenderCache()
    return cache


SettingsDep = Annotated[Settings, Depends(get_settings)]
RenderCacheDep = Annotated[RenderCache, Depends(get_render_cache)]
StoreDep = Annotated[RunStore, Depends(get_store)]


async def get_project(
    settings: SettingsDep,
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)],
) -> str:
    """The project whose runs the caller sees. An unknown or missing token is a 401; the token
    comparison takes the same time whichever token is close."""
    tokens = settings.token_projects
    if not tokens:
        return ANONYMOUS_PROJECT
    if credentials is None or credentials.scheme.lower() != "bearer":
        raise AuthError("this server needs `Authorization: Bearer <token>`")
    given = credentials.credentials.encode()
    project = None
    for token, proj in tokens.items():
        if hmac.compare_digest(token.encode(), given):
            project = proj
    if project is None:
        raise AuthError("unknown bearer token")
    return project


ProjectDep = Annotated[str, Depends(get_project)]
