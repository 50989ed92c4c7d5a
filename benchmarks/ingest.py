"""Ingest speed and memory, each figure a ratio against a reference measured in the same process.

    .venv/bin/python benchmarks/ingest.py [--points 1000000] [--cache DIR] [--only tensorboard]

1. TensorBoard: a 1,000,000-scalar run (10 tags x 100,000 steps) written by PyTorch's
   SummaryWriter, read by tbparse `SummaryReader(dir).scalars` and by our reader. Prints both
   times, the speed-up, points/s, the peak memory of our read (Python + numpy heap via
   tracemalloc, plus Arrow's pool where the string columns live) against the frame's own size.
2. JSONL: 1,000,000 lines through `lossforensics.ingest.load_run` vs `pandas.read_json(lines=True)`.
3. W&B CSV export: 1,000,000 rows through `ingest.load_run` vs plain `pandas.read_csv`.
4. A series file (`train_loss.txt` of `step loss` lines, as `np.savetxt` writes): 1,000,000
   lines through `ingest.load_run` vs `np.loadtxt`.

Generated inputs are cached under the temp dir (the SummaryWriter run takes ~1 minute to write;
its CRCs are computed with the `crc32c` C package instead of tensorboard's pure-Python fallback,
which writes the same bytes faster).
"""

from __future__ import annotations

import argparse
import gc
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from lossforensics.ingest import tensorboard  # noqa: E402
from lossforensics.ingest._tb_crc import masked_crc_one  # noqa: E402

from benchmarks import figures  # noqa: E402

TAGS = 10


@dataclass
class Timing:
    cpu: float  # process_time: the work, whatever the neighbours on a shared machine do
    wall: float  # perf_counter of the same run
    out: object


def best_of(fn: Callable[[], object], repeat: int) -> Timing:
    """The run with the least CPU time out of `repeat`."""
    best = Timing(float("inf"), float("nan"), None)
    for _ in range(repeat):
        gc.collect()
        wall, cpu = time.perf_counter(), time.process_time()
        out = fn()
        cpu = time.process_time() - cpu
        if cpu < best.cpu:
            best = Timing(cpu, time.perf_counter() - wall, out)
    return best


def median_wall(fn: Callable[[], object], repeat: int) -> Timing:
    """The run with the median wall time out of `repeat` (the issue's measure: wall, median)."""
    runs = []
    for _ in range(repeat):
        gc.collect()
        wall, cpu = time.perf_counter(), time.process_time()
        out = fn()
        runs.append(Timing(time.process_time() - cpu, time.perf_counter() - wall, out))
    return sorted(runs, key=lambda r: r.wall)[len(runs) // 2]


def event_accumulator_scalars(run: Path) -> int:
    """TensorBoard's own loader, every scalar kept (size_guidance 0 = keep all)."""
    from tensorboard.backend.event_processing import event_accumulator as ea

    acc = ea.EventAccumulator(str(run), size_guidance={ea.SCALARS: 0, ea.TENSORS: 0})
    acc.Reload()
    return sum(len(acc.Scalars(tag)) for tag in acc.Tags()["scalars"])


def peak_memory(fn: Callable[[], object]) -> tuple[int, int, object]:
    """(tracemalloc peak, Arrow pool peak growth) while fn runs."""
    import pyarrow as pa

    gc.collect()
    pool = pa.default_memory_pool()
    arrow_before = pool.bytes_allocated()
    tracemalloc.start()
    out = fn()
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return peak, max(0, pool.max_memory() - arrow_before), out


def frame_bytes(frame: pd.DataFrame) -> int:
    return int(frame.memory_usage(deep=True).sum())


def mb(n: float) -> str:
    return f"{n / 1e6:.1f} MB"


# --- TensorBoard -------------------------------------------------------------------------------


def tensorboard_run(cache: Path, points: int) -> Path:
    """The SummaryWriter run (cached): TAGS tags, points // TAGS steps each."""
    run = cache / f"tb_{points}"
    done = run / "COMPLETE"
    if done.exists():
        return run
    import shutil

    shutil.rmtree(run, ignore_errors=True)
    from tensorboard.summary.writer import record_writer
    from torch.utils.tensorboard import SummaryWriter

    record_writer.masked_crc32c = masked_crc_one  # same bytes, C speed
    rng = np.random.default_rng(0)
    steps = points // TAGS
    loss = (2.0 * np.exp(-np.arange(steps) / (steps / 5)) + rng.normal(0, 0.02, steps)).tolist()
    names = [f"train/loss_{k}" if k < 5 else f"metric/score_{k}" for k in range(TAGS)]
    print(f"writing {points:,} scalars with torch SummaryWriter to {run} ...", flush=True)
    t = time.perf_counter()
    writer = SummaryWriter(str(run), max_queue=100_000, flush_secs=3600)
    for step in range(steps):
        for name in names:
            writer.add_scalar(name, loss[step], step)
    writer.close()
    done.write_text("ok")
    print(f"  written in {time.perf_counter() - t:.0f}s", flush=True)
    return run


def bench_tensorboard(cache: Path, points: int, repeat: int) -> None:
    run = tensorboard_run(cache, points)
    size = sum(f.stat().st_size for f in run.glob("*tfevents*"))
    print(f"\nTensorBoard: {points:,} scalars ({TAGS} tags), event file {mb(size)}")
    # memory first (Arrow's pool only keeps a lifetime high-water mark), after a warm-up read of
    # the file's first 8 KB so that lazy imports are not counted
    head = cache / "warmup" / next(run.glob("*tfevents*")).name
    head.parent.mkdir(exist_ok=True)
    head.write_bytes(next(run.glob("*tfevents*")).read_bytes()[:8192])
    tensorboard.read(head)
    heap, arrow, result = peak_memory(lambda: tensorboard.read(run))
    fb = frame_bytes(result.frame)
    print(
        f"  frame size {mb(fb)}; peak during read: heap {mb(heap)} + Arrow {mb(arrow)} = "
        f"{(heap + arrow) / fb:.2f}x the frame (the event file is memory-mapped, not copied)"
    )
    figures.record(
        figures.Figure(
            "ingest",
            f"TensorBoard {points:,} scalars: peak memory while reading",
            (heap + arrow) / fb,
            "x frame",
            reference=fb / 1e6,
            reference_name="the returned frame's memory_usage(deep=True), MB",
            target="<= 3x the frame",
            met=(heap + arrow) / fb <= 3,
        )
    )
    ours = median_wall(lambda: tensorboard.read(run), repeat)
    n = len(ours.out.frame)
    assert n == points, f"expected {points} points, read {n}"
    print(
        f"  lossforensics tensorboard.read:     {ours.cpu:7.2f} s CPU ({ours.wall:6.2f} s wall)"
        f"  {n:>9,} points  {n / ours.wall:>11,.0f} points/s  (median of {repeat})"
    )
    references = []
    try:
        from tbparse import SummaryReader
    except ImportError:
        print("  tbparse not installed: no reference time")
    else:
        ref = median_wall(lambda: SummaryReader(str(run)).scalars, repeat)
        references.append(("tbparse SummaryReader(dir).scalars", ref, len(ref.out), ">= 50x"))
    try:
        acc = median_wall(lambda: event_accumulator_scalars(run), 1)
    except ImportError:
        print("  tensorboard not installed: no EventAccumulator reference")
    else:
        references.append(("TensorBoard EventAccumulator", acc, acc.out, None))
    for ref_name, ref, ref_points, target in references:
        speedup = ref.wall / ours.wall
        print(
            f"  {ref_name + ':':<35} {ref.cpu:7.2f} s CPU ({ref.wall:6.2f} s wall)"
            f"  {ref_points:>9,} points; speed-up {speedup:.1f}x wall, "
            f"{ref.cpu / ours.cpu:.1f}x CPU"
        )
        figures.record(
            figures.Figure(
                "ingest",
                f"TensorBoard {points:,} scalars, wall",
                ours.wall,
                "s",
                reference=ref.wall,
                reference_name=ref_name,
                ratio_name="speed-up",
                ratio=speedup,
                target=target,
                met=None if target is None else speedup >= 50,
            )
        )


def tensorboard_variant(cache: Path, points: int, kind: str) -> Path:
    """A cached run of `points` scalars over TAGS tags, records framed with TensorBoard's own
    protos: kind 'tensor' writes TF2-style scalars (a 0-d DT_FLOAT tensor, plugin 'scalars')
    in one file, kind 'files' plain simple_value scalars spread over 4 event files (a resumed
    run)."""
    run = cache / f"tb_{kind}_{points}"
    if (run / "COMPLETE").exists():
        return run
    from tensorboard.compat.proto.event_pb2 import Event
    from tensorboard.compat.proto.summary_pb2 import Summary, SummaryMetadata
    from tensorboard.compat.proto.tensor_pb2 import TensorProto

    from benchmarks.service import record

    run.mkdir(parents=True, exist_ok=True)
    steps = points // TAGS
    loss = 2.0 * np.exp(-np.arange(steps) / (steps / 5))
    meta = SummaryMetadata(plugin_data=SummaryMetadata.PluginData(plugin_name="scalars"))
    files = 1 if kind == "tensor" else 4
    per_file = -(-steps // files)
    for f in range(files):
        out = [record(Event(wall_time=1.7e9, file_version="brain.Event:2").SerializeToString())]
        for step in range(f * per_file, min(steps, (f + 1) * per_file)):
            for k in range(TAGS):
                v = float(loss[step] + k)
                if kind == "tensor":
                    value = Summary.Value(
                        tag=f"train/loss_{k}",
                        tensor=TensorProto(dtype=1, float_val=[v]),  # 1: DT_FLOAT
                        metadata=meta,
                    )
                else:
                    value = Summary.Value(tag=f"train/loss_{k}", simple_value=v)
                event = Event(step=step, wall_time=1.7e9 + step, summary=Summary(value=[value]))
                out.append(record(event.SerializeToString()))
        (run / f"events.out.tfevents.{1_700_000_000 + f}.bench").write_bytes(b"".join(out))
    (run / "COMPLETE").write_text("ok")
    return run


def bench_tensorboard_variants(cache: Path, points: int) -> None:
    """TF2 tensor scalars and several event files at once, against tbparse, one read each."""
    try:
        from tbparse import SummaryReader
    except ImportError:
        print("  tbparse not installed: no TF2 / several-files reference")
        return
    for kind, what, attr in (
        ("tensor", "TF2 tensor scalars", "tensors"),
        ("files", "4 event files in one folder", "scalars"),
    ):
        run = tensorboard_variant(cache, points, kind)
        tensorboard.read(run)  # warm: this layout's first read
        ours = median_wall(lambda r=run: tensorboard.read(r), 3)
        ref = median_wall(lambda r=run, a=attr: getattr(SummaryReader(str(r)), a), 1)
        assert len(ours.out.frame) == len(ref.out) == points, (len(ours.out.frame), len(ref.out))
        speedup = ref.wall / ours.wall
        print(
            f"TensorBoard {what}, {points:,} scalars: ours {ours.wall:.2f} s wall "
            f"({ours.cpu:.2f} s CPU), tbparse .{attr} {ref.wall:.2f} s wall ({ref.cpu:.2f} s "
            f"CPU); speed-up {speedup:.1f}x wall, {ref.cpu / ours.cpu:.1f}x CPU"
        )
        figures.record(
            figures.Figure(
                "ingest",
                f"TensorBoard {what}, {points:,} scalars, wall",
                ours.wall,
                "s",
                reference=ref.wall,
                reference_name=f"tbparse SummaryReader(dir).{attr}",
                ratio_name="speed-up",
                ratio=speedup,
                target=">= 50x",
                met=speedup >= 50,
            )
        )


# --- JSONL and W&B CSV via load_run ------------------------------------------------------------


def jsonl_file(cache: Path, lines: int) -> Path:
    path = cache / f"metrics_{lines}.jsonl"
    if not path.exists():
        rng = np.random.default_rng(1)
        frame = pd.DataFrame(
            {"step": np.arange(lines), "train/loss": rng.random(lines), "lr": np.full(lines, 3e-4)}
        )
        tmp = path.with_suffix(".tmp")
        frame.to_json(tmp, orient="records", lines=True)
        tmp.rename(path)
    return path


def wandb_csv_file(cache: Path, rows: int) -> Path:
    path = cache / f"wandb_export_{rows}.csv"
    if not path.exists():
        rng = np.random.default_rng(2)
        loss = rng.random(rows)
        frame = pd.DataFrame(
            {
                "Step": np.arange(rows),
                "run-1 - train/loss": loss,
                "run-1 - train/loss__MIN": loss,
                "run-1 - train/loss__MAX": loss,
            }
        )
        tmp = path.with_suffix(".tmp")
        frame.to_csv(tmp, index=False, quoting=1)
        tmp.rename(path)
    return path


def series_file(cache: Path, rows: int) -> Path:
    """`np.savetxt` of [step, loss] rows into a loss-named file (read by `series_file`)."""
    path = cache / f"series_{rows}" / "train_loss.txt"
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        rng = np.random.default_rng(3)
        rows_ = np.column_stack([np.arange(rows), rng.random(rows)])
        tmp = path.with_suffix(".tmp")
        np.savetxt(tmp, rows_, fmt=["%d", "%.6f"])
        tmp.rename(path)
    return path


def bench_load_run(cache: Path, rows: int, repeat: int) -> None:
    try:
        from lossforensics.ingest import load_run
    except ImportError as exc:
        print(f"\nJSONL / W&B CSV: skipped, ingest.load_run is not available yet ({exc})")
        return
    cases = [
        (
            "JSONL",
            jsonl_file(cache, rows),
            lambda p: pd.read_json(p, lines=True),
            "pandas.read_json(lines=True)",
        ),
        ("W&B CSV", wandb_csv_file(cache, rows), pd.read_csv, "pandas.read_csv"),
        ("Series file", series_file(cache, rows), np.loadtxt, "np.loadtxt"),
    ]
    for label, path, reference, ref_name in cases:
        print(f"\n{label}: {rows:,} rows, {mb(path.stat().st_size)}")
        ref = best_of(lambda p=path, r=reference: r(p), repeat)
        ours = best_of(lambda p=path: load_run(p), repeat)
        frame = getattr(ours.out, "frame", ours.out)
        print(
            f"  {ref_name + ':':<30} {ref.cpu:6.2f} s CPU ({ref.wall:6.2f} s wall)  "
            f"{len(ref.out):>9,} rows"
        )
        print(
            f"  {'ingest.load_run:':<30} {ours.cpu:6.2f} s CPU ({ours.wall:6.2f} s wall)  "
            f"{len(frame):>9,} points  {len(frame) / ours.cpu:>12,.0f} points/s"
        )
        print(f"  load_run CPU time / reference CPU time: {ours.cpu / ref.cpu:.2f}")
        figures.record(
            figures.Figure(
                "ingest",
                f"{label} {rows:,} rows via load_run, CPU",
                ours.cpu,
                "s",
                reference=ref.cpu,
                reference_name=ref_name,
                ratio_name="ours / reference",
                ratio=ours.cpu / ref.cpu,
            )
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--points", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument(
        "--cache", type=Path, default=Path(tempfile.gettempdir()) / "lossforensics-bench"
    )
    parser.add_argument("--only", choices=["tensorboard", "load_run"])
    figures.add_json_option(parser)
    args = parser.parse_args()
    args.cache.mkdir(parents=True, exist_ok=True)
    if args.only in (None, "tensorboard"):
        bench_tensorboard(args.cache, args.points, args.repeat)
        bench_tensorboard_variants(args.cache, args.points // 4)
    if args.only in (None, "load_run"):
        bench_load_run(args.cache, args.points, args.repeat)
    figures.write(args.json)


if __name__ == "__main__":
    main()
