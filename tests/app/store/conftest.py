"""The store on each backend: SQLite always, PostgreSQL when a test server is configured."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from lossforensics.classifiers.diagnose import diagnose_all
from lossforensics.classifiers.frame import make_frame
from lossforensics.store import NewRun, RunStore

from tests.app.store.pg import pg_schema_url


class Clock:
    """A clock the test moves by hand, so ordering by time is deterministic."""

    def __init__(self) -> None:
        self.now = 1_700_000_000.0

    def __call__(self) -> float:
        self.now += 1.0
        return self.now


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[RunStore]:
    if request.param == "sqlite":
        s = RunStore.open(tmp_path / "data", clock=Clock())
        yield s
        s.close()
        return
    with pg_schema_url() as url:
        s = RunStore.open(tmp_path / "data", url, clock=Clock())
        yield s
        s.close()


def frame_of(name: str, *, overfit: bool = False, n: int = 300) -> pd.DataFrame:
    steps = np.arange(n)
    train = 2.0 * np.exp(-steps / (n / 4)) + 0.1
    val = train + 0.05 + (np.maximum(0, steps - n / 3) / n * 2 if overfit else 0)
    return make_frame(
        name, ["train/loss"] * n + ["val/loss"] * n, np.r_[steps, steps], np.r_[train, val]
    )


def new_run(name: str = "r", *, overfit: bool = False, origin: str | None = None) -> NewRun:
    frame = frame_of(name, overfit=overfit)
    (diag,) = diagnose_all(frame, source={"format": "jsonl", "files": [f"{name}.jsonl"]})
    return NewRun(name, frame, diag, "jsonl", [f"{name}.jsonl"], origin)
