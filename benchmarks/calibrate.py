"""Fit the confidence calibration table on the project's own corpus; draw its reliability plot.

    .venv/bin/python benchmarks/calibrate.py        # `make calibrate`

1. Diagnose every run of benchmarks/corpus/corpus.tar.xz (as committed; nothing else is fitted
   on) with the raw confidences (classifiers.calibration.raw_confidences) and keep one pair a
   finding: (label, raw confidence, whether the label is in the run's truth).
2. Per label, isotonic regression (pool-adjacent-violators, weighted) of the hit on the raw
   confidence, each block's rate taken with one pseudo-hit and one pseudo-miss (a block of three
   right findings says 0.8, not 1.0); the same over every label pooled. A label's curve is the
   blend (n * own + POOL_WEIGHT * pooled) / (n + POOL_WEIGHT), n its findings: a label with
   few findings leans on the pooled curve. Both are monotone, so the blend is.
3. Write each curve's knots to classifiers/_calibration_table.py, and
   docs/img/reliability.png: hit rate against confidence in 10 equal-width bins, raw and
   calibrated, on the corpus and (held out, never fitted on) ../shared/external_bench when
   present. ECE before and after is printed per set.

Deterministic: sorted runs, no randomness; the same classifiers give the same table.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from lossforensics.classifiers.calibration import raw_confidences  # noqa: E402
from lossforensics.classifiers.labels import SEVERITY  # noqa: E402

from benchmarks.evaluate import SETS, evaluate_set  # noqa: E402
from benchmarks.scoring import Outcome, ece, reliability  # noqa: E402

TABLE = REPO / "classifiers" / "_calibration_table.py"
PLOT = REPO / "docs" / "img" / "reliability.png"
GRID = np.round(np.linspace(0.0, 1.0, 11), 3)
POOL_WEIGHT = 5.0  # findings a label needs before its own curve counts as much as the pool


def isotonic(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Pool-adjacent-violators on the points sorted by x: per block its lowest and highest x,
    hit sum and count."""
    order = np.lexsort((y, x))
    blocks: list[list[float]] = []  # [lowest x, highest x, sum y, n]
    for xi, yi in zip(x[order], y[order], strict=True):
        blocks.append([xi, xi, yi, 1.0])
        while len(blocks) > 1 and blocks[-2][2] / blocks[-2][3] >= blocks[-1][2] / blocks[-1][3]:
            _, hi, sy, n = blocks.pop()
            blocks[-1] = [blocks[-1][0], hi, blocks[-1][2] + sy, blocks[-1][3] + n]
    b = np.asarray(blocks)
    return b[:, 0], b[:, 1], b[:, 2], b[:, 3]


def knots(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The isotonic fit as interpolation knots: flat across each block, linear between blocks;
    each block's rate with one pseudo-hit and one pseudo-miss."""
    if not len(x):
        return np.array([0.0, 1.0]), np.array([0.0, 1.0])
    lo, hi, hits, n = isotonic(x, y)
    rate = np.maximum.accumulate((hits + 1.0) / (n + 2.0))  # the prior may tie blocks: monotone
    return np.column_stack([lo, hi]).ravel(), np.repeat(rate, 2)


def collect(set_name: str) -> tuple[list[Outcome], list[tuple[str, float, bool]]]:
    """Outcomes with raw confidences, and one (label, raw confidence, hit) a finding."""
    s = next(s for s in SETS if s.name == set_name)
    found: list = []
    with raw_confidences():
        outcomes = evaluate_set(s, findings=found)
    pairs = [(f.label, float(f.confidence), f.label in set(o.truth)) for o, f in found]
    return outcomes, pairs


def fit(pairs: list[tuple[str, float, bool]]) -> dict:
    labels = np.array([p[0] for p in pairs])
    x = np.array([p[1] for p in pairs], dtype=float)
    y = np.array([p[2] for p in pairs], dtype=float)
    px, py = knots(x, y)
    table: dict = {"pooled": {"x": _r(px), "y": _r(py)}, "labels": {}}
    for lab in SEVERITY:
        m = labels == lab
        n = float(m.sum())
        ox, oy = knots(x[m], y[m]) if n else (px, py)
        grid = np.unique(np.r_[GRID, ox, px].round(4))
        blend = (n * np.interp(grid, ox, oy) + POOL_WEIGHT * np.interp(grid, px, py)) / (
            n + POOL_WEIGHT
        )
        table["labels"][lab] = {"x": _r(grid), "y": _r(blend), "n": int(n)}
    return table


def _r(a: np.ndarray) -> list[float]:
    return [round(float(v), 4) for v in a]


def ece_pairs_mapped(outcomes: list[Outcome], table: dict | None) -> tuple[np.ndarray, np.ndarray]:
    """ECE pairs of the outcomes, their raw confidences mapped through `table` (None: raw)."""
    conf, hit = [], []
    for o in outcomes:
        truth = set(o.truth) - ({"healthy"} if len(set(o.truth)) > 1 else set())
        for lab in SEVERITY:
            c = o.confidence.get(lab, 0.0)
            if table is not None and lab in o.confidence:
                c = float(np.interp(c, table["labels"][lab]["x"], table["labels"][lab]["y"]))
            conf.append(c)
            hit.append(lab in truth)
    return np.asarray(conf), np.asarray(hit, dtype=float)


def write_table(table: dict, corpus_runs: int, findings: int) -> None:
    body = json.dumps(table, indent=1)
    TABLE.write_text(
        '"""Confidence calibration table, generated by benchmarks/calibrate.py\n'
        "(`make calibrate`): do not edit by hand. Per label, the calibrated confidence at each\n"
        "raw "
        f"confidence `x` (fitted on the project's corpus: {corpus_runs} runs, {findings} "
        "findings).\n"
        '"""\n\n'
        "TABLE: dict = " + body + "\n"
    )
    subprocess.run([sys.executable, "-m", "ruff", "format", "-q", str(TABLE)], check=False)


def plot(rows: dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]]) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(rows), figsize=(5 * len(rows), 4.6), squeeze=False)
    for ax, (name, (raw, cal, hit)) in zip(axes[0], rows.items(), strict=True):
        ax.plot([0, 1], [0, 1], color="#999", lw=1, ls="--")
        for conf, style, what in ((raw, "o-", "raw"), (cal, "s-", "calibrated")):
            pts = reliability(conf, hit)
            ax.plot(
                [p[0] for p in pts],
                [p[1] for p in pts],
                style,
                label=f"{what} (ECE {ece(conf, hit):.3f})",
            )
        ax.set_title(f"{name}: {len(hit)} (run, label) pairs")
        ax.set_xlabel("confidence (10 equal-width bins)")
        ax.set_ylabel("share of pairs whose label is true")
        ax.set_xlim(0, 1)
        ax.set_ylim(0, 1)
        ax.legend(loc="upper left", fontsize=8)
    fig.tight_layout()
    PLOT.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(PLOT, dpi=90, metadata={"Software": None})
    plt.close(fig)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--no-plot", action="store_true")
    args = ap.parse_args(argv)
    outcomes, pairs = collect("corpus")
    table = fit(pairs)
    write_table(table, len(outcomes), len(pairs))
    rows = {}
    for name in ("corpus", "external_bench"):
        s = next(s for s in SETS if s.name == name)
        if not s.present:
            print(f"{name}: absent, not shown")
            continue
        outs = outcomes if name == "corpus" else collect(name)[0]
        raw, hit = ece_pairs_mapped(outs, None)
        cal, _ = ece_pairs_mapped(outs, table)
        rows[name] = (raw, cal, hit)
        print(f"{name}: ECE raw {ece(raw, hit):.4f} -> calibrated {ece(cal, hit):.4f}")
    if not args.no_plot:
        plot(rows)
        print(f"wrote {TABLE.relative_to(REPO)} and {PLOT.relative_to(REPO)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
