"""Shared dependencies of the routers: the injected settings, the store, the caller's
project (bearer-token auth when tokens are configured, one anonymous project otherwise), and
the request's `Idempotency-Key`. They are `async def` on purpose: they never block, and a sync
dependency costs a thread hop."""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Annotated, Any

from fastapi import Depends, Header, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from lossforensics.classifiers.errors import AuthError
from lossforensics.report.cache import RenderCache
from lossforensics.report.pool import RENDER_PROCESSES, RenderPool
from lossforensics.settings import ANONYMOUS_PROJECT, Settings
from lossforensics.store import RunStore
from lossforensics.store.idempotency import MAX_KEY_CHARS, IdempotencyKeys, Replay
from starlette.concurrency import run_in_threadpool

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
        pool = RenderPool(RENDER_PROCESSES)
        cache = request.app.state.render_cache = RenderCache(pool=pool)
    return cache


SettingsDep = Annotated[Settings, Depends(get_settings)]
RenderCacheDep = Annotated[RenderCache, Depends(get_render_cache)]
StoreDep = Annotated[RunStore, Depends(get_store)]


SESSION_COOKIE = "lf_session"


def session_value(token: str) -> str:
    """What the browser's session cookie holds for a token: its hash, never the token."""
    return hashlib.sha256(b"lossforensics-session:" + token.encode()).hexdigest()


def project_of_token(settings: Settings, token: str, *, hashed: bool = False) -> str | None:
    """The project of a token (or of a session cookie's hash), compared in constant time."""
    given = token.encode()
    project = None
    for known, proj in settings.token_projects.items():
        expected = session_value(known) if hashed else known
        if hmac.compare_digest(expected.encode(), given):
            project = proj
    return project


async def get_project(
    request: Request,
    settings: SettingsDep,
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)],
) -> str:
    """The project whose runs the caller sees: from the bearer token, else from the browser's
    session cookie (set by POST /session). An unknown or missing token is a 401; the token
    comparison takes the same time whichever token is close."""
    if not settings.token_projects:
        return ANONYMOUS_PROJECT
    if credentials is not None and credentials.scheme.lower() == "bearer":
        project = project_of_token(settings, credentials.credentials)
        if project is None:
            raise AuthError("unknown bearer token")
        return project
    cookie = request.cookies.get(SESSION_COOKIE)
    if cookie:
        project = project_of_token(settings, cookie, hashed=True)
        if project is None:
            raise AuthError("the session has ended; sign in again at /signin")
        return project
    raise AuthError("this server needs `Authorization: Bearer <token>` (or sign in at /signin)")


ProjectDep = Annotated[str, Depends(get_project)]


@dataclass(frozen=True)
class Idempotency:
    """A request's `Idempotency-Key`, scoped by project and endpoint."""

    keys: IdempotencyKeys
    project: str
    scope: str
    key: str

    async def once(
        self, fingerprint: str, work: Callable[[], Awaitable[tuple[int, Any]]]
    ) -> tuple[int, Any, bool]:
        """(status, answer, replayed): `work()`'s answer, or the answer this key was given
        before for the same fingerprint without doing the work again (409 for another
        fingerprint). A failed `work` leaves the key free, so a retry does it again."""
        got = await run_in_threadpool(
            self.keys.claim, self.project, self.scope, self.key, fingerprint
        )
        if isinstance(got, Replay):
            return got.status, got.answer, True
        try:
            status, answer = await work()
        except BaseException:
            await run_in_threadpool(self.keys.release, got)
            raise
        await run_in_threadpool(self.keys.finish, got, status, answer)
        return status, answer, False


async def get_idempotency(
    request: Request,
    store: StoreDep,
    project: ProjectDep,
    idempotency_key: Annotated[
        str | None,
        Header(
            min_length=1,
            max_length=MAX_KEY_CHARS,
            description="Any unique string per request (a UUID): a retry with the same key and "
            "body gets the first answer, nothing is done twice; the same key with another "
            "body is a 409. Keys are remembered for 24 h.",
        ),
    ] = None,
) -> Idempotency | None:
    """The request's Idempotency-Key (None without the header)."""
    if idempotency_key is None:
        return None
    keys = getattr(request.app.state, "idempotency_keys", None)
    if keys is None or keys.engine is not store.engine:
        keys = request.app.state.idempotency_keys = IdempotencyKeys(store.engine)
    scope = f"{request.method} {request.url.path}"  # a live run's batches: per run
    return Idempotency(keys, project, scope, idempotency_key)


IdempotencyDep = Annotated[Idempotency | None, Depends(get_idempotency)]
