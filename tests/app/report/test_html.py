"""The HTML report: self-contained (plot inline), every section, everything escaped."""

from __future__ import annotations

import base64

from lossforensics.classifiers import SetAside  # the package's lazy export, read here too
from lossforensics.classifiers.diagnosis import Cause, Diagnosis, Finding, MetricInfo, Skipped, Span
from lossforensics.report.html import render_report

EVIL = '<script>alert("x")</script>'


def _diag() -> Diagnosis:
    cause = Cause(1, f"LR too high {EVIL}", 0.7, (f"Drop the LR {EVIL}",), "lr_drop")
    return Diagnosis(
        run=f"run{EVIL}",
        verdict="exploding",
        findings=[
            Finding(
                "exploding", 0.94, Span(10, 20), {f"k{EVIL}": 1.5}, f"Loss rose {EVIL}", (cause,)
            )
        ],
        skipped=[Skipped("overfit", f"no validation loss {EVIL}")],
        metrics=[MetricInfo(f"loss{EVIL}", "train_loss", 30, 0, 29)],
        source={"format": "jsonl", "files": ["a.jsonl"]},
        warnings=[f"line 3: bad value {EVIL}"],
        set_aside=[SetAside("nan", f"val_loss NaN at the first evaluation only {EVIL}")],
    )


def test_every_section_is_there_and_nothing_is_unescaped():
    png = b"\x89PNGfake"
    page = render_report(_diag(), png, run_id="abc")
    assert "<script" not in page
    assert page.count("&lt;script&gt;") == 11  # run name x3 (title, h1, alt) + 8 fields
    assert f'src="data:image/png;base64,{base64.b64encode(png).decode()}"' in page
    for text in (
        "exploding",
        "0.94",
        "10&ndash;20",
        "Likely causes",
        "lr_drop",
        "Checks skipped",
        "Signs set aside",
        "Reader warnings",
        "abc",
    ):
        assert text in page


def test_no_external_resources():
    page = render_report(_diag(), b"png")
    assert "http://" not in page and "https://" not in page and "<link" not in page


def test_healthy_run_says_so_and_has_no_plot_when_none_given():
    page = render_report(Diagnosis(run="ok", verdict="healthy"), None)
    assert "looks healthy" in page and "<img" not in page
