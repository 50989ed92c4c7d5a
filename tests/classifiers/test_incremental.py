"""IncrementalDiagnosis: after every tick, the same diagnosis as `diagnose` of the same points.

Compared against a full diagnosis at each tick, never against hard-coded labels (the rules
change; the equality must not)."""

from __future__ import annotations

import tarfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from lossforensics.classifiers.diagnose import diagnose
from lossforensics.classifiers.diagnosis import Diagnosis, Finding
from lossforensics.classifiers.frame import make_frame
from lossforensics.classifiers.incremental import IncrementalDiagnosis
from lossforensics.classifiers.run import split_runs
from lossforensics.ingest import load_run

REPO = Path(__file__).resolve().parents[2]
CORPUS = REPO / "benchmarks" / "corpus" / "corpus.tar.xz"
# one run of each of these kinds (the first in name order): every reader, most labels
CORPUS_KINDS = (
    "distribution_mismatch-mlflow",
    "exploding-tensorboard",
    "healthy-tensorboard_keras",
    "loss_spikes-mlflow",
    "lr_decayed_too_early-tensorboard",
    "metric_mismatch-hf_trainer_state",
    "nan-hf_trainer_state",
    "oscillating-jsonl",
    "over_clipping-jsonl",
    "overfit-keras_csv",
    "plateau-lightning_csv",
    "resume_discontinuity-jsonl",
    "resume_discontinuity-tensorboard_keras",
    "underfit-tensorboard",
)
SAMPLES = sorted(p.name for p in (REPO / "sample_runs").iterdir() if p.is_dir())


@pytest.fixture(scope="module")
def corpus_runs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("corpus")
    with tarfile.open(CORPUS) as tar:
        members = tar.getmembers()
        dirs = sorted({m.name.split("/")[1] for m in members if m.name.count("/") >= 2})
        chosen = {next(d for d in dirs if d.rsplit("-", 1)[0] == kind) for kind in CORPUS_KINDS}
        picked = [m for m in members if m.name.count("/") >= 2 and m.name.split("/")[1] in chosen]
        tar.extractall(root, members=picked, filter="data")
    return root / "runs"


def assert_ticks_match_full(frame: pd.DataFrame, name: str, chunks: int = 7) -> Diagnosis:
    """Feed the run in uneven chunks; after each tick compare with diagnose() of the prefix."""
    frame = frame.reset_index(drop=True)
    live = IncrementalDiagnosis(name)
    n = len(frame)
    cuts = np.unique(np.r_[1, 2, (np.geomspace(3, n + 1, chunks) - 1).astype(int), n])
    start = 0
    tick = None
    for cut in cuts[cuts <= n].tolist():
        live.add_frame(frame.iloc[start:cut])
        start = cut
        tick = live.tick()
        full = diagnose(frame.iloc[:cut], strict=True)
        assert tick.diagnosis.to_dict() == full.to_dict(), f"{name}: differs after {cut}/{n}"
    assert tick is not None
    return tick.diagnosis


@pytest.mark.parametrize("sample", SAMPLES)
def test_sample_runs_tick_equals_full_diagnosis(sample: str) -> None:
    for run in split_runs(load_run(REPO / "sample_runs" / sample).frame):
        assert_ticks_match_full(run.frame, run.name)


@pytest.mark.parametrize("kind", CORPUS_KINDS)
def test_corpus_runs_tick_equals_full_diagnosis(corpus_runs: Path, kind: str) -> None:
    run_dir = sorted(corpus_runs.glob(f"{kind}-*"))[0]
    for run in split_runs(load_run(run_dir).frame):
        assert_ticks_match_full(run.frame, run.name)


def test_points_added_by_name_equal_a_frame_of_them() -> None:
    rng = np.random.default_rng(0)
    steps = np.arange(400)
    loss = 2.5 * np.exp(-steps / 80) + 0.3 + 0.02 * rng.standard_normal(400)
    live = IncrementalDiagnosis("by-name")
    for s in steps.tolist():
        live.log(s, loss=loss[s], lr=3e-4, val_loss=loss[s] + 0.1 if s % 50 == 49 else None)
        if s % 97 == 0:
            live.tick()
    got = live.tick().diagnosis
    full = diagnose(make_frame("by-name", *_long(steps, loss)))
    assert got.to_dict() == full.to_dict()
    assert live.frame()["metric"].tolist()[:3] == ["loss", "lr", "loss"]


def _long(steps: np.ndarray, loss: np.ndarray) -> tuple[list, list, list]:
    rows: list[tuple[str, int, float]] = []
    for s in steps.tolist():
        rows += [("loss", s, loss[s]), ("lr", s, 3e-4)]
        if s % 50 == 49:
            rows.append(("val_loss", s, loss[s] + 0.1))
    metric, step, value = zip(*rows, strict=True)
    return list(metric), list(step), list(value)


def test_a_tick_without_new_points_judges_nothing() -> None:
    live = IncrementalDiagnosis()
    live.add("loss", range(50), np.linspace(2, 1, 50))
    first = live.tick()
    again = live.tick()
    assert first.judged and not again.judged
    assert again.diagnosis is first.diagnosis and again.points == 0


def test_due_at_once_on_a_non_finite_loss_else_when_paid_for() -> None:
    ticks = iter(range(10**6))  # a clock one second further at each reading: a tick "costs" 1 s
    live = IncrementalDiagnosis(budget_s=0.01, clock=lambda: float(next(ticks)))
    live.add("loss", range(100), np.linspace(2, 1, 100))
    assert live.due()  # the first tick is always due
    live.tick()
    live.log(100, loss=0.99)
    assert not live.due()  # one point does not pay for a one-second tick
    live.log(101, loss=float("nan"))
    assert live.due()
    live.tick()
    for s in range(102, 201):
        live.log(s, loss=1.0)
    assert not live.due()
    live.log(201, loss=1.0)
    assert live.due()  # 100 points x 10 ms pay for it


def test_supersession_reports_the_gone_label_and_what_came() -> None:
    from lossforensics.classifiers.incremental import _changes

    def finding(label: str) -> Finding:
        return Finding(label, 0.9, None, {}, label)

    before = Diagnosis("r", "exploding", findings=[finding("exploding")])
    after = Diagnosis("r", "resume_discontinuity", findings=[finding("resume_discontinuity")])
    new, gone = _changes(before, after)
    assert [f.label for f in new] == ["resume_discontinuity"]
    assert [(s.finding.label, s.by) for s in gone] == [("exploding", ("resume_discontinuity",))]
    assert "no longer holds" in gone[0].describe()
