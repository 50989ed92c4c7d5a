"""What one `watch` tick costs on a growing log, beside a full diagnosis of the same file.

    .venv/bin/python benchmarks/watch.py [--points 1000000] [--grow 1000] [--ticks 5] [--json P]

A JSONL run of about `--points` scalars (the diagnose benchmark's run: loss, LR, grad norm, a
val loss) is written; the full figure is `load_run` + `diagnose_all` of it (what `diagnose`
does). Then the watcher follows it: after its first read, `--grow` more points are appended
before each tick, and the tick's time covers reading what grew (`Follower.poll`), taking it in
and re-diagnosing (`IncrementalDiagnosis.add_frame` + `tick`). Each tick's diagnosis is checked
against a full diagnosis of the file at the end. The target: a tick costs at most 1/5 of a full
diagnosis.
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

        t = time.perf_counter()
        full = diagnose_all(load_run(path).frame)
        full_s = time.perf_counter() - t

        follower = Follower(path)
        live = IncrementalDiagnosis("metrics")
        t = time.perf_counter()
        live.add_frame(follower.poll().frame)
        live.tick()
        first_s = time.perf_counter() - t
        ticks = []
        for i in range(args.ticks):
            with path.open("ab") as fh:
                fh.write(b"".join(lines[head + i * grow_lines : head + (i + 1) * grow_lines]))
            t = time.perf_counter()
            live.add_frame(follower.poll().frame)
            tick = live.tick()
            ticks.append(time.perf_counter() - t)
        final = diagnose_all(load_run(path).frame)[0]
        same = tick.diagnosis.findings == final.findings and tick.diagnosis.verdict == (
            final.verdict
        )
    tick_s = sorted(ticks)[len(ticks) // 2]
    print(f"points in the file          {live.points:>12,}   ({full[0].verdict})")
    print(f"full diagnosis (read+judge) {full_s * 1e3:>10.0f} ms")
    print(f"watch: first read + tick    {first_s * 1e3:>10.0f} ms")
    print(
        f"watch: tick (+{tick.points} points)  {tick_s * 1e3:>10.0f} ms   (median of "
        f"{len(ticks)}; {tick_s / full_s:.2f} of a full diagnosis, target <= 0.20)"
    )
    print(f"last tick equals a full diagnosis of the file: {same}")
    figures.record(
        figures.Figure(
            "watch",
            f"watch tick on a {live.points:,}-point JSONL growing by {tick.points:,} points "
            f"(read + re-diagnose, median of {len(ticks)})",
            tick_s,
            "s",
            reference=full_s,
            reference_name="full diagnosis of the file (load_run + diagnose_all)",
            ratio_name="tick / full",
            ratio=tick_s / full_s,
            target=f"<= {TARGET_RATIO:g} of a full diagnosis, and the same findings",
            met=bool(tick_s <= TARGET_RATIO * full_s and same),
        )
    )
    figures.write(args.json)


if __name__ == "__main__":
    main()
