"""/docs and /redoc load every asset from the service itself, never from a CDN."""

from __future__ import annotations

from html.parser import HTMLParser
from urllib.parse import urlsplit

import pytest
from fastapi.testclient import TestClient
from lossforensics.api.app import create_app
from lossforensics.settings import Settings

LOCAL = "http://localhost"  # a host the service answers on its default loopback bind


class _AssetURLs(HTMLParser):
    """Every URL a page makes the browser fetch: script src, link href, img src."""

    def __init__(self) -> None:
        super().__init__()
        self.urls: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        wanted = {"script": "src", "link": "href", "img": "src"}.get(tag)
        for name, value in attrs:
            if name == wanted and value:
                self.urls.append(value)


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> TestClient:
    # No lifespan (no `with`): the pages and assets need no store.
    settings = Settings(data_dir=tmp_path_factory.mktemp("data"), tokens="tok:proj")
    return TestClient(create_app(settings), base_url=LOCAL)


@pytest.mark.parametrize("page", ["/docs", "/redoc"])
def test_page_loads_every_asset_from_the_service(client: TestClient, page: str):
    response = client.get(page)
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/html")
    parser = _AssetURLs()
    parser.feed(response.text)
    assert len(parser.urls) >= 2  # the script and at least the favicon or stylesheet
    for url in parser.urls:
        parts = urlsplit(url)
        assert not parts.scheme and not parts.netloc, f"{page} loads {url} from elsewhere"
        asset = client.get(url)
        assert asset.status_code == 200, url
        assert asset.content
    assert "cdn." not in response.text
    assert "fonts.googleapis" not in response.text


def test_pages_point_at_the_services_own_schema(client: TestClient):
    assert "url: '/openapi.json'" in client.get("/docs").text
    assert 'spec-url="/openapi.json"' in client.get("/redoc").text
    assert client.get("/openapi.json").status_code == 200


def test_assets_follow_the_root_path_behind_a_proxy(tmp_path):
    app = create_app(Settings(data_dir=tmp_path))
    with_root = TestClient(app, base_url=LOCAL, root_path="/lf")
    parser = _AssetURLs()
    parser.feed(with_root.get("/docs").text)
    assert parser.urls and all(url.startswith("/lf/_docs-assets/") for url in parser.urls)


def test_the_oauth2_redirect_page_is_served_too(client: TestClient):
    assert client.get("/docs/oauth2-redirect").status_code == 200


def test_the_docs_pages_are_not_in_the_schema(client: TestClient):
    paths = client.get("/openapi.json").json()["paths"]
    assert not {"/docs", "/redoc", "/docs/oauth2-redirect"} & set(paths)
