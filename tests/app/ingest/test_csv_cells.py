"""The CSV cells bound: a wide table is refused while it is read, before its points are built."""

from __future__ import annotations

import pytest
from lossforensics.classifiers.errors import LimitExceededError
from lossforensics.ingest import load_run
from lossforensics.ingest._limits import reading_with


def _wide(path, columns: int, rows: int):
    with open(path, "w") as fh:
        fh.write("step," + ",".join(f"m{j}" for j in range(columns - 1)) + "\n")
        for r in range(rows):
            fh.write(f"{r}," + ",".join(["0.5"] * (columns - 1)) + "\n")
    return path


def test_a_table_over_the_cells_limit_is_refused_naming_it(tmp_path):
    path = _wide(tmp_path / "wide.csv", columns=50, rows=400)  # 20,000 cells
    with reading_with(max_cells=5_000), pytest.raises(LimitExceededError, match="5000 cells"):
        load_run(path)


def test_a_table_within_the_cells_limit_is_read_whole(tmp_path):
    path = _wide(tmp_path / "wide.csv", columns=50, rows=400)
    with reading_with(max_cells=20_000):
        frame = load_run(path).frame
    assert len(frame) == 49 * 400
