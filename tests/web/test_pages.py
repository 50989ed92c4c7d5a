"""The browser interface end to end, in chromium: upload through the page, the runs table, the
run page (chart drawn, findings listed), compare, sign-in on an auth server; no console errors and
nothing fetched from another host on any page; a screenshot of each page under build/screenshots/.
"""

from __future__ import annotations

import re

import httpx

from tests.app.api._server import REPO
from tests.web.conftest import TOKEN

SAMPLES = REPO / "sample_runs"


def _upload(server, folder: str, headers: dict | None = None) -> dict:
    files = [
        ("file", (f"{folder}/{p.relative_to(SAMPLES / folder)}", p.read_bytes()))
        for p in sorted((SAMPLES / folder).rglob("*"))
        if p.is_file()
    ]
    resp = httpx.post(f"{server.url}/v1/runs", files=files, headers=headers, timeout=120)
    assert resp.status_code in (200, 201), resp.text
    return resp.json()["runs"][0]


def test_upload_a_folder_through_the_page_then_table_and_run_page(web_server, open_page):
    p = open_page(web_server)
    page = p.page
    page.goto(web_server.url + "/")
    page.wait_for_selector("#table p, #runs")
    p.shot("runs-empty")
    page.set_input_files("#pick-folder", str(SAMPLES / "overfit_keras_csv"))
    page.wait_for_url(re.compile(r"/runs/[0-9a-f]{32}$"), timeout=120_000)
    page.wait_for_selector("#chart[data-ready='1'] canvas", timeout=60_000)
    assert page.locator("#title").inner_text().startswith("overfit_keras_csv")
    assert page.locator(".finding").count() >= 1
    assert page.locator(".finding[data-label='overfit']").count() == 1
    # evidence values as logged: a flag reads true/false (not a number), a number stays one
    evidence = page.locator(".finding[data-label='overfit'] dl.evidence")
    flag = evidence.locator(
        "xpath=.//dt[normalize-space()='val_first_below_train_start']/following-sibling::dd[1]"
    )
    assert flag.text_content(timeout=5_000) in ("true", "false")
    rise = evidence.locator(
        "xpath=.//dt[normalize-space()='val_rise_pct']/following-sibling::dd[1]"
    )
    assert re.fullmatch(r"[0-9.]+", rise.text_content(timeout=5_000))
    assert page.locator("#picker input[type=checkbox]").count() >= 2
    assert page.locator("#downloads a").count() == 4
    page.check("#log-scale")
    page.wait_for_selector("#chart canvas")
    p.shot("run")

    page.goto(web_server.url + "/")
    row = page.locator("#runs tbody tr", has_text="overfit_keras_csv")
    row.wait_for()
    assert row.locator("[data-verdict]").inner_text() == "overfit"
    page.fill("#filter-name", "no-such-run")
    assert page.locator("#runs").count() == 0
    page.fill("#filter-name", "overfit")
    assert page.locator("#runs tbody tr").count() == 1
    p.shot("runs")
    p.clean()


def test_compare_two_runs(web_server, open_page):
    a = _upload(web_server, "overfit_keras_csv")
    b = _upload(web_server, "healthy_hf_trainer")
    p = open_page(web_server)
    p.page.goto(f"{web_server.url}/compare?ids={a['id']},{b['id']}")
    p.page.wait_for_selector("#chart[data-ready='1'] canvas", timeout=60_000)
    cards = p.page.locator("#verdicts .card")
    assert cards.count() == 2
    assert "overfit" in cards.nth(0).inner_text()
    assert "healthy" in cards.nth(1).inner_text()
    p.shot("compare")
    p.clean()


def test_api_docs_load_nothing_from_another_host(web_server, open_page):
    p = open_page(web_server)
    p.page.goto(web_server.url + "/docs")
    p.page.wait_for_selector(".swagger-ui .info", timeout=60_000)
    p.shot("docs")
    p.clean()


def test_sign_in_with_a_token_then_pages_and_report_open(auth_server, open_page):
    run = _upload(auth_server, "nan_jsonl", headers={"Authorization": f"Bearer {TOKEN}"})
    p = open_page(auth_server)
    page = p.page
    page.goto(auth_server.url + "/")
    page.wait_for_url(re.compile(r"/signin\?next="))
    p.shot("signin")
    page.fill("#token", TOKEN)
    page.click("button[type=submit]")
    page.wait_for_selector("#runs tbody tr", timeout=60_000)
    cookies = {c["name"]: c for c in page.context.cookies()}
    session = cookies["lf_session"]
    assert session["httpOnly"] and session["sameSite"] == "Strict"
    assert TOKEN not in session["value"]
    page.goto(f"{auth_server.url}/runs/{run['id']}")
    page.wait_for_selector("#chart[data-ready='1'] canvas", timeout=60_000)
    resp = page.goto(f"{auth_server.url}/v1/runs/{run['id']}/report.html")
    assert resp is not None and resp.status == 200
    p.clean()
    # the bearer header still works; no credentials is still a 401
    with httpx.Client(base_url=auth_server.url) as c:
        assert c.get("/v1/runs", headers={"Authorization": f"Bearer {TOKEN}"}).status_code == 200
        assert c.get("/v1/runs").status_code == 401
        assert c.get("/v1/runs", cookies={"lf_session": "forged"}).status_code == 401


def _points(start: int, stop: int, nan_from: int | None = None) -> list[dict]:
    return [
        {
            "metric": "loss",
            "step": s,
            "value": "NaN" if nan_from is not None and s >= nan_from else 2 / (1 + s / 20) + 0.3,
        }
        for s in range(start, stop)
    ]


def test_the_run_page_follows_a_live_run_as_it_grows(web_server, open_page):
    with httpx.Client(base_url=web_server.url, timeout=60) as api:
        run = api.post("/v1/runs/live", json={"name": "growing"}).json()
        api.post(f"/v1/runs/{run['id']}/points", json=_points(0, 100)).raise_for_status()
        p = open_page(web_server)
        page = p.page
        page.goto(f"{web_server.url}/runs/{run['id']}")
        page.wait_for_selector("#chart[data-ready='1'][data-points='100'] canvas", timeout=60_000)
        assert page.locator(".finding").count() == 0
        api.post(f"/v1/runs/{run['id']}/points", json=_points(100, 130, nan_from=120))
        # polled every few seconds: the page shows the new points and the NaN without a reload
        page.wait_for_selector("#chart[data-points='130']", timeout=30_000)
        page.wait_for_selector(".finding[data-label='nan']", timeout=30_000)
        assert "130 points" in page.locator("#meta").inner_text()
        assert "nan" in page.locator("#title").inner_text()
        p.shot("run-live")
        p.clean()
