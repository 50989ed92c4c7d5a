"""Overhead of a Monitor (what every callback runs) per logged step, at a given run length.

    .venv/bin/python benchmarks/callbacks.py [--steps 100000] [--window 5000]

A synthetic healthy run logs loss, lr and grad_norm at every step; the figure is the mean time
`Monitor.log` takes per step over the last `--window` steps (diagnosis ticks included, amortised
as they fall), and the slowest single step. The target: under 10 ms a logged step at 100k points.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from lossforensics.integrations import Monitor  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--steps", type=int, default=100_000)
    parser.add_argument("--window", type=int, default=5_000)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    t = np.arange(args.steps) / args.steps
    loss = 0.3 + 2.5 * np.exp(-5 * t) + 0.05 * rng.standard_normal(args.steps)
    monitor = Monitor("bench", warn=False)
    cost = np.zeros(args.steps)
    for s in range(args.steps):
        start = time.perf_counter()
        monitor.log(s, loss=loss[s], lr=3e-4, grad_norm=1.0)
        cost[s] = time.perf_counter() - start
    tail = cost[-args.window :]
    print(f"steps logged              {args.steps:>10,}  ({monitor.live.points:,} points)")
    print(f"mean per step, last {args.window:,}  {tail.mean() * 1e3:>8.2f} ms   (target < 10 ms)")
    print(f"slowest step (a tick)     {tail.max() * 1e3:>8.1f} ms")
    print(f"mean per step, whole run  {cost.mean() * 1e3:>8.2f} ms")


if __name__ == "__main__":
    main()
