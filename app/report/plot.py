"""Annotated plot of one run: loss, learning rate and grad norm on shared step axes.

Drawn with matplotlib's object API on the Agg canvas (no display, no pyplot global state).
Positive series spanning more than two decades get a log axis; NaN and +-inf points are marked
where they were logged (they cannot be drawn as values); each finding's step span is shaded on
every panel and labelled on the top one. Long series are reduced to a min/max envelope per pixel
bucket, so a 10M-point run draws as fast as a 10k-point one and spikes still show.
"""

from __future__ import annotations

import io
import threading

import numpy as np
import pandas as pd
from lossforensics.classifiers.diagnosis import Diagnosis
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.transforms import blended_transform_factory

PANELS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("loss", ("train_loss", "val_loss")),
    ("learning rate", ("lr",)),
    ("grad norm", ("grad_norm",)),
)
FALLBACK_ROLES = ("train_score", "val_score", "other", "throughput")
MAX_LINES_PER_PANEL = 8
DPI = 100
_SPAN_COLORS = ("#d62728", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#bcbd22")
_RENDER_LOCK = threading.Lock()  # matplotlib's font cache and text layout are not thread-safe


def envelope(step: np.ndarray, value: np.ndarray, buckets: int) -> tuple[np.ndarray, np.ndarray]:
    """At most ~2*buckets points keeping each bucket's min and max (NaN-ignoring), in order."""
    n = len(step)
    if n <= 2 * buckets:
        return step, value
    edges = np.linspace(0, n, buckets + 1).astype(np.int64)[:-1]
    finite = np.where(np.isfinite(value), value, np.nan)
    with np.errstate(invalid="ignore"):
        lo = np.fmin.reduceat(finite, edges)
        hi = np.fmax.reduceat(finite, edges)
    mid = np.minimum(edges + np.diff(np.append(edges, n)) // 2, n - 1)
    x = np.repeat(step[mid], 2)
    y = np.column_stack([lo, hi]).ravel()
    return x, y


def wants_log(values: np.ndarray) -> bool:
    """Log scale helps when every finite value is positive and they span > 2 decades."""
    v = values[np.isfinite(values)]
    return bool(v.size > 1 and (v > 0).all() and v.max() / v.min() > 100.0)


def _panels(frame: pd.DataFrame) -> list[tuple[str, list[str]]]:
    roles = set(frame["role"].astype(str))
    out = [(title, [r for r in want if r in roles]) for title, want in PANELS]
    out = [(t, rs) for t, rs in out if rs]
    if not out:
        fallback = [r for r in FALLBACK_ROLES if r in roles]
        out = [("metrics", fallback)] if fallback else []
    return out


def _mark_nonfinite(ax, step: np.ndarray, value: np.ndarray, color: str) -> int:
    trans = blended_transform_factory(ax.transData, ax.transAxes)
    count = 0
    for mask, y, marker, text in (
        (np.isnan(value), 0.97, "x", "NaN"),
        (value == np.inf, 0.97, "^", "+inf"),
        (value == -np.inf, 0.03, "v", "-inf"),
    ):
        xs = np.unique(step[mask])
        if xs.size:
            xs = xs[np.linspace(0, xs.size - 1, min(xs.size, 500)).astype(np.int64)]
            ax.plot(
                xs,
                np.full(xs.size, y),
                linestyle="none",
                marker=marker,
                color=color,
                markersize=6,
                transform=trans,
                label=f"{text} ({int(mask.sum())})",
                clip_on=False,
            )
            count += int(mask.sum())
    return count


def _draw_panel(ax, frame: pd.DataFrame, roles: list[str], buckets: int) -> None:
    rows = frame[frame["role"].astype(str).isin(roles)]
    metrics = list(pd.unique(rows["metric"].astype(str)))[:MAX_LINES_PER_PANEL]
    all_finite = []
    for i, metric in enumerate(metrics):
        part = rows[rows["metric"].astype(str) == metric].sort_values("seq", kind="stable")
        step = part["step"].to_numpy()
        value = part["value"].to_numpy(dtype=np.float64)
        x, y = envelope(step, value, buckets)
        color = f"C{i}"
        style = "--" if str(part["role"].iloc[0]).startswith("val") else "-"
        ax.plot(
            x,
            y,
            style,
            color=color,
            linewidth=1.1,
            label=metric,
            marker="o" if len(step) < 60 else None,
            markersize=3,
        )
        _mark_nonfinite(ax, step, value, color)
        all_finite.append(value[np.isfinite(value)])
    if all_finite and wants_log(np.concatenate(all_finite)):
        ax.set_yscale("log")
    ax.grid(True, alpha=0.3)
    ax.legend(loc="best", fontsize=7, framealpha=0.7)


def _shade_findings(axes, diagnosis: Diagnosis | None) -> None:
    if diagnosis is None:
        return
    spanned = [(f, f.span) for f in diagnosis.findings if f.span is not None]
    for i, (finding, span) in enumerate(spanned):
        color = _SPAN_COLORS[i % len(_SPAN_COLORS)]
        start, end = span.start_step, span.end_step
        for ax in axes:
            if end > start:
                ax.axvspan(start, end, color=color, alpha=0.15, linewidth=0)
            else:
                ax.axvline(start, color=color, alpha=0.6, linewidth=1.5)
        trans = blended_transform_factory(axes[0].transData, axes[0].transAxes)
        axes[0].text(
            start,
            1.01 + 0.07 * (i % 3),
            f"{finding.label} ({finding.confidence:.2f})",
            transform=trans,
            color=color,
            fontsize=8,
            fontweight="bold",
            va="bottom",
            clip_on=False,
        )


def plot_run(
    frame: pd.DataFrame, diagnosis: Diagnosis | None = None, *, size: tuple[int, int] = (1000, 700)
) -> bytes:
    """PNG bytes of the run's curves, `size` = (width, height) in pixels."""
    if diagnosis is not None and len(frame) and (frame["run"].astype(str) == diagnosis.run).any():
        frame = frame[frame["run"].astype(str) == diagnosis.run]
    width, height = max(int(size[0]), 50), max(int(size[1]), 50)
    panels = _panels(frame)
    with _RENDER_LOCK:
        fig = Figure(figsize=(width / DPI, height / DPI), dpi=DPI)
        FigureCanvasAgg(fig)
        if not panels:
            ax = fig.add_subplot()
            ax.text(0.5, 0.5, "no points to plot", ha="center", va="center")
            ax.set_axis_off()
        else:
            axes = fig.subplots(len(panels), 1, sharex=True, squeeze=False)[:, 0]
            for ax, (title, roles) in zip(axes, panels, strict=True):
                _draw_panel(ax, frame, roles, buckets=max(width // 2, 50))
                ax.set_ylabel(title, fontsize=8)
                ax.tick_params(labelsize=7)
            axes[-1].set_xlabel("step", fontsize=8)
            _shade_findings(axes, diagnosis)
        if diagnosis is not None:
            fig.suptitle(f"{diagnosis.run}: {diagnosis.verdict}", fontsize=10)
        if width >= 300:
            fig.tight_layout()
        buf = io.BytesIO()
        fig.savefig(buf, format="png", dpi=DPI)
    return buf.getvalue()
