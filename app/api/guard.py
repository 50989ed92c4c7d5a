"""Host and Origin checks, before any route runs (a plain ASGI middleware).

- Host: a request must name a host on the allow-list (`Settings.host_allow_list`: on a loopback
  bind, `localhost` and the loopback addresses unless set; `*` turns the check off). A page
  loaded from `http://attacker.example` whose name is re-pointed at 127.0.0.1 (DNS rebinding)
  still sends `Host: attacker.example`, and is refused. /healthz is exempt, for probes that
  address the container by IP.
- Origin: a state-changing request (anything but GET, HEAD, OPTIONS) that carries an `Origin`
  must come from this server's own origin (host and port as in `Host`) or one listed in
  `allowed_origins`; without `Origin`, a `Sec-Fetch-Site: cross-site` is refused too. Browsers
  send these on cross-site form posts and fetches, so a page elsewhere cannot upload or delete
  runs (CSRF), with or without a token; programs that send neither are unaffected.

Both answer 403 problem+json with code `forbidden`.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from lossforensics.api.errors import problem
from starlette.datastructures import Headers
from starlette.types import ASGIApp, Receive, Scope, Send

SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
EXEMPT_PATHS = frozenset({"/healthz"})


def hostname(host: str) -> str:
    """'Example.com:8000' -> 'example.com'; '[::1]:8000' -> '::1'."""
    host = host.strip().lower()
    if host.startswith("["):
        return host[1 : host.find("]")] if "]" in host else host
    return host.rsplit(":", 1)[0] if host.count(":") == 1 else host


class HostOriginGuard:
    def __init__(
        self,
        app: ASGIApp,
        *,
        allowed_hosts: frozenset[str] | None,
        allowed_origins: frozenset[str] = frozenset(),
    ) -> None:
        self.app = app
        self.allowed_hosts = allowed_hosts
        self.allowed_origins = frozenset(o.rstrip("/").lower() for o in allowed_origins)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        host = headers.get("host", "")
        why = self.refusal(scope, headers, host)
        if why is None:
            await self.app(scope, receive, send)
            return
        response = problem(
            403,
            "forbidden",
            why,
            instance=scope.get("path"),
            message=why,
            file=None,
            line=None,
            byte=None,
        )
        await response(scope, receive, send)

    def refusal(self, scope: Scope, headers: Headers, host: str) -> str | None:
        """Why the request is refused, or None."""
        if (
            self.allowed_hosts is not None
            and scope.get("path") not in EXEMPT_PATHS
            and hostname(host) not in self.allowed_hosts
        ):
            return (
                f"host {host[:100]!r} is not served here; add it to LOSSFORENSICS_ALLOWED_HOSTS "
                "if it names this server"
            )
        if scope.get("method", "GET") in SAFE_METHODS:
            return None
        origin = headers.get("origin")
        if origin is not None:
            if self.same_origin(origin, host):
                return None
            return (
                f"cross-site request from origin {origin[:100]!r} refused; add it to "
                "LOSSFORENSICS_ALLOWED_ORIGINS if that page may change runs here"
            )
        if headers.get("sec-fetch-site", "").lower() == "cross-site":
            return "cross-site request refused (Sec-Fetch-Site: cross-site)"
        return None

    def same_origin(self, origin: str, host: str) -> bool:
        """The origin names this server as the request reached it (host and port; the scheme
        is not compared, since a TLS proxy in front makes them differ)."""
        origin = origin.strip().lower().rstrip("/")
        if origin in self.allowed_origins:
            return True
        if origin == "null":
            return False
        parts = urlsplit(origin)
        return bool(parts.netloc) and parts.netloc == host.strip().lower()
