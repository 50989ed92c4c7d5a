"""Diagnosis speed against ingest speed, measured on the same run in one process.

    .venv/bin/python benchmarks/diagnose.py [--sizes 10000 100000 1000000] [--profile]

For each size, a realistic run of about that many points is written as JSONL (one line a step:
train loss, LR, grad norm; a val loss every 100 steps): a noisy decaying loss, warmup + cosine
LR, a grad norm around 1, a val loss that bottoms out and rises. Then, best of a few repeats:
`ingest.load_run(path)` (ingest) and `classifiers.diagnose.diagnose_all(frame)` (every
registered classifier, playbook included). Prints both wall times, diagnose/ingest at each size
(wall, the figure; and in CPU time, which a shared machine's load skews less) and the growth
exponent of each (slope of log time against log points: 1.0 is linear).
Target: diagnose/ingest < 1 at every size, diagnosis growing no faster than linearly.
`--profile` prints the top functions of the largest diagnosis (cProfile, cumulative time).
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import pstats
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from lossforensics.classifiers.diagnose import diagnose_all  # noqa: E402
from lossforensics.ingest import load_run  # noqa: E402

from benchmarks import figures  # noqa: E402

EVAL_EVERY = 100


def best_of(fn: Callable[[], object], repeat: int) -> tuple[float, float, object]:
    """(best wall seconds, best CPU seconds, result) over `repeat` calls."""
    best, best_cpu, out = float("inf"), float("inf"), None
    for _ in range(repeat):
        gc.collect()
        t, cpu = time.perf_counter(), time.process_time()
        out = fn()
        best = min(best, time.perf_counter() - t)
        best_cpu = min(best_cpu, time.process_time() - cpu)
    return best, best_cpu, out


def repeats(points: int) -> int:
    """More repeats where one call is short: a 10k-point call takes ~10 ms, and on a shared
    machine a best of 3 that short is mostly the scheduler's noise."""
    return 9 if points <= 20_000 else 3 if points <= 200_000 else 2


def write_run(path: Path, points: int, seed: int = 0) -> int:
    """A JSONL run of about `points` scalars; returns the exact number written."""
    rng = np.random.default_rng(seed)
    steps = max(10, int(points / (3 + 1 / EVAL_EVERY)))
    s = np.arange(steps)
    t = s / steps
    loss = 0.3 + 2.5 * np.exp(-5 * t) + 0.05 * rng.standard_normal(steps)
    lr = 3e-4 * np.where(t < 0.05, t / 0.05, 0.5 * (1 + np.cos(np.pi * (t - 0.05) / 0.95)))
    grad = np.exp(rng.normal(0.0, 0.3, steps))
    val = (
        0.6
        + 2.2 * np.exp(-6 * t)
        + 0.4 * np.clip(t - 0.5, 0, None)
        + 0.01 * rng.standard_normal(steps)
    )
    base = np.char.add(
        np.char.add(np.char.add('{"step": ', s.astype(str)), ', "loss": '),
        np.char.mod("%.6f", loss),
    )
    base = np.char.add(np.char.add(base, ', "learning_rate": '), np.char.mod("%.6e", lr))
    base = np.char.add(np.char.add(base, ', "grad_norm": '), np.char.mod("%.5f", grad))
    is_eval = (s % EVAL_EVERY) == EVAL_EVERY - 1
    with_val = np.char.add(np.char.add(base, ', "val_loss": '), np.char.mod("%.6f", val))
    lines = np.where(is_eval, with_val, base)
    path.write_text("}\n".join(lines.tolist()) + "}\n")
    return 3 * steps + int(is_eval.sum())


def growth(sizes: list[int], times: list[float]) -> float:
    """Least-squares slope of log(time) against log(points)."""
    return float(np.polyfit(np.log(sizes), np.log(times), 1)[0])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000, 1_000_000])
    parser.add_argument("--profile", action="store_true")
    figures.add_json_option(parser)
    args = parser.parse_args()
    diagnose_all(load_run(_warmup()).frame)  # imports, registry, caches: not part of a figure
    sizes, ingest_t, diag_t = [], [], []
    print(
        f"{'points':>9} {'ingest s':>9} {'diagnose s':>11} {'diag/ingest':>12} "
        f"{'diag pts/s':>11} {'CPU ratio':>10}  verdict"
    )
    with tempfile.TemporaryDirectory() as tmp:
        for size in args.sizes:
            path = Path(tmp) / f"run_{size}.jsonl"
            n = write_run(path, size)
            repeat = repeats(n)
            t_in, cpu_in, result = best_of(lambda p=path: load_run(p), repeat)
            t_dx, cpu_dx, diags = best_of(lambda r=result: diagnose_all(r.frame), repeat)
            sizes.append(n)
            ingest_t.append(t_in)
            diag_t.append(t_dx)
            figures.record(
                figures.Figure(
                    "diagnose",
                    f"diagnosis of a {n:,}-point run, wall",
                    t_dx,
                    "s",
                    reference=t_in,
                    reference_name="ingest of the same run (load_run)",
                    ratio_name="diagnose / ingest",
                    ratio=t_dx / t_in,
                    target="< 1 at every size",
                    met=t_dx < t_in,
                )
            )
            print(
                f"{n:>9} {t_in:>9.3f} {t_dx:>11.3f} {t_dx / t_in:>12.2f} {n / t_dx:>11.0f} "
                f"{cpu_dx / cpu_in:>10.2f}  {diags[0].verdict} {diags[0].labels}"
            )
            if args.profile and size == args.sizes[-1]:
                prof = cProfile.Profile()
                prof.runcall(diagnose_all, result.frame)
                pstats.Stats(prof).sort_stats("cumulative").print_stats(25)
    if len(sizes) > 1:
        print(
            f"growth exponent: ingest {growth(sizes, ingest_t):.2f}, "
            f"diagnose {growth(sizes, diag_t):.2f} (1.00 = linear)"
        )
    figures.write(args.json)


def _warmup() -> Path:
    path = Path(tempfile.gettempdir()) / "lossforensics_bench_warmup.jsonl"
    write_run(path, 3000)
    return path


if __name__ == "__main__":
    main()
