"""Score the diagnosis on every labelled set present, with one scoring (benchmarks/scoring.py,
the same as ../shared/tools/score_sets.py), and write the figures to one JSON.

    .venv/bin/python benchmarks/evaluate.py             # every set present -> build/eval.json
    .venv/bin/python benchmarks/evaluate.py --quick     # the sets the repository holds
    .venv/bin/python benchmarks/evaluate.py --set real_runs --runs

Sets: the project's own corpus (benchmarks/corpus/corpus.tar.xz), sample_runs/, and, when the
folder is there, ../shared/external_bench, ../shared/real_runs and ../shared/real_runs_more
(a set absent is listed as skipped). A set is a folder (or .tar.xz) holding labels.json and each
run under runs/<key>/ or <key>/. As score_sets.py does, each run folder is copied under a
neutral name (folder names may spell out labels, and no reader may see them), `raw.txt` left
out, and read as the folder, else as its only file. A file holding several runs (a W&B export)
is one entry: its predicted set is the union over its diagnoses, as score_sets.py forms it.

Everything runs in this process: `load_run` + `diagnose_all`, as `lossforensics diagnose` does,
with no subprocess a run. A classifier that raises costs its label, as in the CLI, and is
counted under `classifier_errors`. benchmarks/accuracy_page.py turns the JSON into
docs/accuracy.md.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import logging
import os
import shutil
import sys
import tarfile
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from lossforensics.classifiers.diagnose import diagnose_all  # noqa: E402
from lossforensics.classifiers.labels import SEVERITY  # noqa: E402
from lossforensics.ingest import load_run  # noqa: E402

from benchmarks.scoring import (  # noqa: E402
    Outcome,
    loss_alarm,
    predicted_set,
    score,
    truth_of,
)

SHARED = REPO.parent / "shared"
OUT = REPO / "build" / "eval.json"


@dataclass(frozen=True)
class LabelledSet:
    name: str
    path: Path
    in_repo: bool  # held by the repository: scored in CI and by --quick

    @property
    def present(self) -> bool:
        """A folder holding labels.json, or a .tar.xz of one."""
        return self.path.is_file() or (self.path / "labels.json").is_file()


SETS = (
    LabelledSet("corpus", REPO / "benchmarks" / "corpus" / "corpus.tar.xz", True),
    LabelledSet("sample_runs", REPO / "sample_runs", True),
    LabelledSet("external_bench", SHARED / "external_bench", False),
    LabelledSet("real_runs", SHARED / "real_runs", False),
    LabelledSet("real_runs_more", SHARED / "real_runs_more", False),
)


@contextmanager
def opened(path: Path) -> Iterator[Path]:
    """The set's folder: `path` itself, or a .tar.xz extracted for the duration."""
    if path.is_dir():
        yield path
        return
    with tempfile.TemporaryDirectory(prefix="eval-set-") as tmp, tarfile.open(path) as tar:
        tar.extractall(tmp, filter="data")
        yield Path(tmp)


@dataclass
class Task:
    key: str
    entry: dict
    cands: list[Path]


def tasks_of(root: Path, tmp: Path, limit: int | None = None) -> list[Task]:
    """Each labelled run copied under a neutral name; candidates: the folder, then its only
    file (score_sets.py's order)."""
    labels = json.loads((root / "labels.json").read_text())
    out: list[Task] = []
    for key, entry in sorted(labels.items())[: limit or None]:
        folder = next((f for f in (root / "runs" / key, root / key) if f.is_dir()), None)
        if folder is None:
            continue
        dst = tmp / ("r" + hashlib.sha256(f"{root}{key}".encode()).hexdigest()[:10])
        shutil.copytree(folder, dst, ignore=shutil.ignore_patterns("raw.txt"))
        files = [Path(dp) / f for dp, _, fs in os.walk(dst) for f in fs]
        out.append(Task(key, entry, [dst, *(files if len(files) == 1 else [])]))
    return out


def diagnose_task(
    task: Task,
    findings: list | None = None,
    rewrite: Callable[[pd.DataFrame], pd.DataFrame] | None = None,
) -> Outcome:
    """What `lossforensics diagnose` says of the task's run: every diagnosis of the first
    candidate that reads. `findings`, when given, collects (outcome, Finding) pairs; `rewrite`,
    when given, changes the frame before it is diagnosed (benchmarks/robustness.py)."""
    err = ""
    for cand in task.cands:
        try:
            result = load_run(cand)
            frame = result.frame if rewrite is None else rewrite(result.frame)
            diagnoses = diagnose_all(frame, source=result.source, warnings=result.warnings)
        except Exception as exc:  # the CLI prints it and exits non-zero: the next candidate
            err = f"{type(exc).__name__}: {exc}"
            continue
        if not diagnoses:
            err = "no diagnosis in the output"
            continue
        o = _outcome(task.key, truth_of(task.entry), diagnoses, _loss_curves(frame))
        if findings is not None:
            findings.extend((o, f) for d in diagnoses for f in d.findings)
        return o
    return Outcome(task.key, truth_of(task.entry), status="crash", err=err[:300])


def _outcome(key: str, truth: list[str], diagnoses: list, curves: dict) -> Outcome:
    dicts = [d.to_dict() for d in diagnoses]
    pred, verdicts = predicted_set(dicts)
    conf: dict[str, float] = {}
    for d in dicts:
        for f in d["findings"]:
            conf[f["label"]] = max(conf.get(f["label"], 0.0), float(f["confidence"]))
    alarm = loss_alarm(c for d in diagnoses for c in curves.get(d.run, ()))
    # a crash predicts nothing; a file whose every run errs is scored as its CLI output
    errors = sum(s.reason.startswith("classifier error") for d in diagnoses for s in d.skipped)
    return Outcome(
        key,
        truth,
        status="ok" if dicts else "crash",
        err=f"{errors} classifier error(s)" if errors else "",
        pred=pred if dicts else [],
        verdicts=verdicts,
        confidence=conf,
        alarm=alarm,
        set_aside=sorted({s["label"] for d in dicts for s in d["set_aside"]}),
    )


def _loss_curves(frame) -> dict[str, list[np.ndarray]]:
    """Each run's loss series (train and val), values in logged order."""
    loss = frame[frame["role"].isin(["train_loss", "val_loss"])].sort_values("seq", kind="stable")
    out: dict[str, list[np.ndarray]] = {}
    for (run, _), g in loss.groupby(["run", "metric"], sort=False, observed=True):
        out.setdefault(str(run), []).append(g["value"].to_numpy(float))
    return out


def evaluate_set(
    s: LabelledSet, limit: int | None = None, findings: list | None = None
) -> list[Outcome]:
    with opened(s.path) as root, tempfile.TemporaryDirectory(prefix="eval-runs-") as tmp:
        return [diagnose_task(t, findings) for t in tasks_of(root, Path(tmp), limit)]


def print_set(name: str, sc: dict, seconds: float, outcomes: list[Outcome], runs: bool) -> None:
    far = sc["healthy_false_alarm_rate"]
    print(
        f"== {name}: {sc['runs']} runs in {seconds:.0f}s: macro-F1 {sc['macro_f1']:.3f}, "
        f"verdict = primary {sc['verdict_is_primary']:.1%}, healthy false alarms "
        f"{sc['healthy_false_alarms']}/{sc['healthy_runs']}"
        f"{'' if far is None else f' ({far:.1%})'}, missed alarms {sc['missed_alarms']} "
        f"({sc['missed_alarms_set_aside']} set aside with a reason), "
        f"ECE {sc['ece']:.3f}, inconclusive {sc['inconclusive']}, crashes {sc['crashes']}"
    )
    print(f"   {'label':24s} {'prec':>6s} {'rec':>6s} {'f1':>6s} {'tp':>4s} {'fp':>4s} {'fn':>4s}")
    for lab, v in sc["labels"].items():
        print(
            f"   {lab:24s} {v['precision']:6.2f} {v['recall']:6.2f} {v['f1']:6.2f} "
            f"{v['tp']:4d} {v['fp']:4d} {v['fn']:4d}"
        )
    told = set(sc["missed_alarm_runs_set_aside"])
    for key in sc["missed_alarm_runs"]:
        why = " (set aside with a reason)" if key in told else ""
        print(f"   missed alarm: {key}{why}")
    if runs:
        for o in outcomes:
            print(f"   {o.key:48s} {o.status:6s} truth={o.truth} pred={o.pred} {o.err}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="only the sets the repository holds")
    ap.add_argument("--set", action="append", help="score only this set (repeatable)")
    ap.add_argument("--path", type=Path, help="score this labelled folder instead (as 'custom')")
    ap.add_argument("--limit", type=int, help="first N runs of each set (sorted by key)")
    ap.add_argument("--out", type=Path, default=OUT, help=f"JSON report (default {OUT})")
    ap.add_argument("--runs", action="store_true", help="print every run's truth and prediction")
    args = ap.parse_args(argv)
    logging.getLogger("lossforensics").setLevel(logging.CRITICAL)  # counted, not printed
    chosen = [LabelledSet("custom", args.path, False)] if args.path else list(SETS)
    if args.quick:
        chosen = [s for s in chosen if s.in_repo]
    if args.set:
        chosen = [s for s in chosen if s.name in args.set]
    report: dict = {"sets": {}, "skipped": {}}
    t_all = time.perf_counter()
    for s in chosen:
        if not s.present:
            report["skipped"][s.name] = f"{s.path} is absent"
            print(f"== {s.name}: skipped ({s.path} is absent)")
            continue
        t0 = time.perf_counter()
        outcomes = evaluate_set(s, args.limit)
        seconds = time.perf_counter() - t0
        sc = score(outcomes, SEVERITY)
        report["sets"][s.name] = {
            "path": str(s.path),
            "in_repo": s.in_repo,
            "seconds": round(seconds, 1),
            "scores": sc,
            "runs": [o.to_dict() for o in outcomes],
        }
        print_set(s.name, sc, seconds, outcomes, args.runs)
    report["seconds"] = round(time.perf_counter() - t_all, 1)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=1))
    print(f"\nwrote {args.out} ({report['seconds']} s)")
    return 0 if report["sets"] else 1


if __name__ == "__main__":
    sys.exit(main())
