"""FrameBuilder's frame is make_frame's of the same columns with the default copy (the builder
hands its own arrays over uncopied); with `order='wall_time'` it takes the rows in time order
before it builds the frame: the same frame as building it in the order added and sorting it by
`seq` afterwards (the way it was built before). Restarts, labels, ties in time and several runs
included."""

import numpy as np
import pandas as pd
import pytest
from lossforensics.classifiers.frame import make_frame
from lossforensics.ingest._builder import FrameBuilder
from lossforensics.ingest._segments import restart_segments


def _parts(seed: int) -> list[dict]:
    rng = np.random.default_rng(seed)
    parts = []
    for _ in range(4):
        n = int(rng.integers(1, 60))
        parts.append(
            {
                "runs": rng.integers(0, 2, n).astype(np.int32),
                "metrics": rng.integers(0, 3, n).astype(np.int32),
                "steps": rng.integers(0, 30, n),  # steps that go back: restarts
                "values": rng.normal(size=n),
                "wall": rng.integers(0, 20, n).astype(np.float64),  # ties in time
                "labels": rng.integers(-1, 2, n) if seed % 2 else None,
            }
        )
    return parts


def _reference(parts: list[dict], runs: list[str], metrics: list[str], order: str) -> pd.DataFrame:
    """The frame built in the order added (copied by pandas), then, by time, sorted by seq."""
    runs_c, metrics_c, steps, values, wall = (
        np.concatenate([p[k] for p in parts])
        for k in ("runs", "metrics", "steps", "values", "wall")
    )
    labels = (
        np.concatenate([p["labels"] for p in parts]) if parts[0]["labels"] is not None else None
    )
    n = len(steps)
    seq = np.arange(n, dtype=np.int64)
    if order == "wall_time":
        seq[np.lexsort((np.arange(n), wall, runs_c))] = np.arange(n)
    frame = make_frame(
        pd.Categorical.from_codes(runs_c, categories=pd.Index(runs)),
        pd.Categorical.from_codes(metrics_c, categories=pd.Index(metrics)),
        steps,
        values,
        wall,
        seq,
        segment=restart_segments(
            runs_c, metrics_c, steps, seq if order == "wall_time" else None, labels
        ),
    )
    return frame.sort_values("seq", kind="stable").reset_index(drop=True)


@pytest.mark.parametrize("order", ["source", "wall_time"])
@pytest.mark.parametrize("seed", range(6))
def test_the_built_frame_is_the_copied_frame_in_seq_order(seed, order):
    parts = _parts(seed)
    builder = FrameBuilder()
    runs, metrics = ["a", "b"], ["loss", "val_loss", "lr"]
    builder.runs.codes(runs), builder.metrics.codes(metrics)  # codes 0, 1, ... in that order
    for p in parts:
        builder.add(p["runs"], p["metrics"], p["steps"], p["values"], p["wall"], p["labels"])
    built = builder.build(order=order)
    expected = _reference(parts, runs, metrics, order)
    pd.testing.assert_frame_equal(built, expected, check_exact=True)
