"""Browser tests: Playwright for Python driving the system's chromium against a real
`lossforensics serve` on loopback. Outside CI a missing browser skips them; in CI
(LOSSFORENSICS_EXPECT_INSTALLED=1) it fails them, so they can never silently not run."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.app.api._server import REPO, Server

SCREENSHOTS = REPO / "build" / "screenshots"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
TOKEN = "web-test-token"


def _chromium() -> str | None:
    for cand in (os.environ.get("LOSSFORENSICS_CHROMIUM"), "/usr/bin/chromium"):
        if cand and Path(cand).exists():
            return cand
    return shutil.which("chromium") or shutil.which("chromium-browser")


def _missing(reason: str) -> None:
    if os.environ.get("LOSSFORENSICS_EXPECT_INSTALLED"):
        pytest.fail(f"browser tests cannot run in CI: {reason}")
    pytest.skip(reason)


@pytest.fixture(scope="session")
def browser() -> Iterator[object]:
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _missing("playwright is not installed (pip install 'lossforensics[dev]')")
    exe = _chromium()
    if exe is None:
        _missing("no chromium binary (apt-get install chromium)")
    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=exe, args=CHROMIUM_ARGS)
        yield b
        b.close()


@pytest.fixture(scope="module")
def web_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    srv = Server(tmp_path_factory.mktemp("web") / "data").start()
    yield srv
    srv.stop()


@pytest.fixture(scope="module")
def auth_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    srv = Server(
        tmp_path_factory.mktemp("webauth") / "data",
        env={"LOSSFORENSICS_TOKENS": f"{TOKEN}:team"},
    ).start()
    yield srv
    srv.stop()


class Page:
    """A page with its console errors, failed requests and foreign hosts recorded."""

    def __init__(self, page: object, origin: str) -> None:
        self.page = page
        self.errors: list[str] = []
        self.foreign: list[str] = []
        page.on("console", lambda m: m.type == "error" and self.errors.append(m.text))  # type: ignore[attr-defined]
        page.on("pageerror", lambda e: self.errors.append(str(e)))  # type: ignore[attr-defined]
        page.on(  # type: ignore[attr-defined]
            "request",
            lambda r: (
                None
                if r.url.startswith((origin, "data:", "blob:", "about:"))
                else self.foreign.append(r.url)
            ),
        )

    def shot(self, name: str) -> Path:
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        path = SCREENSHOTS / f"{name}.png"
        self.page.screenshot(path=str(path), full_page=True)  # type: ignore[attr-defined]
        return path

    def clean(self) -> None:
        assert not self.errors, self.errors
        assert not self.foreign, self.foreign


@pytest.fixture()
def open_page(browser: object) -> Iterator:
    contexts = []

    def make(server: Server) -> Page:
        ctx = browser.new_context(viewport={"width": 1400, "height": 900})  # type: ignore[attr-defined]
        contexts.append(ctx)
        return Page(ctx.new_page(), server.url)

    yield make
    for ctx in contexts:
        ctx.close()
