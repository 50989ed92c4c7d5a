"""What one `watch` tick costs on a growing log as the run grows, beside a full diagnosis of the
same file at each size.

    .venv/bin/python benchmarks/watch.py [--sizes 100000 1000000 3000000] [--grow 1000]
                                         [--ticks 5] [--resumed] [--json P]

For each size, a JSONL run of about that many scalars (the diagnose benchmark's run: loss, LR,
grad norm, a val loss) is written; with `--resumed`, its log goes back once, as a run resumed
from a checkpoint logs the same steps again (the first 60% of its lines, then the lines from 50%
on: every metric's writes then differ from its curve). The watcher follows it: after its first
read, `--grow` more points are appended before each tick, and the tick's time covers reading
what grew (`Follower.poll`), taking it in and re-diagnosing (`IncrementalDiagnosis.add_frame` +
`tick`). After each tick the file is diagnosed in full (`load_run` + `diagnose_all`, what
`diagnose` does): that is both the check (the tick's diagnosis must equal it) and the reference
the tick is timed against, so the two are measured on the same points, interleaved. Wall and CPU
times are medians over the ticks; CPU time is steadier on a shared machine. Also printed: the
rows the tick's view upkeep touched (`IncrementalDiagnosis.touched`), which follow the new
points, not the file, and the most points a classifier was handed a curve (the judging
resolution caps it at JUDGED_POINTS), so a tick's cost stays about flat as the run grows while a
full diagnosis grows with it. Targets: at every size the same findings as the full diagnosis;
from 1M points a tick costing at most 1/5 of it; the tick at the largest size at most twice the
tick at the smallest.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from lossforensics.classifiers.diagnose import diagnose_all  # noqa: E402
from lossforensics.classifiers.incremental import IncrementalDiagnosis  # noqa: E402
from lossforensics.ingest import load_run  # noqa: E402
from lossforensics.ingest.follow import Follower  # noqa: E402

from benchmarks import figures  # noqa: E402
from benchmarks.diagnose import write_run  # noqa: E402

TARGET_RATIO = 0.2
# ... on files of 1M points and more (the size): a smaller file's full diagnosis is
# short enough that a tick's fixed cost (judging up to JUDGED_POINTS a curve) is a larger share
TARGET_FROM_POINTS = 1_000_000
# a tick at the largest size may cost at most twice the tick at the smallest: flat but for the
# new points' reading and the readers that still scan the run's rows
FLAT_GROWTH = 2.0


# --resumed: where the log goes back, and to where, as shares of its lines
_RESUMED_AT, _RESUMED_TO = 0.6, 0.5


def _median(values: list[float]) -> float:
    return sorted(values)[len(values) // 2]


@dataclass
class Sizing:
    """One size's measurements: medians over the ticks."""

    points: int
    grew: int
    first_s: float
    tick_s: float
    tick_cpu: float
    full_s: float
    full_cpu: float
    touched: int
    judged_max: int  # most points a classifier was handed in one curve
    verdict: str
    same: bool


def measure(tmp: Path, points: int, grow: int, ticks: int, resumed: bool = False) -> Sizing:
    """Follow a JSONL run of about `points` scalars for `ticks` ticks of `grow` points each."""
    source = tmp / f"source-{points}.jsonl"
    write_run(source, points + grow * (ticks + 1))
    lines = source.read_bytes().splitlines(keepends=True)
    if resumed:  # the log goes back once: from 60% of its lines to 50%
        lines = lines[: int(_RESUMED_AT * len(lines))] + lines[int(_RESUMED_TO * len(lines)) :]
    per_line = 3.01  # points a line of this run holds, on average
    grow_lines = max(1, int(grow / per_line))
    head = len(lines) - grow_lines * ticks
    path = tmp / f"metrics-{points}.jsonl"
    path.write_bytes(b"".join(lines[:head]))

    follower = Follower(path)
    live = IncrementalDiagnosis("metrics")
    t = time.perf_counter()
    live.add_frame(follower.poll().frame)
    live.tick()
    first_s = time.perf_counter() - t
    tick_wall, tick_cpu, full_wall, full_cpu, touched = [], [], [], [], []
    same = True
    for i in range(ticks):
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
    run = live.series()
    judged = [run.curve("", str(m)) for m in run.metric_codes()[1]]
    return Sizing(
        live.points,
        tick.points,
        first_s,
        _median(tick_wall),
        _median(tick_cpu),
        _median(full_wall),
        _median(full_cpu),
        _median(touched),
        max(len(c) for c in judged if c is not None),
        full.verdict,
        same,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[100_000, 1_000_000, 3_000_000])
    parser.add_argument("--grow", type=int, default=1000)
    parser.add_argument("--ticks", type=int, default=5)
    parser.add_argument(
        "--resumed", action="store_true", help="the log goes back once (a resume), as it grows"
    )
    figures.add_json_option(parser)
    args = parser.parse_args()
    print(
        f"{'points':>10} {'full ms':>8} {'(CPU)':>6} {'tick ms':>8} {'(CPU)':>6} "
        f"{'tick/full':>9} {'(CPU)':>6} {'first ms':>9} {'touched':>8} {'judged':>7}  same"
    )
    sized: list[Sizing] = []
    kind = "resumed JSONL" if args.resumed else "JSONL"
    resumed = " (resumed)" if args.resumed else ""
    with tempfile.TemporaryDirectory() as tmp:
        for size in args.sizes:
            m = measure(Path(tmp), size, args.grow, args.ticks, args.resumed)
            sized.append(m)
            ratio = m.tick_s / m.full_s
            print(
                f"{m.points:>10,} {m.full_s * 1e3:>8.0f} {m.full_cpu * 1e3:>6.0f} "
                f"{m.tick_s * 1e3:>8.1f} {m.tick_cpu * 1e3:>6.1f} {ratio:>9.3f} "
                f"{m.tick_cpu / m.full_cpu:>6.3f} {m.first_s * 1e3:>9.0f} {m.touched:>8,} "
                f"{m.judged_max:>7,}  {m.same}"
            )
            figures.record(
                figures.Figure(
                    "watch",
                    f"watch tick on a {m.points:,}-point {kind} growing by {m.grew:,} points "
                    f"(read + re-diagnose, median of {args.ticks})",
                    m.tick_s,
                    "s",
                    reference=m.full_s,
                    reference_name="full diagnosis of the file (load_run + diagnose_all)",
                    ratio_name="tick / full",
                    ratio=ratio,
                    target=f"<= {TARGET_RATIO:g} of a full diagnosis, and the same findings"
                    if m.points >= TARGET_FROM_POINTS
                    else "the same findings",
                    met=bool(m.same and (ratio <= TARGET_RATIO or m.points < TARGET_FROM_POINTS)),
                )
            )
    if len(sized) > 1:
        small, large = sized[0], sized[-1]
        growth = large.tick_cpu / small.tick_cpu
        print(
            f"tick at {large.points:,} / tick at {small.points:,} points: {growth:.2f} in CPU "
            f"time ({large.points / small.points:.0f}x the points; target <= {FLAT_GROWTH:g}); "
            f"full diagnosis {large.full_cpu / small.full_cpu:.1f}x"
        )
        figures.record(
            figures.Figure(
                "watch",
                f"watch tick CPU time at {large.points:,} points{resumed} against "
                f"{small.points:,} (the judging resolution keeps a tick flat)",
                large.tick_cpu,
                "s",
                reference=small.tick_cpu,
                reference_name=f"the same tick at {small.points:,} points",
                ratio_name="large / small",
                ratio=growth,
                target=f"<= {FLAT_GROWTH:g} at {large.points / small.points:.0f}x the points",
                met=bool(growth <= FLAT_GROWTH),
            )
        )
    figures.write(args.json)


if __name__ == "__main__":
    main()
