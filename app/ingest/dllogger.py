"""NVIDIA DLLogger's JSON stream (`nvlog.json`, `dllogger.json`): the log that NVIDIA's
DeepLearningExamples (BERT, ResNet, FastPitch, Tacotron2, nnU-Net, DIEN, ...) write through
`dllogger.JSONStreamBackend`, one `DLLL {...}` line per `dllogger.log(step, data)` call.

A line's `type` is `LOG` (points) or `METADATA` (a metric's display name and unit: skipped);
its `step` says what the line is:
- a list of two or three numbers, `[epoch, iteration]` or `[epoch, iteration, iterations per
  epoch]`: a training step. The iteration counts within the epoch when it goes back where the
  epoch goes forward (`_steps.counts_within_epoch`); the step is then
  (epoch - first epoch number) x epoch length + iteration, the epoch length being the third
  number where the writer gives it, else the largest iteration logged;
- a list of one number, `[epoch]`: the epoch's summary (validation loss, averages), placed at
  the last training step logged before it (at the epoch number in a log of summaries only). A
  summary metric that shares a name with a per-step one is named `epoch/<name>`;
- `[]` (the run's final summary, repeating the last values) and `PARAMETER` (the run's
  arguments): no points.

`data` values are numbers, numbers written as text, or a change written `old -> new`
(FastPitch's `lrate_change`), read as the new value. A `DLLL` line that is not JSON is a warning
with its line and byte offset; other lines (a console's output captured beside) are skipped. A
step that goes back (a run appended to the same file) starts a segment of the run.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from lossforensics.classifiers.errors import EmptyInputError
from lossforensics.ingest._builder import FrameBuilder, Warnings
from lossforensics.ingest._source import (
    apply_run_name,
    default_run_name,
    first_line,
    head_text,
    require_nonempty,
)
from lossforensics.ingest._steps import counts_within_epoch
from lossforensics.ingest.base import IngestResult

FORMAT = "dllogger"
_PREFIX = b"DLLL "
_CHANGE = re.compile(r"^\s*\S+\s*->\s*(\S+)\s*$")
_EPOCH_PREFIX = "epoch/"


def sniff(path: Path) -> bool:
    """The first non-blank line is a `DLLL {...}` line."""
    text = head_text(Path(path))
    return text is not None and first_line(text.lstrip()).startswith("DLLL {")


def _value(raw: object) -> float | None:
    """A logged value as a number: a number, a number written as text, or `old -> new`."""
    if isinstance(raw, bool):
        return None
    if isinstance(raw, int | float):
        return float(raw)
    if isinstance(raw, str):
        change = _CHANGE.match(raw)
        text = change.group(1) if change else raw
        try:
            return float(text)
        except ValueError:
            return None
    return None


@dataclass
class _Lines:
    """The `LOG` lines, split by what their step says: training steps and epoch summaries."""

    epochs: list[int] = field(default_factory=list)  # per training step line
    iters: list[int] = field(default_factory=list)
    totals: list[int | None] = field(default_factory=list)
    step_data: list[tuple[dict[str, float], float]] = field(default_factory=list)
    # an epoch summary: (its epoch, the number of training lines before it, data, wall time)
    summaries: list[tuple[int, int, dict[str, float], float]] = field(default_factory=list)
    skipped: int = 0
    first_skipped: tuple[int, str] | None = None


def _numbers(step: list) -> list[int] | None:
    """The whole numbers of a step list; None when it holds anything else."""
    if not all(isinstance(s, int) and not isinstance(s, bool) for s in step):
        return None
    return list(step)


def _parse(path: Path, warns: Warnings) -> _Lines:
    found = _Lines()
    offset = 0
    with path.open("rb") as handle:
        for number, raw in enumerate(handle, start=1):
            at, offset = offset, offset + len(raw)
            if not raw.startswith(_PREFIX):
                continue
            try:
                record = json.loads(raw[len(_PREFIX) :])
            except (ValueError, RecursionError):
                cut = not raw.endswith(b"\n")
                warns.add(
                    "a cut last line (the run may still be writing): skipped"
                    if cut
                    else "a DLLL line that is not JSON: skipped",
                    line=number,
                    byte=at,
                    kind="bad line",
                )
                continue
            if not isinstance(record, dict) or record.get("type") != "LOG":
                continue
            step, data = record.get("step"), record.get("data")
            if not isinstance(step, list) or not isinstance(data, dict):
                continue  # PARAMETER lines: the run's arguments
            parts = _numbers(step)
            values: dict[str, float] = {}
            for key, raw_value in data.items():
                value = _value(raw_value)
                if value is None:
                    found.skipped += 1
                    found.first_skipped = found.first_skipped or (number, str(key))
                else:
                    values[str(key)] = value
            if parts is None or not values:
                continue
            wall = _value(record.get("timestamp"))
            wall = math.nan if wall is None else wall
            if len(parts) >= 2:
                found.epochs.append(parts[0])
                found.iters.append(parts[1])
                found.totals.append(parts[2] if len(parts) >= 3 else None)
                found.step_data.append((values, wall))
            elif len(parts) == 1:
                found.summaries.append((parts[0], len(found.step_data), values, wall))
    return found


def _global_steps(found: _Lines) -> np.ndarray:
    """Each training line's step: the iteration, carried across epochs where it counts within
    them."""
    epochs = np.asarray(found.epochs, dtype=np.int64)
    iters = np.asarray(found.iters, dtype=np.int64)
    if not counts_within_epoch(epochs, iters, np.zeros(len(iters), dtype=np.int64)):
        return iters
    totals = [t for t in found.totals if t is not None and t > 0]
    length = max(totals) if totals else int(iters.max()) + (1 if iters.min() == 0 else 0)
    first = 1 if epochs.min() >= 1 else 0
    return (epochs - first) * length + iters


def read(
    path: Path, *, run: str | None = None, roles: Mapping[str, str] | None = None
) -> IngestResult:
    """Read a DLLogger JSON stream as one run."""
    path = Path(path)
    require_nonempty(path)
    warns = Warnings(str(path))
    found = _parse(path, warns)
    builder = FrameBuilder()
    run_code = builder.runs.code(default_run_name(path))
    steps = _global_steps(found) if found.step_data else np.zeros(0, dtype=np.int64)
    per_step = {key for values, _ in found.step_data for key in values}
    summaries: dict[int, list[tuple[int, dict[str, float], float]]] = {}
    for epoch, before, values, wall in found.summaries:
        summaries.setdefault(before, []).append((epoch, values, wall))
    points: list[tuple[str, int, float, float]] = []  # in the file's order
    for i in range(len(found.step_data) + 1):
        for epoch, values, wall in summaries.get(i, ()):
            step = int(steps[i - 1]) if i else epoch
            for key, value in values.items():
                name = f"{_EPOCH_PREFIX}{key}" if key in per_step else key
                points.append((name, step, value, wall))
        if i < len(found.step_data):
            values, wall = found.step_data[i]
            points.extend((key, int(steps[i]), value, wall) for key, value in values.items())
    if found.skipped and found.first_skipped:
        line, key = found.first_skipped
        warns.add(f"{found.skipped} non-numeric value(s) skipped (first: key {key!r})", line=line)
    if not points:
        raise EmptyInputError(
            "no numeric points in the DLLogger lines (only PARAMETER, METADATA or summary lines)",
            file=str(path),
        )
    names, at, vals, walls = zip(*points, strict=True)
    builder.add(
        run_code,
        builder.metrics.codes(names),
        np.asarray(at, dtype=np.int64),
        np.asarray(vals, dtype=np.float64),
        np.asarray(walls, dtype=np.float64),
    )
    frame = builder.build(roles, warns=warns)
    return IngestResult(
        apply_run_name(frame, run), warns.finish(), format=FORMAT, files=[str(path)]
    )
