"""The audit's HTML report fits a 1400 px window: long run names, causes, checks and plots wrap
or shrink instead of pushing the page sideways."""

from __future__ import annotations

import io
from pathlib import Path

from lossforensics.audit.audit import AuditOptions, audit_folder
from rich.console import Console

from tests.app.audit.conftest import write_jsonl_run
from tests.web.conftest import SCREENSHOTS

LONG = "lr_3e_2_" + "warmup_cosine_batch1024_" * 6 + "seed"


def test_audit_html_has_no_horizontal_overflow_at_1400px(browser, tmp_path: Path) -> None:
    root = tmp_path / ("sweep_" + "very_long_folder_name_" * 4)
    for i, lr in enumerate((1e-4, 1e-3, 3e-2, 1e-2)):
        write_jsonl_run(root / f"{LONG}{i}" / ("nested_" * 8 + "x"), lr, i)
    (root / "train_broken.csv").write_text("this is not a log\n")  # a 'not read' line too
    report = tmp_path / "audit.html"
    audit_folder(
        root,
        AuditOptions(format="html", out=report, jobs=1, max_plots=4),
        console=Console(file=io.StringIO()),
        err_console=Console(file=io.StringIO()),
    )
    page = browser.new_page(viewport={"width": 1400, "height": 900})
    try:
        page.goto(report.as_uri())
        assert page.locator("#runs tbody tr").count() == 4
        assert page.locator("img.thumb").count() >= 1
        width = page.evaluate("document.documentElement.scrollWidth")
        body = page.evaluate("document.body.scrollWidth")
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SCREENSHOTS / "audit-report-1400.png"), full_page=True)
        assert width <= 1400 and body <= 1400, (width, body)
    finally:
        page.close()
