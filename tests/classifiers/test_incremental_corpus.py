"""Every run of the own corpus, fed to IncrementalDiagnosis in three chunks: after each tick
the diagnosis equals `diagnose` of the same points (test_incremental feeds one run of each kind
in finer chunks)."""

from __future__ import annotations

import tarfile
from pathlib import Path

import numpy as np
import pytest
from lossforensics.classifiers.diagnose import diagnose
from lossforensics.classifiers.incremental import IncrementalDiagnosis
from lossforensics.classifiers.run import split_runs
from lossforensics.ingest import load_run

CORPUS = Path(__file__).resolve().parents[2] / "benchmarks" / "corpus" / "corpus.tar.xz"
with tarfile.open(CORPUS) as _tar:
    RUNS = sorted({m.name.split("/")[1] for m in _tar.getmembers() if m.name.count("/") >= 2})
CHUNKS = 3


@pytest.fixture(scope="module")
def corpus_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("corpus")
    with tarfile.open(CORPUS) as tar:
        tar.extractall(root, filter="data")
    return root / "runs"


@pytest.mark.slow
@pytest.mark.parametrize("name", RUNS)
def test_every_corpus_run_ticks_equal_full_diagnosis(corpus_root: Path, name: str) -> None:
    for run in split_runs(load_run(corpus_root / name).frame):
        frame = run.frame.reset_index(drop=True)
        live = IncrementalDiagnosis(run.name)
        cuts = np.linspace(0, len(frame), CHUNKS + 1).astype(int)
        for start, stop in zip(cuts[:-1].tolist(), cuts[1:].tolist(), strict=True):
            live.add_frame(frame.iloc[start:stop])
            tick = live.tick()
            full = diagnose(frame.iloc[:stop], strict=True)
            assert tick.diagnosis.to_dict() == full.to_dict(), f"{name}: differs at {stop}"
