"""The hostile inputs of issue #14, generated (nothing is checked in): each one broke the
service once. Shared by tests/app/api/test_hostile.py and benchmarks/hostile.py."""

from __future__ import annotations

import io
import sqlite3
import tarfile
import zipfile
from pathlib import Path

import numpy as np

MLFLOW_SCHEMA = (
    "CREATE TABLE runs (run_uuid TEXT PRIMARY KEY, name TEXT, lifecycle_stage TEXT, "
    "start_time INTEGER)",
    "CREATE TABLE tags (key TEXT, value TEXT, run_uuid TEXT)",
)


def recursive_view_db(path: Path) -> Path:
    """An mlflow.db whose `metrics` is a VIEW over a recursive query that never ends (it once
    hung a request thread while the sort filled the disk at ~58 MB/s)."""
    path.unlink(missing_ok=True)
    with sqlite3.connect(path) as con:
        for stmt in MLFLOW_SCHEMA:
            con.execute(stmt)
        con.execute("INSERT INTO runs VALUES ('r1', 'run', 'active', 0)")
        con.execute(
            "CREATE VIEW metrics AS WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 "
            "FROM n) SELECT 'train/loss' AS key, 1.0 * i AS value, i AS timestamp, "
            "'r1' AS run_uuid, i AS step, 0 AS is_nan FROM n"
        )
    return path


def wide_csv(path: Path, columns: int = 1000, rows: int = 20_000) -> Path:
    """A plain CSV of `columns` x `rows` numbers (~40 MB at the defaults): once 3.6 GB resident."""
    rng = np.random.default_rng(0)
    header = "step," + ",".join(f"m{j}" for j in range(columns - 1))
    with open(path, "w") as fh:
        fh.write(header + "\n")
        for start in range(0, rows, 1000):
            block = rng.random((min(1000, rows - start), columns - 1))
            steps = np.arange(start, start + len(block))[:, None]
            np.savetxt(
                fh, np.hstack([steps, block]), fmt=["%d"] + ["%.3f"] * (columns - 1), delimiter=","
            )
    return path


def alias_bomb_meta_yaml(path: Path, levels: int = 9) -> Path:
    """An MLflow file store (as a .zip) whose meta.yaml is a few hundred bytes of nested
    aliases: read naively, its run name is hundreds of MB."""
    lines = ['a0: &a0 "lolololololololololololololololololololololololololololololololol"']
    for i in range(1, levels):
        prev = f"*a{i - 1}"
        lines.append(f"a{i}: &a{i} [{', '.join([prev] * 9)}]")
    lines.append(f"run_name: *a{levels - 1}")
    lines += ["run_id: abc123", "lifecycle_stage: active", "experiment_id: '0'"]
    meta = "\n".join(lines) + "\n"
    metric = "".join(f"{1000 * s} {2.0 / (1 + s):.5f} {s}\n" for s in range(50))
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("mlruns/0/abc123/meta.yaml", meta)
        zf.writestr("mlruns/0/abc123/metrics/loss", metric)
    return path


def many_archives(directory: Path, count: int, member_bytes: int) -> list[Path]:
    """`count` small zips, each unpacking to `member_bytes`: under a per-archive budget each
    passed; together they are over the per-request budget."""
    directory.mkdir(parents=True, exist_ok=True)
    out = []
    for i in range(count):
        path = directory / f"part{i}.zip"
        with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
            zf.writestr(f"run{i}/log.jsonl", b" " * member_bytes + b'{"step": 1, "loss": 1}\n')
        out.append(path)
    return out


def wandb_export(path: Path, runs: int = 700, rows: int = 30) -> Path:
    """A W&B chart export of `runs` runs: a header of ~94 KB (once cut at 64 KiB)."""
    cols = ["Step"]
    for r in range(runs):
        base = f"sweep-{r:04d}-lr3e-4-bs64-wd01 - train/loss"
        cols += [base, base + "__MIN", base + "__MAX"]
    lines = [",".join(f'"{c}"' for c in cols)]
    rng = np.random.default_rng(0)
    for s in range(rows):
        v = 2.0 * np.exp(-s / 20) + rng.normal(0, 0.01, runs)
        cells = [str(s)]
        for x in v:
            cells += [f'"{x:.5f}"'] * 3
        lines.append(",".join(cells))
    path.write_text("\n".join(lines) + "\n")
    return path


def npz_bomb(path: Path, values: int = 50_000_000) -> Path:
    """NumPy's compressed archive of `values` zeros: 400 MB of float64 in about 400 KB, under
    a loss's name (`np.savez_compressed(f, loss=...)`)."""
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        with zf.open("loss.npy", "w", force_zip64=True) as fh:
            np.lib.format.write_array_header_2_0(
                fh, {"descr": "<f8", "fortran_order": False, "shape": (values,)}
            )
            block = bytes(8 << 20)
            for _ in range(values * 8 // len(block)):
                fh.write(block)
    return path


def jsonl_run(path: Path, points: int = 1000) -> Path:
    """A plain healthy-looking JSONL log of `points` steps (one metric)."""
    rng = np.random.default_rng(1)
    loss = 2.0 * np.exp(-np.arange(points) / (points / 4)) + rng.normal(0, 0.01, points)
    path.write_text("".join(f'{{"step": {s}, "loss": {v:.5f}}}\n' for s, v in enumerate(loss)))
    return path


def tar_gz(path: Path, members: dict[str, bytes]) -> Path:
    with tarfile.open(path, "w:gz") as tf:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tf.addfile(info, io.BytesIO(data))
    return path
