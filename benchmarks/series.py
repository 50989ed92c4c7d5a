"""The chart's view of a 1M-point run: `GET /v1/runs/{id}/series?points=1000` against a real
`lossforensics serve` on loopback, beside the full series of the same run fetched the same way.

    .venv/bin/python benchmarks/series.py [--points 1000000] [--repeat 20] [--json P]

A JSONL run of `--points` scalars (a train loss with spikes and a NaN, an LR, a grad norm) is
uploaded once. The first view request builds the run's pyramid (reported as the cold figure);
the warm figure is the median of `--repeat` requests of the view, which is what a chart's
redraw and every later visitor pay. The reference is the whole series as JSON arrays, the
request a chart without the view would make. The target: the view in under 20 ms at 1M points.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

import httpx
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks import figures  # noqa: E402
from benchmarks.service import Service  # noqa: E402

TARGET_MS = 20.0
# a 1M-point run is at the default limit of one upload (1M points read, 64 MB of result, 480 MiB
# a reader): raised here, as a deployment that takes such runs would raise them
LIMITS = {
    "LOSSFORENSICS_MAX_POINTS_PER_UPLOAD": str(4_000_000),
    "LOSSFORENSICS_WORKER_OUTPUT_BYTES": str(512 * 2**20),
    "LOSSFORENSICS_WORKER_MEMORY_BYTES": str(2 * 2**30),
}
VIEW_POINTS = 1000


def write_run(path: Path, points: int) -> int:
    """A JSONL log of about `points` scalars over three metrics; the number written."""
    steps = np.arange(points // 3)
    rng = np.random.default_rng(0)
    loss = 0.5 + 2.0 * np.exp(-steps / (len(steps) / 5)) + 0.05 * rng.standard_normal(len(steps))
    loss[rng.choice(len(steps), 20, replace=False)] *= 8.0  # spikes the view must keep
    lr = 3e-4 * np.minimum(1.0, steps / 1000)
    grad = 1.0 + 0.1 * rng.standard_normal(len(steps))
    with open(path, "w") as fh:
        for s, a, b, c in zip(steps, loss, lr, grad, strict=True):
            fh.write(json.dumps({"step": int(s), "loss": a, "lr": b, "grad_norm": c}) + "\n")
        fh.write(json.dumps({"step": int(steps[-1]) + 1, "loss": "NaN"}) + "\n")
    return 3 * len(steps) + 1


def timed_get(client: httpx.Client, url: str, **params: object) -> tuple[float, httpx.Response]:
    t0 = time.perf_counter()
    resp = client.get(url, params=params)
    elapsed = (time.perf_counter() - t0) * 1000
    resp.raise_for_status()
    return elapsed, resp


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--points", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=20)
    figures.add_json_option(parser)
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="lf-bench-series-") as tmp:
        work = Path(tmp)
        log = work / "train_log.jsonl"
        written = write_run(log, args.points)
        svc = Service(work / "data", env=LIMITS)
        try:
            with httpx.Client(base_url=svc.url, timeout=600) as client:
                with open(log, "rb") as fh:
                    resp = client.post("/v1/runs", files={"file": (log.name, fh)})
                resp.raise_for_status()
                run_id = resp.json()["runs"][0]["id"]
                url = f"/v1/runs/{run_id}/series"
                cold, view = timed_get(client, url, points=VIEW_POINTS)
                warm = [timed_get(client, url, points=VIEW_POINTS)[0] for _ in range(args.repeat)]
                full = [timed_get(client, url)[0] for _ in range(3)]
        finally:
            svc.stop()

    shown = sum(len(s["step"]) for s in view.json()["series"])
    view_ms, full_ms = statistics.median(warm), statistics.median(full)
    print(f"run: {written:,} points, 3 metrics; the view asks for {VIEW_POINTS} points a metric")
    print(f"view, first request (builds the pyramid)   {cold:8.1f} ms")
    print(
        f"view, warm (median of {args.repeat})               {view_ms:8.1f} ms  ({shown:,} points)"
    )
    print(f"whole series as JSON (median of 3)        {full_ms:8.1f} ms")
    print(f"view / whole series                        {view_ms / full_ms:8.3f}")
    print(
        f"target: the view under {TARGET_MS:.0f} ms: {'met' if view_ms < TARGET_MS else 'NOT met'}"
    )
    figures.record(
        figures.Figure(
            benchmark="series",
            name=f"series view ?points={VIEW_POINTS} at {written / 1e6:.0f}M points, warm p50",
            ours=view_ms,
            unit="ms",
            reference=full_ms,
            reference_name="the whole series as JSON, same run",
            ratio_name="view / whole",
            ratio=view_ms / full_ms,
            target=f"< {TARGET_MS:.0f} ms",
            met=view_ms < TARGET_MS,
        )
    )
    figures.record(
        figures.Figure(
            benchmark="series",
            name="series view, first request (builds the pyramid)",
            ours=cold,
            unit="ms",
        )
    )
    figures.write(args.json)


if __name__ == "__main__":
    main()
