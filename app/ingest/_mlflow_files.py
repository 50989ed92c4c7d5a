"""MLflow's file store (`mlruns/`): finding run folders and reading one metric file.

Layout: `mlruns/<experiment id>/<run id>/` with `meta.yaml`, `tags/mlflow.runName`,
`params/*`, `artifacts/` and `metrics/<key>`, where a key with `/` is a sub-folder
(`metrics/train/loss`). A metric file has one `timestamp value step` line per point
(timestamp in ms; very old files have no step). Deleted runs (`lifecycle_stage: deleted`) and
the `.trash` folder are skipped.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import yaml
from lossforensics.ingest import _limits
from lossforensics.ingest._builder import Warnings
from lossforensics.ingest._csv import CsvHeader, iter_chunks
from lossforensics.ingest._steps import integral_steps
from lossforensics.ingest._values import text_cells

_MAX_DEPTH = 4
_METRIC_LINE = CsvHeader(" ", ("timestamp", "value", "step"), False, 0)


@dataclass
class RunDir:
    path: Path
    run_id: str
    name: str
    deleted: bool
    start_time: float


def is_run_dir(path: Path) -> bool:
    return (path / "meta.yaml").is_file() and (path / "metrics").is_dir()


class NoAliasLoader(yaml.SafeLoader):
    """PyYAML's SafeLoader refusing aliases: a few hundred bytes of nested `*a` references
    expand into gigabytes ('billion laughs'); MLflow never writes one."""

    def compose_node(self, parent, index):
        if self.check_event(yaml.AliasEvent):
            event = self.peek_event()
            raise yaml.composer.ComposerError(
                None, None, "YAML aliases are not accepted", event.start_mark
            )
        return super().compose_node(parent, index)


def load_yaml(path: Path, max_bytes: int) -> object:
    """A small YAML file read safely: no tags, no aliases, at most `max_bytes` (yaml.YAMLError
    otherwise, OSError when unreadable)."""
    with open(path, "rb") as fh:
        raw = fh.read(max_bytes + 1)
    if len(raw) > max_bytes:
        raise yaml.YAMLError(f"longer than {max_bytes} bytes")
    return yaml.load(raw.decode("utf-8", "replace"), Loader=NoAliasLoader)  # noqa: S506


def _meta(path: Path, warns: Warnings) -> dict:
    try:
        meta = load_yaml(path / "meta.yaml", _limits.current().max_yaml_bytes)
    except (OSError, yaml.YAMLError) as exc:
        warns.add(
            f"meta.yaml unreadable ({type(exc).__name__}: {str(exc)[:200]}): "
            "the folder name is used",
            kind="meta.yaml unreadable",
        )
        return {}
    return meta if isinstance(meta, dict) else {}


def describe(path: Path, warns: Warnings) -> RunDir:
    """Run id and readable name: the `mlflow.runName` tag, else meta.yaml's `run_name`, else
    the run id."""
    meta = _meta(path, warns)
    run_id = str(meta.get("run_id") or meta.get("run_uuid") or path.name)
    name = ""
    tag = path / "tags" / "mlflow.runName"
    if tag.is_file():
        with open(tag, "rb") as fh:  # a tag file is one name: read no more than the limit
            name = fh.read(4 * _limits.current().max_run_name_chars + 4).decode("utf-8", "replace")
        name = name.strip()
    name = name or str(meta.get("run_name") or meta.get("name") or "").strip() or run_id
    _limits.check_name(name, "run", file=str(path / "meta.yaml"))
    _limits.check_name(run_id, "run", file=str(path / "meta.yaml"))
    try:
        start = float(meta.get("start_time") or 0)
    except (TypeError, ValueError):
        start = 0.0
    return RunDir(path, run_id, name, meta.get("lifecycle_stage") == "deleted", start)


def find_run_dirs(root: Path, limit: int | None = None) -> list[Path]:
    """Run folders under `root` (itself, an experiment folder, a store, or a folder holding
    `mlruns/`), sorted; never descending into a run's artifacts or hidden folders."""
    found: list[Path] = []
    for current, dirs, _files in os.walk(root):
        here = Path(current)
        depth = len(here.relative_to(root).parts)
        if is_run_dir(here):
            found.append(here)
            dirs[:] = []
            if limit is not None and len(found) >= limit:
                break
            continue
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d != "artifacts")
        if depth >= _MAX_DEPTH:
            dirs[:] = []
    return sorted(found)


def metric_files(run_dir: Path) -> list[tuple[str, Path]]:
    """(key, file) for every metric of a run; sub-folders make `/` in the key."""
    base = run_dir / "metrics"
    out = []
    for current, dirs, files in os.walk(base):
        dirs.sort()
        for f in sorted(files):
            path = Path(current) / f
            out.append((path.relative_to(base).as_posix(), path))
    return out


def read_metric_file(path: Path, warns: Warnings) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """(steps, values, wall seconds, non-numeric lines) of one metric file."""
    steps_out, values_out, wall_out = [], [], []
    bad = 0
    for chunk in iter_chunks(path, _METRIC_LINE, has_header=False):
        for line, why in chunk.skipped:
            warns.add(f"line skipped: {why}", line=line, kind="metric line skipped")
        f = chunk.frame
        ts, value, step = (text_cells(f[j]) for j in range(3))
        steps, step_ok = integral_steps(np.where(step.keep, step.values, 0.0))
        ok = ts.keep & value.keep & step_ok
        bad_rows = ~ok
        if bad_rows.any():  # a blank line is not bad (a frame-wide isna: only where it matters)
            bad_rows &= ~f.isna().all(axis=1).to_numpy()
        if bad_rows.any():
            bad += int(bad_rows.sum())
            warns.add(
                "metric line is not 'timestamp value step': skipped",
                line=chunk.first_line + int(np.flatnonzero(bad_rows)[0]),
                kind="bad metric line",
            )
        steps_out.append(steps[ok])
        values_out.append(value.values[ok])
        wall_out.append(ts.values[ok] / 1000.0)
    if not steps_out:
        return np.empty(0, np.int64), np.empty(0), np.empty(0), bad
    return np.concatenate(steps_out), np.concatenate(values_out), np.concatenate(wall_out), bad
