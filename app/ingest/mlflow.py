"""MLflow runs: the `mlruns/` file store (a store, one experiment, or one run folder) and the
`mlflow.db` SQLite store. Several runs come back as several runs, each named by its
`mlflow.runName` (else the run id; a repeated name gets its id appended).

Steps are MLflow's `step`; wall times are the logged timestamps (ms -> s); `seq` follows time
within a run, since the store keeps each metric in its own file. Artifacts (a TensorBoard log
that keras autolog leaves there, model files) are not read: the metrics are the same series.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import numpy as np
from lossforensics.classifiers.errors import EmptyInputError, NoLogsFoundError, UnknownFormatError
from lossforensics.ingest import _mlflow_db, _mlflow_files
from lossforensics.ingest._builder import FrameBuilder, Warnings
from lossforensics.ingest._source import apply_run_name, head_text, require_nonempty
from lossforensics.ingest.base import IngestResult

FORMAT = "mlflow"
DB_NAME = "mlflow.db"


def _metric_file_run(path: Path) -> Path | None:
    """The run folder of a file under `<run>/metrics/`, if it is one."""
    for parent in path.parents:
        if parent.name == "metrics" and _mlflow_files.is_run_dir(parent.parent):
            return parent.parent
    return None


def sniff(path: Path) -> bool:
    """An MLflow SQLite store; a metric file inside a run folder; a folder that is (or holds) a
    file store or an `mlflow.db`."""
    path = Path(path)
    if path.is_dir():
        return bool(_mlflow_files.find_run_dirs(path, limit=1)) or _mlflow_db.is_tracking_db(
            path / DB_NAME
        )
    if _mlflow_db.is_sqlite(path):
        return _mlflow_db.is_tracking_db(path)
    if _metric_file_run(path) is None:
        return False
    text = head_text(path, 4096)
    fields = (text or "").split("\n", 1)[0].split()
    return len(fields) in (2, 3) and fields[0].isdigit()


def _unique_names(runs: list[tuple[str, str]]) -> dict[str, str]:
    """run id -> display name; names used twice get ' [id]' appended."""
    counts: dict[str, int] = {}
    for _, name in runs:
        counts[name] = counts.get(name, 0) + 1
    return {
        rid: (f"{name} [{rid[:8]}]" if counts[name] > 1 and name != rid else name)
        for rid, name in runs
    }


def _read_file_store(
    run_dirs: list[Path], only: Path | None, warns: Warnings, builder: FrameBuilder
) -> list[str]:
    runs = sorted(
        (_mlflow_files.describe(d, warns) for d in run_dirs),
        key=lambda r: (r.start_time, str(r.path)),
    )
    deleted = [r for r in runs if r.deleted]
    if deleted:
        warns.add(
            f"{len(deleted)} deleted run(s) skipped: {', '.join(r.name for r in deleted[:5])}"
        )
    live = [r for r in runs if not r.deleted]
    names = _unique_names([(r.run_id, r.name) for r in live])
    files: list[str] = []
    for r in live:
        code = builder.runs.code(names[r.run_id])
        for key, path in _mlflow_files.metric_files(r.path):
            if only is not None and path != only:
                continue
            file_warns = Warnings(str(path))
            steps, values, wall, _ = _mlflow_files.read_metric_file(path, file_warns)
            warns.items.extend(file_warns.finish())
            builder.add(
                code, np.full(len(steps), builder.metrics.code(key), np.int32), steps, values, wall
            )
            files.append(str(path))
    return files


def _read_db(path: Path, warns: Warnings, builder: FrameBuilder) -> None:
    deleted_seen: set[str] = set()
    names: dict[str, str] | None = None
    for runs, chunk in _mlflow_db.iter_metric_rows(path):
        if names is None:
            live = runs[~runs["deleted"].astype(bool)]
            names = _unique_names(
                list(zip(live["run_uuid"], live["name"].astype(str), strict=True))
            )
            deleted_seen = set(runs.loc[runs["deleted"].astype(bool), "run_uuid"])
        keep = ~chunk["run_uuid"].isin(deleted_seen).to_numpy()
        chunk = chunk[keep]
        ids = chunk["run_uuid"].astype(str)
        run_names = ids.map(names).fillna(ids)
        steps = chunk["step"].fillna(0).to_numpy(np.int64)
        wall = chunk["timestamp"].astype("float64").to_numpy() / 1000.0
        builder.add(
            builder.runs.codes(run_names),
            builder.metrics.codes(chunk["key"].astype(str)),
            steps,
            chunk["value"].to_numpy(np.float64),
            wall,
        )
    if deleted_seen:
        warns.add(f"{len(deleted_seen)} deleted run(s) skipped")


def read(
    path: Path, *, run: str | None = None, roles: Mapping[str, str] | None = None
) -> IngestResult:
    path = Path(path)
    warns = Warnings(str(path))
    builder = FrameBuilder()
    files: list[str]
    if path.is_dir():
        run_dirs = _mlflow_files.find_run_dirs(path)
        if run_dirs:
            files = _read_file_store(run_dirs, None, warns, builder)
        elif _mlflow_db.is_tracking_db(path / DB_NAME):
            _read_db(path / DB_NAME, warns, builder)
            files = [str(path / DB_NAME)]
        else:
            raise NoLogsFoundError(
                "no MLflow runs here (no <run>/meta.yaml with metrics/, no mlflow.db)",
                file=str(path),
            )
    else:
        require_nonempty(path)
        if _mlflow_db.is_sqlite(path):
            _read_db(path, warns, builder)
            files = [str(path)]
        elif (run_dir := _metric_file_run(path)) is not None:
            files = _read_file_store([run_dir], path, warns, builder)
        else:
            raise UnknownFormatError(
                "not an MLflow store: expected an mlruns/ folder, a run "
                "folder, a metric file in one, or mlflow.db",
                file=str(path),
            )
    if builder.points == 0:
        raise EmptyInputError("the MLflow store has no metric points", file=str(path))
    frame = apply_run_name(builder.build(roles, order="wall_time", warns=warns), run)
    return IngestResult(frame, warns.finish(), format=FORMAT, files=files)
