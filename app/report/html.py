"""One self-contained HTML report of a run: the plot inline as a base64 data URI, findings with
evidence, ranked causes and checks, signs set aside, skipped checks, reader warnings. Every value
from the logs is escaped (Jinja2 autoescape): metric and run names come from files anyone can
write."""

from __future__ import annotations

import base64
from functools import cache
from importlib import resources

import jinja2
import pandas as pd
from lossforensics.classifiers.diagnosis import Diagnosis
from lossforensics.report.plot import plot_run


@cache
def _template() -> jinja2.Template:
    # Beside this module (package data '*.j2'), read through importlib so installs find it too.
    text = (
        resources.files("lossforensics.report")
        .joinpath("report.html.j2")
        .read_text(encoding="utf-8")
    )
    env = jinja2.Environment(
        autoescape=True, undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True
    )
    return env.from_string(text)


def render_report(
    diagnosis: Diagnosis,
    png: bytes | None = None,
    *,
    run_id: str | None = None,
    generated: str | None = None,
) -> str:
    """The HTML page; `png` is embedded as is (None: no plot)."""
    png_b64 = base64.b64encode(png).decode("ascii") if png else None
    return _template().render(d=diagnosis, png_b64=png_b64, run_id=run_id, generated=generated)


def report_for(
    frame: pd.DataFrame,
    diagnosis: Diagnosis,
    *,
    run_id: str | None = None,
    size: tuple[int, int] = (1000, 700),
) -> str:
    """Plot and page in one call."""
    return render_report(diagnosis, plot_run(frame, diagnosis, size=size), run_id=run_id)
