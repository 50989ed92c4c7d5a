"""What one append to a live run costs the service, by the run's stored length, stored as parts
(now) and as a whole frame rewritten per append (the way it was), in one run.

    .venv/bin/python benchmarks/live.py [--sizes 10000 100000 1000000] [--batch 1000]
                                        [--appends 20] [--json PATH]

For each size a live run of that many points (training loss every step, LR every step, a val
loss every 50 steps) is stored, then `--appends` batches of `--batch` points are appended
through the endpoint's own parsing (parse_points of the JSON body) and worker function
(lossforensics.api.live._append: the staleness check, IncrementalDiagnosis add + tick,
RunStore.append_points), after one untimed append that loads the run into the worker. The
reference appends the same batches to a copy of the run the old way: the same tick, then the
whole frame written again (FrameFiles.write of the tick's frame) with the diagnosis row updated
in one transaction. Printed: append latency p50 / p99 (wall) and the median CPU time; the
storage part alone (the write, everything but the parsing and the tick) is printed too, since
the tick judges the whole run either way (classifiers/incremental.py). With 20
appends p99 is the slowest but one.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from lossforensics.api import live  # noqa: E402
from lossforensics.classifiers.frame import make_frame  # noqa: E402
from lossforensics.classifiers.incremental import IncrementalDiagnosis  # noqa: E402
from lossforensics.store import NewRun, RunStore  # noqa: E402

from benchmarks import figures  # noqa: E402

PROJECT = "bench"


def _rows(first_step: int, points: int, rng: np.random.Generator) -> list[dict]:
    """About `points` points from `first_step` on, as a client posts them."""
    rows: list[dict] = []
    step = first_step
    while len(rows) < points:
        loss = 2.0 * np.exp(-step / 200_000) + 0.3 + 0.01 * rng.standard_normal()
        rows.append({"metric": "train/loss", "step": step, "value": float(loss)})
        rows.append({"metric": "lr", "step": step, "value": 3e-4})
        if step % 50 == 0:
            rows.append({"metric": "val/loss", "step": step, "value": float(loss) + 0.05})
        step += 1
    return rows[:points]


def _stored_run(store: RunStore, points: int, rng: np.random.Generator) -> tuple[str, int]:
    """A live run of `points` points, stored with its diagnosis; its id and next step."""
    rows = pd.DataFrame(_rows(0, points, rng))
    frame = make_frame(
        "live",
        rows["metric"].to_numpy(object),
        rows["step"].to_numpy("int64"),
        rows["value"].to_numpy("float64"),
    )
    inc = IncrementalDiagnosis("live")
    inc.add_frame(frame)
    (record,) = store.add(PROJECT, [NewRun("live", frame, inc.tick().diagnosis, format="live")])
    return record.id, int(rows["step"].iloc[-1]) + 1


def _whole_frame_append(store: RunStore, inc: IncrementalDiagnosis, rows: list[dict], run_id: str):
    """The way an append was stored: tick, then the whole frame written again."""
    batch = live._frame(inc.run, rows, inc.points)
    inc.add_frame(batch)
    tick = inc.tick()
    t = time.perf_counter()
    store.frames.write(run_id, inc.frame())
    store.replace_diagnosis(PROJECT, run_id, tick.diagnosis)
    return time.perf_counter() - t


def _parts_append(store: RunStore, rows: list[dict], run_id: str) -> float:
    """The endpoint's append; the storage part timed by wrapping RunStore.append_points."""
    spent = [0.0]
    original = store.append_points

    def timed(*args, **kw):  # type: ignore[no-untyped-def]
        t = time.perf_counter()
        try:
            return original(*args, **kw)
        finally:
            spent[0] += time.perf_counter() - t

    store.append_points = timed  # type: ignore[method-assign]
    try:
        live._append(store, PROJECT, run_id, rows)
    finally:
        del store.append_points
    return spent[0]


def _pct(values: list[float], q: float) -> float:
    return float(np.percentile(np.asarray(values), q))


def _measure(store: RunStore, size: int, args: argparse.Namespace) -> dict[str, dict]:
    rng = np.random.default_rng(size)
    out: dict[str, dict] = {}
    for mode in ("whole frame", "parts"):
        run_id, step = _stored_run(store, size, rng)
        inc = None
        if mode == "whole frame":
            inc = IncrementalDiagnosis("live")
            inc.add_frame(store.frame(PROJECT, run_id))
            inc.tick()
        wall, cpu, write = [], [], []
        for i in range(args.appends + 1):
            rows = _rows(step, args.batch, rng)
            step = rows[-1]["step"] + 1
            body = json.dumps(rows).encode()
            t, c = time.perf_counter(), time.process_time()
            points = live.parse_points(body, "application/json")
            if inc is not None:
                w = _whole_frame_append(store, inc, points, run_id)
            else:
                w = _parts_append(store, points, run_id)
            if i:  # the first append loads the run into the worker
                wall.append(time.perf_counter() - t)
                cpu.append(time.process_time() - c)
                write.append(w)
        if inc is None:  # the old way's count was not kept here: only its file grew
            assert store.get(PROJECT, run_id).points == size + (args.appends + 1) * args.batch
            assert len(store.frame(PROJECT, run_id)) == size + (args.appends + 1) * args.batch
        out[mode] = {"wall": wall, "cpu": cpu, "write": write}
        store.delete(PROJECT, run_id)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000, 1_000_000])
    parser.add_argument("--batch", type=int, default=1000)
    parser.add_argument("--appends", type=int, default=20)
    figures.add_json_option(parser)
    args = parser.parse_args()
    print(
        f"append of a {args.batch:,}-point batch, {args.appends} appends a row "
        "(ms; p50 / p99 wall, median CPU; 'store' = the write alone)"
    )
    print(f"{'stored points':>14} {'how':>12} {'p50':>8} {'p99':>8} {'cpu':>8} {'store p50':>10}")
    with tempfile.TemporaryDirectory() as tmp:
        store = RunStore.open(Path(tmp) / "data")
        try:
            for size in args.sizes:
                got = _measure(store, size, args)
                for mode, m in got.items():
                    print(
                        f"{size:>14,} {mode:>12} {_pct(m['wall'], 50) * 1e3:>8.1f} "
                        f"{_pct(m['wall'], 99) * 1e3:>8.1f} {_pct(m['cpu'], 50) * 1e3:>8.1f} "
                        f"{_pct(m['write'], 50) * 1e3:>10.1f}"
                    )
                old, new = got["whole frame"], got["parts"]
                figures.record(
                    figures.Figure(
                        "live",
                        f"append {args.batch:,} points to a {size:,}-point live run, storage "
                        f"(median of {args.appends})",
                        _pct(new["write"], 50),
                        "s",
                        reference=_pct(old["write"], 50),
                        reference_name="the whole frame written again per append",
                        ratio_name="parts / whole frame",
                        ratio=_pct(new["write"], 50) / _pct(old["write"], 50),
                    )
                )
        finally:
            store.close()
    figures.write(args.json)


if __name__ == "__main__":
    main()
