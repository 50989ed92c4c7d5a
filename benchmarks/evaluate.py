"""Precision, recall and F1 per label of the classifiers, on the labelled corpus and on the real
published runs, reported separately.

    .venv/bin/python benchmarks/evaluate.py                 # both, as tables
    .venv/bin/python benchmarks/evaluate.py --corpus --limit 50 --json

Corpus: benchmarks/corpus/corpus.tar.xz (runs/<name>/... plus labels.json), made by
benchmarks/corpus/generate.py from real CPU training with pathologies induced and verified.
Real runs: ../shared/real_runs with its labels.json (skipped, with a message, when absent).
Each run is read with ingest.load_run and diagnosed with classifiers.diagnose_all; a run
that cannot be read counts as predicting nothing, and is listed. Scoring: benchmarks/scoring.py.
Targets the project is judged on: corpus macro-F1 >= 0.90 with no label below 0.80, <= 5% of
healthy runs flagged; agreement >= 85% on the real runs. Nothing here is tuned to them.
"""

from __future__ import annotations

import argparse
import json
import sys
import tarfile
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from lossforensics.classifiers.diagnose import diagnose_all  # noqa: E402
from lossforensics.classifiers.errors import LossForensicsError  # noqa: E402
from lossforensics.ingest import load_run  # noqa: E402

from benchmarks.scoring import Scored, normalise, summary  # noqa: E402

CORPUS = REPO / "benchmarks" / "corpus" / "corpus.tar.xz"
REAL_RUNS = REPO.parent / "shared" / "real_runs"


def predict(path: Path) -> tuple[dict[str, set[str]], str | None]:
    """Labels found per run name in the frame read from `path` (empty set = healthy)."""
    try:
        result = load_run(path)
    except LossForensicsError as exc:
        return {}, f"{type(exc).__name__}: {exc}"
    diagnoses = diagnose_all(
        result.frame, source=result.source, warnings=result.warnings, strict=True
    )  # a classifier bug must fail the evaluation
    return {d.run: {f.label for f in d.findings} for d in diagnoses}, None


def _match(per_run: dict[str, set[str]], name: str) -> set[str] | None:
    """The prediction for run `name` of a multi-run file (readers may prefix or suffix names)."""
    if name in per_run:
        return per_run[name]
    hits = [k for k in per_run if k.endswith(name) or name.endswith(k) or f"/{name}" in k]
    return per_run[hits[0]] if len(hits) == 1 else None


def _truth(labels: list[str], primary: str | None) -> tuple[str, ...]:
    """The label list with the primary label first (corpus entries name it as `recipe`)."""
    if primary in labels:
        return (primary, *[x for x in labels if x != primary])
    return tuple(labels)


def score_labelled(root: Path, labels: dict, limit: int | None, log: list[str]) -> list[Scored]:
    """Diagnose every labelled entry under `root`; one Scored per run (per_run entries expand)."""
    scored: list[Scored] = []
    for name, entry in list(labels.items())[: limit or None]:
        path = root / name
        per_run, error = predict(path)
        if error:
            log.append(f"{name}: unreadable ({error})")
        if "per_run" in entry:
            for run, truth in entry["per_run"].items():
                pred = _match(per_run, run)
                if pred is None:
                    log.append(f"{name}/{run}: run not found in the frame")
                    pred = set()
                primary = entry.get("runs", {}).get(run, {}).get("recipe")
                scored.append(
                    Scored(f"{name}/{run}", _truth(truth, primary), frozenset(normalise(pred)))
                )
            continue
        pred = set().union(*per_run.values()) if per_run else set()
        scored.append(
            Scored(name, _truth(entry["label"], entry.get("recipe")), frozenset(normalise(pred)))
        )
    return scored


def corpus_scores(corpus: Path, limit: int | None, log: list[str]) -> list[Scored]:
    with tempfile.TemporaryDirectory() as tmp:
        if corpus.is_dir():
            root = corpus
        else:
            with tarfile.open(corpus) as tar:
                tar.extractall(tmp, filter="data")
            root = Path(tmp)
        labels = json.loads((root / "labels.json").read_text())
        return score_labelled(root / "runs", labels, limit, log)


def _fmt(x: float | None) -> str:
    return "  -  " if x is None else f"{x:5.2f}"


def print_report(title: str, res: dict, scored: list[Scored], out=sys.stdout) -> None:
    w = out.write
    w(f"\n== {title}: {res['runs']} runs ==\n")
    w(f"{'label':24s} {'prec':>5s} {'rec':>5s} {'f1':>5s} {'true':>5s} {'pred':>5s}\n")
    for lab, r in res["per_label"].items():
        w(
            f"{lab:24s} {_fmt(r['precision'])} {_fmt(r['recall'])} {_fmt(r['f1'])} "
            f"{r['support']:5d} {r['predicted']:5d}\n"
        )
    worst = res["worst_label"]
    w(
        f"macro-F1 (labels with support): {res['macro_f1']:.3f}   worst: {worst[0]} "
        f"{_fmt(worst[1])}\n"
    )
    far = res["false_alarm_rate"]
    w(
        f"healthy runs flagged: {'-' if far is None else f'{far:.1%}'}   "
        f"agreement: {res['agreement']:.1%}   exact label-set match: {res['exact_match']:.1%}\n"
    )
    w("confusion (true label -> predicted labels on those runs):\n")
    for t, row in sorted(res["confusion"].items()):
        cells = ", ".join(f"{p} {n}" for p, n in sorted(row.items(), key=lambda kv: -kv[1]))
        w(f"  {t:24s} {cells}\n")
    misses = [s for s in scored if not s.agrees]
    if misses and len(misses) <= 40:
        w("runs that do not agree:\n")
        for s in misses:
            w(f"  {s.name}: true {list(s.truth)} predicted {sorted(s.predicted)}\n")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", action="store_true", help="machine-readable output")
    ap.add_argument("--corpus", action="store_true", help="only the generated corpus")
    ap.add_argument("--real", action="store_true", help="only the real published runs")
    ap.add_argument("--limit", type=int, default=None, help="first N entries of each set")
    ap.add_argument(
        "--corpus-path",
        type=Path,
        default=CORPUS,
        help="corpus .tar.xz or extracted folder (runs/ + labels.json)",
    )
    ap.add_argument("--real-path", type=Path, default=REAL_RUNS)
    args = ap.parse_args(argv)
    both = not (args.corpus or args.real)
    report: dict = {}
    log: list[str] = []
    t0 = time.perf_counter()
    sets: list[tuple[str, list[Scored]]] = []
    if args.corpus or both:
        if args.corpus_path.exists():
            sets.append(("corpus", corpus_scores(args.corpus_path, args.limit, log)))
        else:
            log.append(f"corpus not found at {args.corpus_path}; run benchmarks/corpus/generate.py")
    if args.real or both:
        labels_file = args.real_path / "labels.json"
        if labels_file.is_file():
            labels = json.loads(labels_file.read_text())
            sets.append(("real", score_labelled(args.real_path, labels, args.limit, log)))
        else:
            log.append(f"real runs skipped: {labels_file} is absent")
    for name, scored in sets:
        report[name] = summary(scored)
        report[name]["runs_detail"] = [
            {
                "name": s.name,
                "truth": list(s.truth),
                "predicted": sorted(s.predicted),
                "agrees": s.agrees,
            }
            for s in scored
        ]
    report["messages"] = log
    report["seconds"] = round(time.perf_counter() - t0, 1)
    if args.json:
        print(json.dumps(report, indent=1, default=list))
    else:
        for name, scored in sets:
            print_report(
                {"corpus": "generated corpus", "real": "real published runs"}[name],
                report[name],
                scored,
            )
        for m in log:
            print(m, file=sys.stderr)
        print(f"\n({report['seconds']} s)")
    return 0 if sets else 1


if __name__ == "__main__":
    sys.exit(main())
