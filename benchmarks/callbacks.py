"""Overhead of a Monitor (what every callback runs) per logged step, at a given run length.

    .venv/bin/python benchmarks/callbacks.py [--steps 100000] [--window 2000] [--json PATH]

A synthetic healthy run logs loss, lr and grad_norm at every step. Its first `--steps` steps
are taken in at once (the points a callback would have logged so far: `IncrementalDiagnosis.add`
of whole arrays, then one tick), so the run is `--steps` long before anything is timed; then
`--window` more steps go through `Monitor.log` one at a time, and the figure is their mean time
per step (the diagnosis ticks that fall due in the window included, amortised as they fall), with
the slowest single step beside it. The reference, measured in the same run, is one full
diagnosis of the run at that length: what a step would cost if every step re-diagnosed. The
target: under 10 ms a logged step at 100k points.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from lossforensics.integrations import Monitor  # noqa: E402

from benchmarks import figures  # noqa: E402

TARGET_MS = 10.0


def healthy_run(steps: int) -> np.ndarray:
    """A noisy exponential decay to a floor: a loss no classifier flags."""
    rng = np.random.default_rng(0)
    t = np.arange(steps) / steps
    return 0.3 + 2.5 * np.exp(-5 * t) + 0.05 * rng.standard_normal(steps)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--steps", type=int, default=100_000, help="steps logged before timing")
    parser.add_argument("--window", type=int, default=2_000, help="steps timed after that")
    figures.add_json_option(parser)
    args = parser.parse_args()
    total = args.steps + args.window
    loss = healthy_run(total)
    monitor = Monitor("bench", warn=False)
    head = np.arange(args.steps)
    monitor.live.add("loss", head, loss[: args.steps])
    monitor.live.add("lr", head, np.full(args.steps, 3e-4))
    monitor.live.add("grad_norm", head, np.ones(args.steps))
    start = time.perf_counter()
    monitor.check()  # the run so far, judged once: the reference
    full_s = time.perf_counter() - start

    cost = np.zeros(args.window)
    for i, s in enumerate(range(args.steps, total)):
        start = time.perf_counter()
        monitor.log(s, loss=loss[s], lr=3e-4, grad_norm=1.0)
        cost[i] = time.perf_counter() - start
    monitor.close()
    per_step_ms = float(cost.mean() * 1e3)
    verdict = monitor.diagnosis.verdict if monitor.diagnosis else "none"
    print(f"steps logged before timing {args.steps:>10,}  ({args.steps * 3:,} points)")
    print(f"full diagnosis at that size {full_s * 1e3:>9.1f} ms   (one tick, the reference)")
    print(f"mean per step, next {args.window:,}  {per_step_ms:>8.2f} ms   (target < {TARGET_MS:g})")
    print(f"slowest step (a tick)      {cost.max() * 1e3:>8.1f} ms")
    print(f"final verdict              {verdict:>10}")
    figures.record(
        figures.Figure(
            "callbacks",
            f"Monitor.log per logged step at {args.steps:,} steps ({args.steps * 3:,} points), "
            f"mean over {args.window:,} steps",
            per_step_ms,
            "ms",
            reference=full_s * 1e3,
            reference_name="a full diagnosis of the run at that length (every step re-judged)",
            ratio_name="per step / full diagnosis",
            ratio=per_step_ms / (full_s * 1e3),
            target=f"< {TARGET_MS:g} ms per step",
            met=per_step_ms < TARGET_MS,
        )
    )
    figures.write(args.json)


if __name__ == "__main__":
    main()
