"""Diagnoses that render in Jupyter: a table of findings and causes, with the run's plot inline.

The pure `classifiers.Diagnosis` knows nothing of HTML or plots (the core stays numpy/pandas);
this subclass adds `_repr_html_` and a way to get the plot (`plot_png()`), supplied by whoever
made it: the local path draws from the frame it read, the HTTP client fetches `/plot.png`. It is
still a `lossforensics.classifiers.Diagnosis` (same fields, same `to_dict()`).

Kept light: no matplotlib or httpx import here; the plot callable imports what it needs.
"""

from __future__ import annotations

import base64
import html
from collections.abc import Callable, Iterable
from dataclasses import fields
from typing import Any

from lossforensics.classifiers.diagnosis import Diagnosis as CoreDiagnosis

PlotSource = Callable[["Diagnosis"], bytes | None]  # given the diagnosis to draw


class Diagnosis(CoreDiagnosis):
    """A lossforensics.classifiers.Diagnosis that shows itself as HTML in a notebook."""

    _plot_source: PlotSource | None = None

    @classmethod
    def wrap(cls, core: CoreDiagnosis, plot: PlotSource | None = None) -> Diagnosis:
        out = cls(**{f.name: getattr(core, f.name) for f in fields(CoreDiagnosis)})
        out._plot_source = plot
        return out

    @classmethod
    def from_dict(cls, d: dict[str, Any], plot: PlotSource | None = None) -> Diagnosis:
        return cls.wrap(CoreDiagnosis.from_dict(d), plot)

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state.pop("_plot_source", None)  # a closure over a frame or a client: not portable
        return state

    def plot_png(self) -> bytes | None:
        """The annotated plot as PNG bytes (None when no plot source is attached)."""
        return None if self._plot_source is None else self._plot_source(self)

    def _repr_html_(self) -> str:
        img = ""
        try:
            png = self.plot_png()
        except Exception as exc:  # a missing plot must not hide the diagnosis itself
            img = f"<p><i>plot unavailable: {html.escape(str(exc))}</i></p>"
        else:
            if png:
                b64 = base64.b64encode(png).decode("ascii")
                img = (
                    f'<img alt="plot of {html.escape(self.run)}" src="data:image/png;base64,{b64}">'
                )
        return diagnosis_html(self) + img


class Diagnoses(list):
    """Several diagnoses (one per run), shown as one summary table followed by the details and
    plots of the first `MAX_DETAILED` runs (index the list for any other)."""

    MAX_DETAILED = 20

    def __init__(self, items: Iterable[Diagnosis] = ()) -> None:
        super().__init__(items)

    def _repr_html_(self) -> str:
        rows = "".join(
            f"<tr><td>{_e(d.run)}</td><td><b>{_e(d.verdict)}</b></td>"
            f"<td>{_e(', '.join(d.labels))}</td></tr>"
            for d in self
        )
        head = (
            f"<p>{len(self)} run(s)</p><table><tr><th>run</th><th>verdict</th>"
            f"<th>labels</th></tr>{rows}</table>"
        )
        shown = [d for d in self if hasattr(d, "_repr_html_")][: self.MAX_DETAILED]
        more = len(self) - len(shown)
        tail = (
            f"<p><i>{more} more run(s) not drawn here: index the list to see one.</i></p>"
            if more > 0
            else ""
        )
        return head + "".join(d._repr_html_() for d in shown) + tail

    def to_dicts(self) -> list[dict[str, Any]]:
        return [d.to_dict() for d in self]


def _e(text: object) -> str:
    return html.escape(str(text))


def diagnosis_html(d: CoreDiagnosis) -> str:
    """The findings table: label, confidence, span, summary, then the ranked causes and checks."""
    title = (
        f"<h4>{_e(d.run)}: <b>{_e(d.verdict)}</b>"
        + (f" <small>(id {_e(d.id)})</small>" if d.id else "")
        + "</h4>"
    )
    if not d.findings:
        body = "<p>No pathology found.</p>"
    else:
        rows = []
        for f in d.findings:
            span = "" if f.span is None else f"{f.span.start_step}&ndash;{f.span.end_step}"
            causes = "".join(
                f"<li>{_e(c.cause)} <small>({c.score:.2f})</small>"
                + (f"<br><small>check: {_e(c.checks[0])}</small>" if c.checks else "")
                + "</li>"
                for c in sorted(f.causes, key=lambda c: c.rank)
            )
            rows.append(
                f"<tr><td><b>{_e(f.label)}</b></td><td>{f.confidence:.2f}</td><td>{span}</td>"
                f"<td>{_e(f.summary)}</td><td><ol>{causes}</ol></td></tr>"
            )
        body = (
            "<table><tr><th>label</th><th>conf</th><th>steps</th><th>summary</th>"
            "<th>likely causes</th></tr>" + "".join(rows) + "</table>"
        )
    notes = ""
    if d.set_aside:
        notes += (
            "<p><small>set aside: "
            + _e("; ".join(f"{s.label} ({s.reason})" for s in d.set_aside))
            + "</small></p>"
        )
    if d.skipped:
        notes += (
            "<p><small>not judged: "
            + _e("; ".join(f"{s.label} ({s.reason})" for s in d.skipped))
            + "</small></p>"
        )
    if d.warnings:
        notes += (
            "<p><small>reader warnings: "
            + _e("; ".join(d.warnings[:5]))
            + (" ..." if len(d.warnings) > 5 else "")
            + "</small></p>"
        )
    return title + body + notes
