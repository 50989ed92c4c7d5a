"""A training history saved as one JSON object of metric -> values: Keras'
`json.dump(history.history, f)` (`{"loss": [0.9, 0.6, ...], "val_loss": [...]}`, one value an
epoch) and pandas' `DataFrame(history.history).to_json()` (`{"loss": {"0": 0.9, "1": 0.6},
...}`, the index label before each value). Pretty-printed or on one line alike.

The position in a list is the epoch (0-based, as Keras' CSVLogger counts it); a pandas index
label is the step it names. A metric whose values are not all numbers (a nested list, a
string) is skipped with a warning; `null`, `NaN` and `Infinity` are values (`null` as NaN).
The object is taken only when its metrics hold a loss-like series (a train or validation loss);
a configuration file of the same shape is not a history.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path

import numpy as np
from lossforensics.classifiers.errors import UnknownFormatError
from lossforensics.classifiers.roles import infer_role
from lossforensics.ingest._builder import FrameBuilder, Warnings
from lossforensics.ingest._jsonlines import parse_document
from lossforensics.ingest._source import (
    apply_run_name,
    default_run_name,
    head_text,
    require_nonempty,
)
from lossforensics.ingest.base import IngestResult

FORMAT = "history_json"

# a history's first key opens a list of numbers or an object keyed by index labels
# (`{"loss": [0.9` / `{\n  "loss": {\n    "0": 0.9`)
_OPENS_HISTORY = re.compile(
    r'^\{\s*"[^"\n]{1,200}"\s*:\s*(?:\[\s*(?:[-+]?[\d.]|NaN|-?Infinity|null)|\{\s*"-?\d+"\s*:)'
)
# a JSON-lines file starts a second object on a line of its own: not one document
_SECOND_OBJECT = re.compile(r"\n\s*\{")
# an index label of pandas' `to_json()`: a whole number
_INDEX_LABEL = re.compile(r"-?\d+")
_LOSS_ROLES = ("train_loss", "val_loss")


def sniff(path: Path) -> bool:
    """One JSON object (not JSON lines) whose first key holds a list of numbers or an object
    keyed by index labels, with a loss-like key in its first bytes."""
    text = head_text(Path(path))
    if not text:
        return False
    body = text.lstrip()
    return (
        _OPENS_HISTORY.match(body) is not None
        and _SECOND_OBJECT.search(body) is None
        and "loss" in body.lower()
    )


def _series(value: object) -> tuple[np.ndarray, np.ndarray] | None:
    """(steps, values) of one metric: a list (positions) or an object keyed by whole-number
    labels; None when a value is not a number (or null)."""
    if isinstance(value, list):
        labels: list = list(range(len(value)))
        cells = value
    elif isinstance(value, dict) and all(_INDEX_LABEL.fullmatch(k) for k in value):
        labels = [int(k) for k in value]
        cells = list(value.values())
    else:
        return None
    if not cells or not all(
        c is None or (isinstance(c, int | float) and not isinstance(c, bool)) for c in cells
    ):
        return None
    values = np.array([np.nan if c is None else float(c) for c in cells], dtype=np.float64)
    return np.asarray(labels, dtype=np.int64), values


def read(
    path: Path, *, run: str | None = None, roles: Mapping[str, str] | None = None
) -> IngestResult:
    path = Path(path)
    require_nonempty(path)
    text = path.read_bytes()
    doc = parse_document(path, text)
    if not isinstance(doc, dict):
        raise UnknownFormatError("not a training history: not one JSON object", file=str(path))
    warns = Warnings(str(path))
    builder = FrameBuilder()
    run_code = builder.runs.code(default_run_name(path))
    skipped: list[str] = []
    losses = 0
    for key, value in doc.items():
        series = _series(value)
        if series is None:
            skipped.append(key)
            continue
        steps, values = series
        code = builder.metrics.code(key)
        builder.add(run_code, np.full(len(steps), code, dtype=np.int32), steps, values)
        losses += (roles or {}).get(key, infer_role(key)) in _LOSS_ROLES
    if not losses:
        raise UnknownFormatError(
            "not a training history: no loss-like key holds a list of numbers "
            f"(keys: {', '.join(list(doc)[:6])})",
            file=str(path),
        )
    if skipped:
        warns.add(
            f"{len(skipped)} key(s) without a list of numbers skipped (first: {skipped[0]!r})"
        )
    frame = builder.build(roles, warns=warns)
    return IngestResult(
        apply_run_name(frame, run), warns.finish(), format=FORMAT, files=[str(path)]
    )
