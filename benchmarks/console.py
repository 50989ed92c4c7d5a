"""Console reader throughput against a bare line loop over the same file, in one run.

    .venv/bin/python benchmarks/console.py [--mb 100] [--json PATH]

The log is a real console log repeated to about `--mb` MB: the Python-logging T5 log from
../shared/real_runs_more (every line a timestamped metric line, the reader's worst case), or a
generated one of the same form when that set is absent. Measured in the same process:
`load_run(path)` end to end (sniff, style choice, read, frame), a bare `for line in f` loop
over the file (the floor any line-by-line Python reader pays) and `grep -c loss` (a C tool
reading it). Memory: peak RSS while reading, above what the process held before. Targets
(issue 16): >= 30 MB/s with memory bounded on a 100 MB log. On a shared machine compare the
ratio to the bare loop rather than absolute MB/s.
"""

from __future__ import annotations

import argparse
import gc
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from lossforensics.ingest import load_run  # noqa: E402

from benchmarks import figures  # noqa: E402

REAL = Path(__file__).resolve().parents[1].parent / "shared" / "real_runs_more"
SOURCE = "textlog_t5_bleu_plateau_train_to_zero/train.log"
TARGET_MBS = 30.0


def sample() -> bytes:
    if (REAL / SOURCE).is_file():
        return (REAL / SOURCE).read_bytes()
    return "".join(
        f"2025-03-02 05:16:{i % 60:02d},348 - INFO - Epoch {i // 400 + 1} - Batch loss: "
        f"{1.0 / (i + 1):.4f}\n"
        for i in range(8000)
    ).encode()


def write_log(path: Path, mb: float) -> int:
    block = sample()
    with open(path, "wb") as fh:
        written = 0
        while written < mb * 1e6:
            fh.write(block)
            written += len(block)
    return path.stat().st_size


def timed(fn):  # type: ignore[no-untyped-def]
    """(wall seconds, CPU seconds of this process, what fn returned)."""
    wall, cpu = time.perf_counter(), time.process_time()
    out = fn()
    return time.perf_counter() - wall, time.process_time() - cpu, out


def bare_loop(path: Path) -> int:
    with open(path, "rb") as fh:
        n = 0
        for _ in fh:
            n += 1
    return n


def grep_count(path: Path) -> float | None:
    grep = shutil.which("grep")
    if grep is None:
        return None
    start = time.perf_counter()
    subprocess.run([grep, "-c", "loss", str(path)], check=False, capture_output=True)
    return time.perf_counter() - start


def rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--mb", type=float, default=100.0)
    figures.add_json_option(ap)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "train.log"
        mb = write_log(path, args.mb) / 1e6
        warm = Path(tmp) / "warm" / "train.log"
        warm.parent.mkdir()
        write_log(warm, 1)
        load_run(warm)  # imports and caches warm: not part of the figure
        gc.collect()
        before = rss_mb()
        ref, ref_cpu, _ = timed(lambda: bare_loop(path))
        took, cpu, result = timed(lambda: load_run(path))
        peak = rss_mb() - before
        ref2, ref2_cpu, _ = timed(lambda: bare_loop(path))  # the machine may change under us
        ref, ref_cpu = min(ref, ref2), min(ref_cpu, ref2_cpu)
        grep = grep_count(path)
    ours, loop = mb / took, mb / ref
    ours_cpu, loop_cpu = mb / cpu, mb / ref_cpu
    print(
        f"console: {mb:.0f} MB, {len(result.frame):,} points in {took:.2f} s = {ours:.1f} MB/s; "
        f"bare line loop {loop:.0f} MB/s (ours = {ours / loop:.1%} of it)"
        + (f"; grep -c {mb / grep:.0f} MB/s" if grep else "")
    )
    print(
        f"per CPU second of this process: ours {ours_cpu:.1f} MB/s, bare line loop "
        f"{loop_cpu:.0f} MB/s (ours = {ours_cpu / loop_cpu:.1%} of it)"
    )
    detail = result.source["detail"]
    print(f"peak RSS while reading: +{peak:.0f} MB over {before:.0f} MB ({detail})")
    figures.record(
        figures.Figure(
            "console",
            f"console log {mb:.0f} MB (timestamped metric lines), read throughput",
            ours,
            "MB/s",
            reference=loop,
            reference_name="bare `for line in f` loop over the same file",
            ratio_name="ours / reference",
            ratio=ours / loop,
            target=f">= {TARGET_MBS:.0f} MB/s",
            met=ours >= TARGET_MBS,
        )
    )
    figures.record(
        figures.Figure(
            "console",
            f"console log {mb:.0f} MB, read throughput per CPU second (shared machines)",
            ours_cpu,
            "MB/s",
            reference=loop_cpu,
            reference_name="bare `for line in f` loop, per CPU second",
            ratio_name="ours / reference",
            ratio=ours_cpu / loop_cpu,
            target=f">= {TARGET_MBS:.0f} MB/s",
            met=ours_cpu >= TARGET_MBS,
        )
    )
    figures.record(
        figures.Figure(
            "console",
            f"console log {mb:.0f} MB, peak RSS above the process before reading",
            peak,
            "MB",
            reference=mb,
            reference_name="file size",
            ratio_name="peak / file size",
            ratio=peak / mb,
            target="bounded (points kept, not the text)",
        )
    )
    figures.write(args.json)


if __name__ == "__main__":
    main()
