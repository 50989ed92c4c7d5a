"""DVCLive's output folder: one run, one tab-separated history file per metric.

Layout (DVCLive 1.0 and later): `dvclive/plots/metrics/<name>.tsv`, where a name with `/` is a
sub-folder (`live.log_metric("train/loss", ..)` writes `plots/metrics/train/loss.tsv`), beside
the summary `dvclive/metrics.json`. DVCLive 0.x wrote the same files under `dvclive/scalars/`.
A history file is `timestamp  step  <last part of the name>` (the timestamp in ms, left out
when logged with `timestamp=False`, DVCLive 3's default).

The split is the folder's name, not the file's: `train/loss.tsv` and `eval/loss.tsv` hold a
column called `loss` each. Read one file at a time they were two runs with a training loss
each; here each metric keeps its whole name (`train/loss`, `eval/loss`), and its role comes
from that name. The run is named after the folder that holds `dvclive/` (the project or
experiment), else the DVCLive folder itself.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import numpy as np
from lossforensics.classifiers.errors import EmptyInputError, NoLogsFoundError
from lossforensics.ingest._builder import FrameBuilder, Warnings
from lossforensics.ingest._csv import BadCells, iter_chunks, sniff_header
from lossforensics.ingest._source import apply_run_name
from lossforensics.ingest._steps import integral_steps
from lossforensics.ingest.base import IngestResult

FORMAT = "dvclive"
# where the histories sit below a DVCLive folder: DVCLive 1.0 on, then 0.x
_HISTORY_DIRS = (("plots", "metrics"), ("scalars",))
# the folder DVCLive writes by default (`Live(dir="dvclive")`)
DEFAULT_DIR = "dvclive"
_STEP = "step"
_TIMESTAMP = "timestamp"
_MS_PER_S = 1000.0
_SUFFIX = ".tsv"


def own_histories(live: Path) -> Path | None:
    """The folder of metric histories of the DVCLive folder `live`, or None when it is none."""
    for parts in _HISTORY_DIRS:
        found = live.joinpath(*parts)
        if found.is_dir() and _first_history(found) is not None:
            return found
    return None


def histories_dir(path: Path) -> Path | None:
    """The folder of metric histories of the DVCLive folder `path` (or of the `dvclive/`
    folder inside it), or None when `path` is neither."""
    return own_histories(path) or own_histories(path / DEFAULT_DIR)


def _first_history(folder: Path) -> Path | None:
    """The first `.tsv` below `folder` whose header names a step column."""
    for file in sorted(folder.rglob(f"*{_SUFFIX}")):
        header = sniff_header(file) if file.is_file() else None
        if header is not None and _STEP in header.stripped:
            return file
    return None


def sniff(path: Path) -> bool:
    """A DVCLive folder, or a folder holding one as `dvclive/`."""
    path = Path(path)
    return path.is_dir() and histories_dir(path) is not None


def live_dir(histories: Path) -> Path:
    """The DVCLive folder above its histories folder."""
    return histories.parent.parent if histories.name == "metrics" else histories.parent


def _run_name(live: Path) -> str:
    """The folder holding `dvclive/` names the run; a folder named otherwise names itself."""
    live = live.resolve()
    return (live.parent.name if live.name == DEFAULT_DIR else live.name) or "run"


def _read_history(
    file: Path, name: str, builder: FrameBuilder, run_code: int, warns: Warnings
) -> bool:
    """Add one history file's points (each value column, by the metric's folder and its own
    name); False when it is no history (no header naming a step)."""
    header = sniff_header(file)
    if header is None or _STEP not in header.stripped:
        warns.add("no 'step' column in its header: not a DVCLive history, skipped")
        return False
    columns = header.stripped
    step_col = columns.index(_STEP)
    time_col = columns.index(_TIMESTAMP) if _TIMESTAMP in columns else None
    folder = name.rpartition("/")[0]
    values = {
        j: f"{folder}/{c}" if folder else c
        for j, c in enumerate(columns)
        if j not in (step_col, time_col)
    }
    bad = BadCells()
    for chunk in iter_chunks(file, header):
        for line, why in chunk.skipped:
            warns.add(f"line skipped: {why}", line=line, kind="history line skipped")
        raw = chunk.cells(step_col)
        steps, ok = integral_steps(np.where(raw.keep, raw.values, 0.0))
        ok &= raw.keep
        wall = None
        if time_col is not None:
            t = chunk.cells(time_col)
            wall = np.where(t.keep, t.values / _MS_PER_S, np.nan)
        if (~ok).any():
            row = int(np.flatnonzero(~ok)[0])
            warns.add(
                "a row whose step is not a whole number: skipped",
                line=chunk.line_of(row),
                kind="bad step",
            )
        for j, metric in values.items():
            cells = chunk.cells(j)
            keep = ok & cells.keep
            if cells.bad.any() and bad.first is None:
                row = int(np.flatnonzero(cells.bad)[0])
                bad.first = (chunk.line_of(row), columns[j], str(chunk.frame[j].iloc[row]))
            bad.count += int(cells.bad.sum())
            code = np.full(int(keep.sum()), builder.metrics.code(metric), np.int32)
            at = None if wall is None else wall[keep]
            builder.add(run_code, code, steps[keep], cells.values[keep], at)
    bad.report(warns)
    return True


def read(
    path: Path, *, run: str | None = None, roles: Mapping[str, str] | None = None
) -> IngestResult:
    """Read a DVCLive folder (or the folder holding `dvclive/`) as one run."""
    path = Path(path)
    histories = histories_dir(path) if path.is_dir() else None
    if histories is None:
        raise NoLogsFoundError(
            "no DVCLive histories here (no plots/metrics/*.tsv or scalars/*.tsv with a step "
            "column, here or in dvclive/)",
            file=str(path),
        )
    builder = FrameBuilder()
    run_code = builder.runs.code(_run_name(live_dir(histories)))
    warnings, files = [], []
    for file in sorted(histories.rglob(f"*{_SUFFIX}")):
        if not file.is_file():
            continue
        warns = Warnings(str(file))
        name = file.relative_to(histories).with_suffix("").as_posix()
        if _read_history(file, name, builder, run_code, warns):
            files.append(str(file))
        warnings.extend(warns.finish())
    if builder.points == 0:
        raise EmptyInputError("the DVCLive histories hold no points", file=str(histories))
    frame = apply_run_name(builder.build(roles, order="wall_time"), run)
    return IngestResult(frame, warnings, format=FORMAT, files=files)
