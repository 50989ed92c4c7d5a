"""Console reader throughput and peak memory on ~100 MB logs of the common styles, each beside
references measured in the same process.

    .venv/bin/python benchmarks/console.py [--mb 100] [--styles logging,hf,...] [--tracemalloc]
                                           [--json PATH]

Each log is a real or framework-written console log repeated to about `--mb` MB:

    logging    the Python-logging T5 log of ../shared/real_runs_more (every line a timestamped
               metric line), or a generated one of that form when the set is absent
    hf         the HF Trainer's printed dicts between tqdm redraws (console fixture)
    keras2     Keras fit(verbose=2): an `Epoch n/N` line, then the epoch's metrics (fixture)
    tqdm       a tqdm bar with a loss postfix, redrawn with carriage returns (fixture)
    lightning  Lightning's bar, reset on the same line every epoch (fixture)
    keyvalue   generic `epoch=.. step=.. loss=.. lr=.. grad_norm=..` lines (generated)

Each style runs in a fresh process, so its peak RSS is its own: `load_run(path)` end to end
(sniff, style choice, read, frame), then the references: a bare `for line in f` loop over the
same file (the floor any line-by-line Python reader pays) and `grep -c loss` (a C tool reading
it). Throughput is per CPU second of the process (the machine may be shared) and per wall
second. Memory: the peak RSS while reading above what the process held before, against the
returned frame's `memory_usage(deep=True)`; with --tracemalloc, also the peak of Python's
allocations during a second read (slower, so not timed). Targets (issue 16): >= 30 MB/s, and
memory bounded by the points kept, not the text: peak <= 2 x the frame + 64 MB (the text in
flight: a block, its lines, the lines waiting to be packed).
"""

from __future__ import annotations

import argparse
import gc
import json
import random
import resource
import shutil
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from benchmarks import figures  # noqa: E402

REAL = REPO.parent / "shared" / "real_runs_more"
FIXTURES = REPO / "tests" / "app" / "ingest" / "console_fixtures"
LOGGING = "textlog_t5_bleu_plateau_train_to_zero/train.log"
STYLES = ("logging", "hf", "keras2", "tqdm", "lightning", "keyvalue")
FIXTURE_OF = {
    "hf": "hf_trainer.log",
    "keras2": "keras_verbose2.log",
    "tqdm": "tqdm.log",
    "lightning": "lightning.log",
}
TARGET_MBS = 30.0
TARGET_FRAMES, TARGET_TEXT_MB = 2.0, 64.0  # peak <= 2 x frame + 64 MB


def sample(style: str) -> bytes:
    """One copy of the style's log, repeated to the size asked."""
    if style in FIXTURE_OF:
        return (FIXTURES / FIXTURE_OF[style]).read_bytes()
    if style == "logging" and (REAL / LOGGING).is_file():
        return (REAL / LOGGING).read_bytes()
    rng = random.Random(0)
    if style == "logging":
        lines = (
            f"2025-03-02 05:16:{i % 60:02d},348 - INFO - Epoch {i // 400 + 1} - Batch loss: "
            f"{1.0 / (i + 1):.4f}\n"
            for i in range(8000)
        )
    else:
        lines = (
            f"epoch={i // 500} step={i} loss={rng.random():.4f} lr={1e-4 * rng.random():.3e} "
            f"grad_norm={3 * rng.random():.3f}\n"
            for i in range(20_000)
        )
    return "".join(lines).encode()


def write_log(path: Path, style: str, mb: float) -> int:
    block = sample(style)
    with open(path, "wb") as fh:
        written = 0
        while written < mb * 1e6:
            fh.write(block)
            written += len(block)
    return path.stat().st_size


def bare_loop(path: Path) -> int:
    with open(path, "rb") as fh:
        n = 0
        for _ in fh:
            n += 1
    return n


def timed(fn):  # type: ignore[no-untyped-def]
    """(wall seconds, CPU seconds of this process, what fn returned)."""
    wall, cpu = time.perf_counter(), time.process_time()
    out = fn()
    return time.perf_counter() - wall, time.process_time() - cpu, out


def rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def child(path: Path, trace: bool) -> dict[str, object]:
    """Measure one log in this (fresh) process."""
    from lossforensics.ingest import load_run

    load_run(FIXTURES / "keras_verbose2.log")  # imports and caches warm: not part of the figure
    gc.collect()
    before = rss_mb()
    took, cpu, result = timed(lambda: load_run(path))
    peak = rss_mb() - before
    frame_mb = result.frame.memory_usage(deep=True).sum() / 1e6
    points = len(result.frame)
    detail = result.source["detail"]
    del result
    gc.collect()
    loop = min((timed(lambda: bare_loop(path)) for _ in range(2)), key=lambda t: t[1])
    grep = shutil.which("grep")
    grep_s = None
    if grep:
        start = time.perf_counter()
        subprocess.run([grep, "-c", "loss", str(path)], check=False, capture_output=True)
        grep_s = time.perf_counter() - start
    traced = None
    if trace:
        tracemalloc.start()
        load_run(path)
        traced = tracemalloc.get_traced_memory()[1] / 1e6
        tracemalloc.stop()
    return {
        "wall": took,
        "cpu": cpu,
        "peak_mb": peak,
        "frame_mb": frame_mb,
        "points": points,
        "detail": detail,
        "loop_wall": loop[0],
        "loop_cpu": loop[1],
        "grep_wall": grep_s,
        "traced_mb": traced,
    }


def measure(style: str, mb: float, trace: bool, tmp: Path) -> dict[str, object]:
    path = tmp / f"{style}.log"
    size = write_log(path, style, mb) / 1e6
    cmd = [sys.executable, __file__, "--child", str(path)] + (["--tracemalloc"] if trace else [])
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False, cwd=REPO)
    path.unlink()
    if proc.returncode != 0:
        raise SystemExit(f"{style}: {proc.stderr[-2000:]}")
    got = json.loads(proc.stdout.strip().splitlines()[-1])
    got["mb"] = size
    return got


def report(style: str, m: dict[str, object]) -> None:
    mb, cpu, wall = float(m["mb"]), float(m["cpu"]), float(m["wall"])  # type: ignore[arg-type]
    peak, frame = float(m["peak_mb"]), float(m["frame_mb"])  # type: ignore[arg-type]
    loop_cpu, loop_wall = float(m["loop_cpu"]), float(m["loop_wall"])  # type: ignore[arg-type]
    points = int(m["points"])  # type: ignore[call-overload]
    ours_cpu, ours = mb / cpu, mb / wall
    line = (
        f"{style:9s} {mb:4.0f} MB, {points:>9,} points: {ours_cpu:5.1f} MB/s per CPU s "
        f"({ours:5.1f} wall); bare line loop {mb / loop_cpu:5.0f} per CPU s "
        f"(ours {ours_cpu / (mb / loop_cpu):.1%})"
    )
    if m["grep_wall"]:
        line += f"; grep -c {mb / float(m['grep_wall']):.0f} wall"  # type: ignore[arg-type]
    print(line)
    bound = TARGET_FRAMES * frame + TARGET_TEXT_MB
    extra = ""
    if m["traced_mb"] is not None:
        extra = f"; tracemalloc peak {float(m['traced_mb']):.0f} MB"  # type: ignore[arg-type]
    print(
        f"{'':9s} peak RSS +{peak:.0f} MB = {peak / max(frame, 1e-9):.2f}x the frame "
        f"({frame:.0f} MB deep, {1e6 * frame / max(points, 1):.0f} B/point); "
        f"{1e6 * peak / max(points, 1):.0f} B/point{extra} [{m['detail']}]"
    )
    figures.record(
        figures.Figure(
            "console",
            f"console log {mb:.0f} MB ({style}), read throughput per CPU second",
            ours_cpu,
            "MB/s",
            reference=mb / loop_cpu,
            reference_name="bare `for line in f` loop, per CPU second",
            ratio_name="ours / reference",
            ratio=ours_cpu / (mb / loop_cpu),
            target=f">= {TARGET_MBS:.0f} MB/s",
            met=ours_cpu >= TARGET_MBS,
        )
    )
    figures.record(
        figures.Figure(
            "console",
            f"console log {mb:.0f} MB ({style}), read throughput, wall",
            ours,
            "MB/s",
            reference=mb / loop_wall,
            reference_name="bare `for line in f` loop, wall",
            ratio_name="ours / reference",
            ratio=ours / (mb / loop_wall),
            target=f">= {TARGET_MBS:.0f} MB/s",
            met=ours >= TARGET_MBS,
        )
    )
    figures.record(
        figures.Figure(
            "console",
            f"console log {mb:.0f} MB ({style}), peak RSS above the process before reading",
            peak,
            "MB",
            reference=frame,
            reference_name="the frame returned, memory_usage(deep=True)",
            ratio_name="peak / frame",
            ratio=peak / max(frame, 1e-9),
            target=f"<= {TARGET_FRAMES:.0f}x frame + {TARGET_TEXT_MB:.0f} MB",
            met=peak <= bound,
        )
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--mb", type=float, default=100.0)
    ap.add_argument(
        "--styles", default=",".join(STYLES), help="comma-separated, of: " + ", ".join(STYLES)
    )
    ap.add_argument("--tracemalloc", action="store_true", help="also trace a second read")
    ap.add_argument("--child", type=Path, help=argparse.SUPPRESS)
    figures.add_json_option(ap)
    args = ap.parse_args()
    if args.child:
        print(json.dumps(child(args.child, args.tracemalloc)))
        return
    styles = [s for s in args.styles.split(",") if s]
    unknown = set(styles) - set(STYLES)
    if unknown:
        raise SystemExit(f"unknown style(s): {', '.join(sorted(unknown))}")
    with tempfile.TemporaryDirectory() as tmp:
        for style in styles:
            report(style, measure(style, args.mb, args.tracemalloc, Path(tmp)))
    figures.write(args.json)


if __name__ == "__main__":
    main()
