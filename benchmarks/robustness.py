"""How far the diagnoses of each labelled set move when its runs are logged differently.

    .venv/bin/python benchmarks/robustness.py [--set NAME ...] [--out build/robustness.json]
                                              [--page docs/robustness.md]

Runs nobody here has seen differ from the labelled ones less in what went wrong than in how it
was logged: a trainer logs the mean loss over its logging interval, a log keeps fewer points, the
first evaluation is missing. Each rewrite below changes every labelled run's frame that way; the
run is diagnosed again and scored with `make eval`'s scoring (benchmarks/scoring.py). Per set and
rewrite it reports macro-F1, verdict = primary, healthy false alarms, and the runs whose verdict
differs from the run as logged. A rewrite that drops information (a mean over 10 steps hides a
one-step spike, and an epoch sawtooth of under ~4 logged points a period) is expected to lose
some loss_spikes and unshuffled runs to `healthy`; a verdict that changes to another problem is
the flip to read.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from lossforensics.classifiers.frame import validate_frame  # noqa: E402
from lossforensics.classifiers.labels import SEVERITY  # noqa: E402

from benchmarks.evaluate import SETS, diagnose_task, opened, tasks_of  # noqa: E402
from benchmarks.scoring import HEALTHY, Outcome, score  # noqa: E402

OUT = REPO / "build" / "robustness.json"
PAGE = REPO / "docs" / "robustness.md"

# the roles a validation pass writes: evaluated points are never averaged by a trainer
VALIDATION_ROLES = ("val_loss", "val_score")
# a series averaged over N steps keeps at least this many points: shorter ones are left alone
MIN_BLOCKS = 20


def _series(frame: pd.DataFrame) -> list[pd.DataFrame]:
    """The frame's (run, metric) series, each in logged order."""
    ordered = frame.sort_values("seq", kind="stable")
    return [g for _, g in ordered.groupby(["run", "metric"], sort=False, observed=True)]


def _rebuilt(parts: list[pd.DataFrame]) -> pd.DataFrame:
    out = pd.concat(parts).sort_values("seq", kind="stable").reset_index(drop=True)
    return validate_frame(out)


def mean_over(steps: int) -> Callable[[pd.DataFrame], pd.DataFrame]:
    """Per-step training series (one point a step) logged as the mean of each block of `steps`
    points at the block's last step: what the Hugging Face Trainer (`logging_steps`) and
    Lightning (`log_every_n_steps` with epoch-free means) write."""

    def rewrite(frame: pd.DataFrame) -> pd.DataFrame:
        parts = []
        for g in _series(frame):
            gaps = np.diff(g["step"].to_numpy())
            per_step = len(gaps) > 0 and float(np.median(gaps)) == 1.0
            if g["role"].iloc[0] in VALIDATION_ROLES or not per_step or len(g) < MIN_BLOCKS * steps:
                parts.append(g)
                continue
            block = np.arange(len(g)) // steps
            last = g.groupby(block).tail(1).copy()
            last["value"] = g["value"].groupby(block).mean().to_numpy()
            parts.append(last)
        return _rebuilt(parts)

    return rewrite


def every_other(frame: pd.DataFrame) -> pd.DataFrame:
    """Every series keeps its 1st, 3rd, 5th... point: a log written half as often."""
    return _rebuilt([g.iloc[::2] for g in _series(frame)])


def without_first_evaluation(frame: pd.DataFrame) -> pd.DataFrame:
    """Each validation series loses its first point: no evaluation before training, or a log
    that starts after it."""
    return _rebuilt(
        [g.iloc[1:] if g["role"].iloc[0] in VALIDATION_ROLES else g for g in _series(frame)]
    )


REWRITES: dict[str, Callable[[pd.DataFrame], pd.DataFrame] | None] = {
    "as logged": None,
    "mean over 5 steps": mean_over(5),
    "mean over 10 steps": mean_over(10),
    "every other point": every_other,
    "first evaluation dropped": without_first_evaluation,
}


def _verdict(o: Outcome) -> str:
    """The file's verdict; a file of several runs (a W&B export) gives each run's, in sorted
    order: a rewrite can change which run appears first, which is no change of verdict."""
    if not o.verdicts:
        return "crash" if o.status != "ok" else HEALTHY
    return (
        ", ".join(sorted(str(v) for v in o.verdicts)) if len(o.verdicts) > 1 else str(o.verdicts[0])
    )


def _to_another_problem(flip: dict) -> bool:
    """A problem named as another one (not a problem lost to `healthy`, nor one found); for a
    file of several runs, a problem verdict gone and another problem verdict come."""
    before, after = Counter(flip["as_logged"].split(", ")), Counter(flip["rewritten"].split(", "))
    gone, came = before - after, after - before
    return any(v != HEALTHY for v in gone) and any(v != HEALTHY for v in came)


def measure(names: list[str] | None) -> dict:
    """{set: {rewrite: scores and flips}} over the labelled sets present."""
    report: dict = {"sets": {}, "skipped": {}}
    for s in SETS:
        if names and s.name not in names:
            continue
        if not s.present:
            report["skipped"][s.name] = f"{s.path} is absent"
            continue
        with opened(s.path) as root, tempfile.TemporaryDirectory(prefix="robust-") as tmp:
            tasks = tasks_of(root, Path(tmp))
            outcomes = {
                name: [diagnose_task(t, rewrite=fn) for t in tasks] for name, fn in REWRITES.items()
            }
        base = outcomes["as logged"]
        rows = {}
        for name, got in outcomes.items():
            sc = score(got, SEVERITY)
            flips = [
                {"run": a.key, "truth": a.truth, "as_logged": _verdict(a), "rewritten": _verdict(b)}
                for a, b in zip(base, got, strict=True)
                if _verdict(a) != _verdict(b)
            ]
            rows[name] = {
                "macro_f1": sc["macro_f1"],
                "verdict_is_primary": sc["verdict_is_primary"],
                "healthy_false_alarms": sc["healthy_false_alarms"],
                "healthy_runs": sc["healthy_runs"],
                "flips": flips,
                "flips_to_another_problem": sum(map(_to_another_problem, flips)),
            }
        report["sets"][s.name] = {"runs": len(base), "rewrites": rows}
        print(table_of(s.name, report["sets"][s.name]), flush=True)
    return report


def table_of(name: str, entry: dict) -> str:
    lines = [
        f"\n### {name} ({entry['runs']} runs)\n",
        "| logged | macro-F1 | verdict = primary | healthy false alarms | verdicts changed "
        "| of them, to another problem |",
        "|---|---|---|---|---|---|",
    ]
    for rewrite, r in entry["rewrites"].items():
        changed = "–" if rewrite == "as logged" else str(len(r["flips"]))
        other = "–" if rewrite == "as logged" else str(r["flips_to_another_problem"])
        lines.append(
            f"| {rewrite} | {r['macro_f1']:.3f} | {r['verdict_is_primary']:.1%} "
            f"| {r['healthy_false_alarms']}/{r['healthy_runs']} | {changed} | {other} |"
        )
    return "\n".join(lines)


def page(report: dict) -> str:
    intro = (__doc__ or "").split("\n\n", 2)[2].strip()
    out = [
        "# Robustness",
        "",
        "Generated by `make robustness` (benchmarks/robustness.py); do not edit by hand.",
        "",
        intro,
        "",
        "The rewrites: " + "; ".join(f"**{name}**" for name in REWRITES) + ".",
    ]
    for name, entry in report["sets"].items():
        out.append(table_of(name, entry))
        moved = [
            f"- {rewrite}: `{f['run']}` (labelled {', '.join(f['truth'])}): "
            f"{f['as_logged']} -> {f['rewritten']}"
            for rewrite, r in entry["rewrites"].items()
            for f in r["flips"]
            if _to_another_problem(f)
        ]
        if moved:
            out += ["\nVerdicts that changed to another problem:\n", *moved]
    for name, why in report["skipped"].items():
        out.append(f"\n{name}: not scored ({why}).")
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--set", action="append", help="only this set (repeatable)")
    ap.add_argument("--out", type=Path, default=OUT, help=f"JSON report (default {OUT})")
    ap.add_argument("--page", type=Path, default=PAGE, help=f"Markdown page (default {PAGE})")
    args = ap.parse_args(argv)
    logging.getLogger("lossforensics").setLevel(logging.CRITICAL)
    t0 = time.perf_counter()
    report = measure(args.set)
    report["seconds"] = round(time.perf_counter() - t0, 1)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=1))
    args.page.write_text(page(report))
    print(f"\nwrote {args.out} and {args.page} ({report['seconds']} s)")
    return 0 if report["sets"] else 1


if __name__ == "__main__":
    sys.exit(main())
