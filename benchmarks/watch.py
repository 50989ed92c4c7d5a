"""What one `watch` tick costs on a growing log, beside a full diagnosis of the same file.

    .venv/bin/python benchmarks/watch.py [--points 1000000] [--grow 1000] [--ticks 5] [--json P]

A JSONL run of about `--points` scalars (the diagnose benchmark's run: loss, LR, grad norm, a
val loss) is written. The watcher follows it: after its first read, `--grow` more points are
appended before each tick, and the tick's time covers reading what grew (`Follower.poll`),
taking it in and re-diagnosing (`IncrementalDiagnosis.add_frame` + `tick`). After each tick the
file is diagnosed in full (`load_run` + `diagnose_all`, what `diagnose` does): that is both the
check (the tick's diagnosis must equal it) and the reference the tick is timed against, so the
two are measured on the same points, interleaved. Wall and CPU times are medians over the
ticks; CPU time is steadier on a shared machine. Also printed: the rows the tick's view upkeep
touched (`IncrementalDiagnosis.touched`), which follow the new points, not the file.
The target: a tick costs at most 1/5 of a full diagnosis, with the same findings.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from lossforensics.classifiers.diagnose import diagnose_all  # noqa: E402
from lossforensics.classifiers.incremental import IncrementalDiagnosis  # noqa: E402
from lossforensics.ingest import load_run  # noqa: E402
from lossforensics.ingest.follow import Follower  # noqa: E402

from benchmarks import figures  # noqa: E402
from benchmarks.diagnose import write_run  # noqa: E402

TARGET_RATIO = 0.2


def _median(values: list[float]) -> float:
    return sorted(values)[len(values) // 2]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--points", type=int, default=1_000_000)
    parser.add_argument("--grow", type=int, default=1000)
    parser.add_argument("--ticks", type=int, default=5)
    figures.add_json_option(parser)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        source = Path(tmp) / "source.jsonl"
        write_run(source, args.points + args.grow * (args.ticks + 1))
        lines = source.read_bytes().splitlines(keepends=True)
        per_line = 3.01  # points a line of this run holds, on average
        grow_lines = max(1, int(args.grow / per_line))
        head = len(lines) - grow_lines * args.ticks
        path = Path(tmp) / "metrics.jsonl"
        path.write_bytes(b"".join(lines[:head]))

        follower = Follower(path)
        live = IncrementalDiagnosis("metrics")
        t = time.perf_counter()
        live.add_frame(follower.poll().frame)
        live.tick()
        first_s = time.perf_counter() - t
        tick_wall, tick_cpu, full_wall, full_cpu, touched = [], [], [], [], []
        same = True
        for i in range(args.ticks):
            with path.open("ab") as fh:
                fh.write(b"".join(lines[head + i * grow_lines : head + (i + 1) * grow_lines]))
            before = live.touched
            t, c = time.perf_counter(), time.process_time()
            live.add_frame(follower.poll().frame)
            tick = live.tick()
            tick_wall.append(time.perf_counter() - t)
            tick_cpu.append(time.process_time() - c)
            touched.append(live.touched - before)
            t, c = time.perf_counter(), time.process_time()
            full = diagnose_all(load_run(path).frame)[0]
            full_wall.append(time.perf_counter() - t)
            full_cpu.append(time.process_time() - c)
            same = same and tick.diagnosis.findings == full.findings
            same = same and tick.diagnosis.verdict == full.verdict
    tick_s, full_s = _median(tick_wall), _median(full_wall)
    ratio, cpu_ratio = tick_s / full_s, _median(tick_cpu) / _median(full_cpu)
    print(f"points in the file          {live.points:>12,}   ({full.verdict})")
    print(
        f"full diagnosis (read+judge) {full_s * 1e3:>10.0f} ms   "
        f"({_median(full_cpu) * 1e3:.0f} ms CPU; median of {len(full_wall)})"
    )
    print(f"watch: first read + tick    {first_s * 1e3:>10.0f} ms")
    print(
        f"watch: tick (+{tick.points} points)  {tick_s * 1e3:>10.0f} ms   "
        f"({_median(tick_cpu) * 1e3:.0f} ms CPU; median of {len(tick_wall)})"
    )
    print(
        f"tick / full diagnosis       {ratio:>10.2f}      ({cpu_ratio:.2f} in CPU time; "
        f"target <= {TARGET_RATIO:.2f})"
    )
    print(f"rows the view touched a tick {_median(touched):>9,}      (new points: {tick.points:,})")
    print(f"every tick equals a full diagnosis of the file: {same}")
    figures.record(
        figures.Figure(
            "watch",
            f"watch tick on a {live.points:,}-point JSONL growing by {tick.points:,} points "
            f"(read + re-diagnose, median of {len(tick_wall)})",
            tick_s,
            "s",
            reference=full_s,
            reference_name="full diagnosis of the file (load_run + diagnose_all)",
            ratio_name="tick / full",
            ratio=ratio,
            target=f"<= {TARGET_RATIO:g} of a full diagnosis, and the same findings",
            met=bool(ratio <= TARGET_RATIO and same),
        )
    )
    figures.write(args.json)


if __name__ == "__main__":
    main()
