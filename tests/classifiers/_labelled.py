"""Test helpers for the label files: build a run from named series, and run one classifier over
every labelled real run in ../shared/real_runs."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

import numpy as np
import pandas as pd
from lossforensics.classifiers.base import Classifier
from lossforensics.classifiers.diagnosis import Finding
from lossforensics.classifiers.frame import make_frame
from lossforensics.classifiers.run import RunSeries, split_runs


def frame_of(run: str = "r", **series: tuple[np.ndarray, np.ndarray]) -> pd.DataFrame:
    """make_frame from metric=(steps, values) pairs; roles inferred from the names, seq in the
    order given (series after series)."""
    names, steps, values = [], [], []
    for name, (x, y) in series.items():
        names += [name] * len(x)
        steps.append(np.asarray(x, dtype=np.int64))
        values.append(np.asarray(y, dtype=np.float64))
    if not names:
        return make_frame(run, [], [], [])
    return make_frame(run, names, np.concatenate(steps), np.concatenate(values))


def run_of(**series: tuple[np.ndarray, np.ndarray]) -> RunSeries:
    return RunSeries(frame_of(**series))


def judge(clf: Classifier, run: RunSeries) -> Finding | None:
    """What diagnose does for one classifier: skip, else detect."""
    return None if clf.skip_reason(run) is not None else clf.detect(run)


@cache
def _load(path: str) -> pd.DataFrame:
    from lossforensics.ingest import load_run

    return load_run(path).frame


def real_outcomes(real_runs: Path, clf: Classifier) -> list[tuple[str, bool, bool]]:
    """(entry, fired on some run of it, label expected) for every labelled real run; a
    multi-run entry with per-run labels yields one row a run."""
    labels = json.loads((real_runs / "labels.json").read_text())
    rows = []
    for entry, meta in sorted(labels.items()):
        per_run = meta.get("per_run") or {}
        runs = split_runs(_load(str(real_runs / entry)))
        if per_run:
            for run in runs:
                truth = next((v for k, v in per_run.items() if run.name.endswith(k)), None)
                if truth is not None:
                    rows.append(
                        (f"{entry}:{run.name}", judge(clf, run) is not None, clf.label in truth)
                    )
        else:
            fired = any(judge(clf, run) is not None for run in runs)
            rows.append((entry, fired, clf.label in meta["label"]))
    return rows


def assert_matches_real_labels(real_runs: Path, clf: Classifier) -> None:
    wrong = [(e, fired, want) for e, fired, want in real_outcomes(real_runs, clf) if fired != want]
    assert not wrong, f"{clf.label} disagrees with labels.json on (entry, fired, expected): {wrong}"
