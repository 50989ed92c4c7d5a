"""Audit speed: a folder of 1,000 runs (7 formats, 10k points each), audited whole.

Prints, from one run of this script:
  * the full audit's wall time (discovery + reading + diagnosis) with the default jobs and with
    --jobs 1;
  * the time tbparse alone needs merely to LOAD the TensorBoard runs among them (the reference:
    the audit, diagnosis included, should finish before tbparse has read its share), measured
    alternately with the audit, `--repeats` pairs (3): the figure is the pair of median ratio;
  * the audit of 100 runs vs 1,000 runs (same mix) and the ratio (linear scaling: ~10x);
  * where a run's CPU goes, last (so its imports do not warm the pool's start): discovery,
    reading and diagnosis of the 100 runs in this process, per format.

Generation writes the files directly (no training): TFRecord event files with the scalar
protobuf laid out by hand, CSV/JSON/JSONL text built column-wise with numpy, MLflow metric files.
Curves are sweep-like: runs named lr-<value> explode when the LR is high, so the sweep analysis
has something to find.

    .venv/bin/python benchmarks/audit.py [--runs 1000] [--points 10000] [--keep DIR]
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import struct
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks import figures  # noqa: E402

FORMATS = (
    "tensorboard",
    "jsonl",
    "keras_csv",
    "lightning_csv",
    "hf_trainer",
    "wandb_csv",
    "mlflow",
)
LRS = (1e-4, 3e-4, 1e-3, 3e-3, 1e-2, 3e-2)
EXPLODE_LR = 1e-2
VAL_EVERY = 100


# ---------------------------------------------------------------------- curves


def curves(lr: float, seed: int, n: int) -> dict[str, np.ndarray]:
    """train loss (n points), val loss (every VAL_EVERY steps) and a constant LR; high LRs
    diverge two thirds of the way in and end in NaN."""
    rng = np.random.default_rng(seed)
    steps = np.arange(n, dtype=np.int64)
    base = 0.3 + 2.0 * np.exp(-steps / (n / 3))
    train = base * (1 + 0.03 * rng.standard_normal(n))
    if lr >= EXPLODE_LR:
        start = int(n * 0.66)
        ramp = np.exp(np.clip((steps - start) / (n / 60), 0, 30))
        train = np.where(steps >= start, train * ramp, train)
        train[int(n * 0.8) :] = np.nan
    vsteps = steps[::VAL_EVERY]
    val = base[::VAL_EVERY] * 1.05 * (1 + 0.01 * rng.standard_normal(vsteps.size))
    if lr >= EXPLODE_LR:
        val = np.where(vsteps >= int(n * 0.66), val * 50, val)
    return {"steps": steps, "train": train, "vsteps": vsteps, "val": val, "lr": np.full(n, lr)}


def _num(a: np.ndarray) -> np.ndarray:
    """Floats as short text, NaN as 'NaN' (what the loggers write)."""
    out = np.char.mod("%.6g", a)
    out[np.isnan(a)] = "NaN"
    return out


# ---------------------------------------------------------------------- writers


def _crc(data: bytes) -> int:
    import crc32c

    c = crc32c.crc32c(data)
    return (((c >> 15) | (c << 17)) + 0xA282EAD8) & 0xFFFFFFFF


def _record(data: bytes) -> bytes:
    head = struct.pack("<Q", len(data))
    return head + struct.pack("<I", _crc(head)) + data + struct.pack("<I", _crc(data))


def _scalar_records(tag: bytes, steps: np.ndarray, values: np.ndarray, walls: np.ndarray) -> bytes:
    """TFRecords of scalar Events, built as byte matrices: the events whose step varints have
    the same length have the same layout, so only the CRC of each payload is a per-record call.
    Event = wall_time(1, double) step(2, varint) summary(5){value(1){tag(1) simple_value(2)}}."""
    out = []
    val = b"\x0a" + bytes([len(tag)]) + tag + b"\x15"  # + 4 float bytes
    summ = b"\x0a" + bytes([len(val) + 4]) + val
    summ_head = b"\x2a" + bytes([len(summ) + 4]) + summ
    nbytes = np.maximum(1, (np.floor(np.log2(np.maximum(steps, 1))) // 7 + 1)).astype(int)
    for width in np.unique(nbytes):
        sel = nbytes == width
        st, n = steps[sel].astype(np.uint64), int(sel.sum())
        varint = np.empty((n, width), dtype=np.uint8)
        for k in range(width):
            byte = (st >> np.uint64(7 * k)) & np.uint64(0x7F)
            varint[:, k] = byte | (np.uint64(0x80) if k < width - 1 else np.uint64(0))
        payload = np.hstack(
            [
                np.full((n, 1), 0x09, np.uint8),
                walls[sel].astype("<f8").view(np.uint8).reshape(n, 8),
                np.full((n, 1), 0x10, np.uint8),
                varint,
                np.tile(np.frombuffer(summ_head, np.uint8), (n, 1)),
                values[sel].astype("<f4").view(np.uint8).reshape(n, 4),
            ]
        )
        head = struct.pack("<Q", payload.shape[1])
        head = head + struct.pack("<I", _crc(head))
        raw = payload.tobytes()
        w = payload.shape[1]
        crcs = np.array([_crc(raw[r * w : (r + 1) * w]) for r in range(n)], dtype="<u4")
        rec = np.hstack(
            [
                np.tile(np.frombuffer(head, np.uint8), (n, 1)),
                payload,
                crcs.view(np.uint8).reshape(n, 4),
            ]
        )
        out.append(rec.tobytes())
    return b"".join(out)


def write_tensorboard(d: Path, c: dict) -> None:
    d.mkdir(parents=True)
    out = [_record(b"\x09" + struct.pack("<d", 1.7e9) + b"\x1a\x0dbrain.Event:2")]
    for tag, steps, values in (
        (b"train/loss", c["steps"], c["train"]),
        (b"val/loss", c["vsteps"], c["val"]),
    ):
        out.append(_scalar_records(tag, steps, values, 1.7e9 + steps.astype(np.float64)))
    (d / "events.out.tfevents.1700000000.bench.1.0").write_bytes(b"".join(out))


def write_jsonl(d: Path, c: dict) -> None:
    d.mkdir(parents=True)
    lines = np.char.add(
        np.char.add('{"step": ', c["steps"].astype(str)),
        np.char.add(', "train/loss": ', _num(c["train"])),
    )
    lines = np.char.add(lines, np.char.add(', "lr": ', _num(c["lr"])))
    is_val = (c["steps"] % VAL_EVERY) == 0
    val_txt = np.full(c["steps"].size, "", dtype=object)
    val_txt[is_val] = np.char.add(', "val/loss": ', _num(c["val"]))
    text = "\n".join(s + v + "}" for s, v in zip(lines.tolist(), val_txt.tolist(), strict=True))
    (d / "log.jsonl").write_text(text + "\n")


def _csv(header: str, cols: list[np.ndarray]) -> str:
    rows = cols[0]
    for col in cols[1:]:
        rows = np.char.add(np.char.add(rows, ","), col)
    return header + "\n" + "\n".join(rows.tolist()) + "\n"


def _val_column(c: dict) -> np.ndarray:
    col = np.full(c["steps"].size, "", dtype="<U16")
    col[c["vsteps"]] = _num(c["val"])
    return col


def write_keras_csv(d: Path, c: dict) -> None:
    d.mkdir(parents=True)
    text = _csv(
        "epoch,loss,lr,val_loss",
        [c["steps"].astype(str), _num(c["train"]), _num(c["lr"]), _val_column(c)],
    )
    (d / "training.log").write_text(text)


def write_lightning_csv(d: Path, c: dict) -> None:
    d.mkdir(parents=True)
    epoch = (c["steps"] // 1000).astype(str)
    text = _csv(
        "epoch,step,train_loss_step,val_loss",
        [epoch, c["steps"].astype(str), _num(c["train"]), _val_column(c)],
    )
    (d / "metrics.csv").write_text(text)
    (d / "hparams.yaml").write_text(f"lr: {c['lr'][0]:g}\n")


def write_hf_trainer(d: Path, c: dict) -> None:
    d.mkdir(parents=True)
    train = np.char.add(
        np.char.add('{"step": ', c["steps"].astype(str)),
        np.char.add(', "loss": ', _num(c["train"])),
    )
    train = np.char.add(train, np.char.add(', "learning_rate": ', _num(c["lr"])))
    evals = np.char.add(
        np.char.add('{"step": ', c["vsteps"].astype(str)),
        np.char.add(', "eval_loss": ', _num(c["val"])),
    )
    entries = ",\n".join(s + "}" for s in [*train.tolist(), *evals.tolist()])
    (d / "trainer_state.json").write_text(
        f'{{"global_step": {int(c["steps"][-1])}, "log_history": [\n{entries}\n]}}\n'
    )


def write_wandb_csv(d: Path, c: dict, name: str) -> None:
    d.mkdir(parents=True)
    col = f"{name} - train/loss"
    header = f'"Step","{col}","{col}__MIN","{col}__MAX"'
    v = _num(c["train"])
    q = np.char.add(np.char.add('"', v), '"')
    text = _csv(header, [np.char.add(np.char.add('"', c["steps"].astype(str)), '"'), q, q, q])
    (d / "wandb_export.csv").write_text(text)


def write_mlflow(d: Path, c: dict) -> None:
    run = d / "mlruns" / "1" / "0123456789abcdef"
    (run / "metrics").mkdir(parents=True)
    (run / "params").mkdir()
    (d / "mlruns" / "1" / "meta.yaml").write_text("name: bench\nexperiment_id: '1'\n")
    (run / "meta.yaml").write_text("run_id: 0123456789abcdef\nexperiment_id: '1'\n")
    ts = (1_700_000_000_000 + c["steps"]).astype(str)
    lines = np.char.add(
        np.char.add(np.char.add(ts, " "), _num(c["train"])),
        np.char.add(" ", c["steps"].astype(str)),
    )
    (run / "metrics" / "loss").write_text("\n".join(lines.tolist()) + "\n")
    vts = (1_700_000_000_000 + c["vsteps"]).astype(str)
    vlines = np.char.add(
        np.char.add(np.char.add(vts, " "), _num(c["val"])),
        np.char.add(" ", c["vsteps"].astype(str)),
    )
    (run / "metrics" / "val_loss").write_text("\n".join(vlines.tolist()) + "\n")
    (run / "params" / "learning_rate").write_text(f"{c['lr'][0]:g}")


def generate(root: Path, runs: int, points: int) -> dict[str, int]:
    """`runs` runs round-robin over the formats and LRs; returns runs per format."""
    counts = dict.fromkeys(FORMATS, 0)
    for i in range(runs):
        fmt = FORMATS[i % len(FORMATS)]
        lr = LRS[(i // len(FORMATS)) % len(LRS)]
        seed = i
        name = f"lr-{lr:g}_seed{seed}"
        d = root / fmt / name
        c = curves(lr, seed, points)
        if fmt == "wandb_csv":
            write_wandb_csv(d, c, name)
        else:
            globals()[f"write_{fmt}"](d, c)
        counts[fmt] += 1
    return counts


# ---------------------------------------------------------------------- measurements


def cpu_seconds() -> float:
    """CPU time of this process and its reaped children (the pool's workers, once shut down):
    unlike wall time, it does not depend on what else the machine is running."""
    me, kids = (
        resource.getrusage(resource.RUSAGE_SELF),
        resource.getrusage(resource.RUSAGE_CHILDREN),
    )
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def audit_seconds(root: Path, jobs: int | None) -> tuple[float, float, object]:
    """(wall seconds, CPU seconds, summary) of a whole audit: discovery to summary."""
    from lossforensics.audit.executor import open_executor, run_audit
    from lossforensics.audit.summary import AuditSummary
    from lossforensics.discover import discover_runs

    start, cpu = time.perf_counter(), cpu_seconds()
    found = discover_runs(root)
    with open_executor(jobs) as ex:
        runs = run_audit(found.sources, ex)
    summary = AuditSummary.build(str(root), runs, found.problems)
    return time.perf_counter() - start, cpu_seconds() - cpu, summary


def tbparse_seconds(root: Path) -> tuple[float, float, int]:
    """(wall seconds, CPU seconds, scalars) for tbparse to load every TensorBoard run."""
    from tbparse import SummaryReader

    start, cpu = time.perf_counter(), cpu_seconds()
    scalars = 0
    for d in sorted((root / "tensorboard").iterdir()):
        scalars += len(SummaryReader(str(d)).scalars)
    return time.perf_counter() - start, cpu_seconds() - cpu, scalars


def stage_split(root: Path) -> str:
    """CPU milliseconds a run spends in discovery, reading and diagnosis, in one process (what
    a worker does for each run), overall and per format: what the audit's figure is made of."""
    from collections import defaultdict

    from lossforensics.analysis import diagnose_read, read_source
    from lossforensics.audit.worker import prepare_worker
    from lossforensics.discover import discover_runs

    prepare_worker()
    start = time.process_time()
    sources = discover_runs(root).sources
    discovery = (time.process_time() - start) / len(sources)
    spent: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0, 0])
    for source in sources:
        t0 = time.process_time()
        result = read_source(source.path, format=source.format)
        t1 = time.process_time()
        diagnose_read(result)
        t2 = time.process_time()
        row = spent[source.format]
        row[0], row[1], row[2] = row[0] + t1 - t0, row[1] + t2 - t1, row[2] + 1
    read = sum(r[0] for r in spent.values()) / len(sources)
    diagnose = sum(r[1] for r in spent.values()) / len(sources)
    lines = [
        f"CPU a run, one process, {len(sources)} runs: discovery {discovery * 1e3:.1f} ms, "
        f"reading {read * 1e3:.1f} ms, diagnosis {diagnose * 1e3:.1f} ms"
    ]
    for fmt, (r, d, n) in sorted(spent.items()):
        lines.append(f"  {fmt:14s} reading {r / n * 1e3:5.1f} ms, diagnosis {d / n * 1e3:5.1f} ms")
    return "\n".join(lines)


def _autogroup() -> bool:
    """Whether the kernel shares CPU time between sessions rather than between processes."""
    try:
        return Path("/proc/sys/kernel/sched_autogroup_enabled").read_text().strip() == "1"
    except OSError:
        return False


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=1000)
    ap.add_argument("--small", type=int, default=100)
    ap.add_argument("--points", type=int, default=10_000)
    ap.add_argument("--keep", type=Path, help="generate here and keep the folders")
    ap.add_argument("--skip-serial", action="store_true", help="skip the --jobs 1 audit")
    ap.add_argument(
        "--repeats", type=int, default=3, help="audit/tbparse pairs measured (the median counts)"
    )
    figures.add_json_option(ap)
    args = ap.parse_args()

    from lossforensics.audit.executor import default_jobs

    base = args.keep or Path(tempfile.mkdtemp(prefix="lf-bench-audit-"))
    big, small = base / f"runs{args.runs}", base / f"runs{args.small}"
    try:
        for root, n in ((big, args.runs), (small, args.small)):
            if root.exists():
                continue
            t0 = time.perf_counter()
            counts = generate(root, n, args.points)
            print(
                f"generated {n:,} runs x {args.points:,} points in "
                f"{time.perf_counter() - t0:.1f} s: "
                + ", ".join(f"{k} {v}" for k, v in counts.items())
            )
        size = sum(f.stat().st_size for f in big.rglob("*") if f.is_file())
        print(
            f"folder: {size / 1e6:,.0f} MB, {os.cpu_count()} CPUs, default jobs "
            f"{default_jobs()}, load average {os.getloadavg()[0]:.1f} (figures on a shared "
            f"machine scale with it)"
        )

        # audit and tbparse alternately, `repeats` pairs: the machine's speed drifts by a
        # quarter over minutes on a shared host, and each pair sees the same conditions
        pairs = []
        for _ in range(args.repeats):
            t_big, cpu_big, summary = audit_seconds(big, None)
            t_tb, cpu_tb, scalars = tbparse_seconds(big)
            pairs.append((t_big, cpu_big, t_tb, cpu_tb))
            print(
                f"audit {args.runs:,} runs, default jobs: {t_big:7.2f} s wall, {cpu_big:7.2f} s "
                f"CPU ({args.runs / t_big:,.0f} runs/s); tbparse load of the TensorBoard runs: "
                f"{t_tb:7.2f} s wall, {cpu_tb:7.2f} s CPU; ratio {t_big / t_tb:.2f}"
            )
        print(f"  -> {summary.headline()}")
        for e in summary.effects:
            print(f"  sweep: {e.sentence()}")
        ratios = [a / b for a, _, b, _ in pairs]
        middle = pairs[int(np.argsort(ratios)[len(ratios) // 2])]  # the pair of median ratio
        t_big, cpu_big, t_tb, cpu_tb = middle
        t_serial = None
        if not args.skip_serial:
            t_serial, cpu_serial, _ = audit_seconds(big, 1)
            print(
                f"audit {args.runs:,} runs, --jobs 1:     {t_serial:7.2f} s wall, "
                f"{cpu_serial:7.2f} s CPU (parallel speed-up {t_serial / t_big:.2f}x)"
            )
        t_small, cpu_small, _ = audit_seconds(small, None)
        print(
            f"audit {args.small:,} runs, default jobs:   {t_small:7.2f} s wall, "
            f"{cpu_small:7.2f} s CPU"
        )
        print(
            f"scaling {args.small:,} -> {args.runs:,} runs: {t_big / t_small:.2f}x wall, "
            f"{cpu_big / cpu_small:.2f}x CPU for {args.runs / args.small:.0f}x runs "
            f"(linear = {args.runs / args.small:.0f}x)"
        )
        n_tb = sum(1 for _ in (big / "tensorboard").iterdir())
        print(
            f"tbparse load only, {n_tb} TensorBoard runs ({scalars:,} scalars), the median "
            f"pair: {t_tb:7.2f} s wall, {cpu_tb:7.2f} s CPU (single process)"
        )
        for label, t in (("default jobs", t_big), ("--jobs 1", t_serial)):
            if t is not None:
                print(
                    f"whole audit ({label}) / tbparse load: {t / t_tb:.2f} "
                    f"({'faster' if t < t_tb else 'SLOWER'} than tbparse merely loading "
                    f"the {n_tb / args.runs:.0%} of the runs that are TensorBoard)"
                )
        print(
            "ratios of the pairs: " + ", ".join(f"{r:.2f}" for r in ratios) + " (the median "
            "is the figure)"
        )
        figures.record(
            figures.Figure(
                "audit",
                f"audit of {args.runs:,} runs x {args.points:,} points, default jobs, wall "
                f"(the median of {args.repeats} pairs)",
                t_big,
                "s",
                reference=t_tb,
                reference_name=f"tbparse bare load of the {n_tb} TensorBoard runs among them",
                ratio_name="audit / tbparse load",
                ratio=t_big / t_tb,
                target="<= 0.33",
                met=t_big / t_tb <= 0.33,
            )
        )
        jobs = default_jobs()
        print(
            f"CPU: whole audit / tbparse load = {cpu_big / cpu_tb:.2f}; on {jobs} idle "
            f"core(s) the audit's wall time would be ~{cpu_big / jobs:.0f} s vs tbparse's "
            f"~{cpu_tb:.0f} s ({cpu_big / jobs / cpu_tb:.2f})"
        )
        print(stage_split(small))
        print(f"load average at the end: {os.getloadavg()[0]:.1f}")
        if _autogroup() and os.getloadavg()[0] > jobs:
            print(
                "note: the kernel groups CPU time by session (sched_autogroup) and other "
                "sessions are busy: this session's workers share one group's slice, so the "
                "wall ratio tends to the CPU ratio rather than the CPU ratio / jobs"
            )
        figures.write(args.json)
    finally:
        if args.keep is None:
            shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()
