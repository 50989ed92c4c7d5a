"""The self-contained HTML audit report: one file, no external assets (inline CSS, a few lines
of JS to sort the table, plots as base64 PNG).

Thumbnails are the expensive part (matplotlib, ~50 ms each), so only the `max_plots` most
severe runs get one (default 200, healthy runs last) and they are drawn small, in parallel on the
audit's executor from the thinned frames the workers kept. A 1,000-run report stays a few MB.
"""

from __future__ import annotations

import base64
from collections.abc import Sequence
from concurrent.futures import Executor
from pathlib import Path

import jinja2
from lossforensics.audit.summary import AuditSummary
from lossforensics.audit.worker import ERROR, RunAudit
from lossforensics.classifiers.diagnosis import Diagnosis
from lossforensics.classifiers.labels import HEALTHY, INCONCLUSIVE, severity_rank

THUMB_SIZE = (480, 240)  # drawn at this size, shown at 320 px wide (sharp on HiDPI)
LOSS_ROLES = ("train_loss", "val_loss")
DEFAULT_MAX_PLOTS = 200
PREVIEW_POINTS = 400  # points per metric kept for a thumbnail


def thumbnail(frame, diagnosis: Diagnosis, size: tuple[int, int] = THUMB_SIZE) -> bytes | None:
    """One small PNG of the loss curves with the finding spans shaded (report.plot.plot_run;
    the other metrics only when no loss is logged); None when the run has nothing to draw.
    Top-level so a pool or Dask worker can run it."""
    from lossforensics.report.plot import plot_run

    if frame is None or frame.empty:
        return None
    losses = frame[frame["role"].astype(str).isin(LOSS_ROLES)]
    return plot_run(losses if len(losses) else frame, diagnosis, size=size)


def draw_thumbnails(
    runs: Sequence[RunAudit], executor: Executor, max_plots: int = DEFAULT_MAX_PLOTS
) -> dict[str, bytes]:
    """PNG bytes by run name for the `max_plots` runs the report shows first."""
    chosen = [
        (r.name, r.preview, r.diagnosis)
        for r in runs
        if r.diagnosis is not None and r.preview is not None
    ][:max_plots]
    futures = {name: executor.submit(thumbnail, frame, d) for name, frame, d in chosen}
    out: dict[str, bytes] = {}
    for name, fut in futures.items():
        try:
            png = fut.result()
        except Exception:  # a plot failure must not lose the report; the row shows no plot
            continue
        if png:
            out[name] = png
    return out


def render_html(summary: AuditSummary, thumbnails: dict[str, bytes] | None = None) -> str:
    thumbnails = thumbnails or {}
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(Path(__file__).parent)),
        autoescape=True,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    counts = list(summary.label_counts().items())
    return env.get_template("report.html.j2").render(
        root=summary.root,
        headline=summary.headline(),
        seconds=summary.seconds,
        counts=counts,
        total=max(1, len(summary.runs)),
        causes=summary.dominant_causes(),
        effects=summary.effects,
        rows=[_row(r, thumbnails.get(r.name)) for r in summary.runs],
        plotted=len(thumbnails),
        problems=[str(p) for p in summary.problems],
    )


def _row(r: RunAudit, png: bytes | None) -> dict[str, object]:
    if r.verdict == HEALTHY:
        css = "v-healthy"
    elif r.verdict == INCONCLUSIVE:
        css = "v-inconclusive"
    elif r.verdict == ERROR:
        css = "v-error"
    else:
        css = "v-bad" if severity_rank(r.verdict) <= severity_rank("overfit") else "v-warn"
    err = r.error or {}
    return {
        "name": r.name,
        "format": r.source.format,
        "also": ", ".join(_also(r.source.path, p) for p in r.source.also),
        "verdict": r.verdict,
        "css": css,
        "rank": severity_rank(r.verdict) + (1 if r.verdict == ERROR else 0),
        "conf": "" if r.confidence is None else f"{r.confidence:.2f}",
        "conf_sort": -1 if r.confidence is None else r.confidence,
        "labels": ", ".join(r.labels),
        "cause": r.top_cause
        if r.diagnosis is not None
        else f"[{err.get('code')}] {err.get('message')}",
        "check": r.first_check,
        "thumb": base64.b64encode(png).decode("ascii") if png else None,
    }


def _also(source: str, other: str) -> str:
    """An other-format copy of the run, by its path under the run's folder."""
    try:
        return Path(other).relative_to(source).as_posix()
    except ValueError:
        return Path(other).name
