"""Console reader throughput: a ~100 MB console log (a real Python-logging T5 log and a
print() DSFD log from ../shared/real_runs_more, repeated; a generated one when those are
absent), read end to end with `load_run`; prints MB/s and peak memory.

    .venv/bin/python benchmarks/console.py [--mb 100]
"""

from __future__ import annotations

import argparse
import resource
import tempfile
import time
from pathlib import Path

from lossforensics.ingest import load_run

REAL = Path(__file__).resolve().parents[1].parent / "shared" / "real_runs_more"
SOURCES = (
    "textlog_t5_bleu_plateau_train_to_zero/train.log",
    "textlog_dsfd_running_mean_healthy/train.log",
)


def sample() -> bytes:
    found = [REAL / s for s in SOURCES if (REAL / s).is_file()]
    if found:
        return b"".join(p.read_bytes() for p in found[:1])
    return "".join(
        f"2025-03-02 05:16:{i % 60:02d},348 - INFO - Epoch {i // 400 + 1} - Batch loss: "
        f"{1.0 / (i + 1):.4f}\n"
        for i in range(8000)
    ).encode()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--mb", type=float, default=100.0)
    args = ap.parse_args()
    block = sample()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "train.log"
        with open(path, "wb") as fh:
            written = 0
            while written < args.mb * 1e6:
                fh.write(block)
                written += len(block)
        size = path.stat().st_size
        start = time.perf_counter()
        result = load_run(path)
        took = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(
        f"console: {size / 1e6:.0f} MB, {len(result.frame):,} points in {took:.1f} s = "
        f"{size / 1e6 / took:.1f} MB/s; peak RSS {peak:.0f} MB ({result.source['detail']})"
    )


if __name__ == "__main__":
    main()
