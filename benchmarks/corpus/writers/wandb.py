"""W&B "Export CSV" of a chart: several runs in one file.

Columns: "Step", then for each run and metric `<run> - <metric>` followed by its `__MIN` and
`__MAX` companions (equal to the value when no smoothing/bucketing happened). Every cell is
quoted; a run with no point at a step has empty cells there. Values print as JavaScript does
(`NaN`, `Infinity`).
"""

from __future__ import annotations

import csv
import math
from pathlib import Path

from benchmarks.corpus.views import LoggedRun

_NAMES = {
    "loss": "train/loss",
    "acc": "train/acc",
    "val_loss": "val/loss",
    "val_acc": "val/acc",
    "grad_norm": "train/grad_norm",
    "lr": "train/lr",
    "max_grad_norm": "train/max_grad_norm",
}


def _js(v: float) -> str:
    if math.isnan(v):
        return "NaN"
    if math.isinf(v):
        return "Infinity" if v > 0 else "-Infinity"
    return repr(float(v))


def write_wandb_csv(
    runs: list[LoggedRun], dest: Path, *, variant: str = "wandb", filename: str = "wandb_export.csv"
) -> list[str]:
    """One CSV holding every run in `runs` (they should share metric keys)."""
    dest.mkdir(parents=True, exist_ok=True)
    keys = [k for k in _NAMES if any(k in r.keys() for r in runs)]
    columns: list[tuple[int, str]] = []
    header = ["Step"]
    for i, run in enumerate(runs):
        for k in keys:
            if k in run.keys():
                col = f"{run.name} - {_NAMES[k]}"
                header += [col, col + "__MIN", col + "__MAX"]
                columns.append((i, k))
    table: dict[int, dict[tuple[int, str], float]] = {}
    for i, run in enumerate(runs):
        for r in run.rows:
            for k, v in r.values.items():
                if k in _NAMES and (i, k) in columns:
                    table.setdefault(r.step, {})[(i, k)] = v
    path = dest / filename
    with path.open("w", newline="") as fh:
        w = csv.writer(fh, quoting=csv.QUOTE_ALL, lineterminator="\n")
        w.writerow(header)
        for step in sorted(table):
            row = [str(step)]
            for col in columns:
                v = table[step].get(col)
                row += [""] * 3 if v is None else [_js(v)] * 3
            w.writerow(row)
    return [filename]
