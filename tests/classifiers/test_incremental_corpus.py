"""Every run of the own corpus, fed to IncrementalDiagnosis in three chunks: after each tick
the diagnosis equals `diagnose` of the same points (test_incremental feeds one run of each kind
in finer chunks)."""

from __future__ import annotations

import tarfile
from pathlib import Path

import pytest

from tests.classifiers._ticks import assert_ticks_equal_full

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
    assert_ticks_equal_full(corpus_root / name, CHUNKS)
