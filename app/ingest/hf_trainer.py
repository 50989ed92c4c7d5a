"""Hugging Face `Trainer` state (`trainer_state.json`, also inside `checkpoint-N/` folders).

`log_history` holds one object per log call: train entries (`loss`, `grad_norm`,
`learning_rate`, TRL's `mean_token_accuracy`/`num_tokens`, ...), eval entries (`eval_loss`,
`eval_<set>_loss` for several eval sets, `eval_runtime`, ...) at the same `step`, `predict_*`
test-split results logged without a step (they take the step of the entry before, role
other: they are not the validation curve), hyphenated keys (`eval_rouge-1`), and a final
summary entry (`train_runtime`, `train_loss` averaged over the whole run, ...) that is not a
point of any curve and is left out. `epoch` is kept once per step (role `other`); where it falls
back while `step` counts on (a second Trainer appended to the state, its schedule started
over), a new session (the frame's `segment`) begins. NaN is
serialised as a bare `NaN` and kept. The file is one JSON document, read whole (it holds one
entry per log call, small next to the run it describes).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import numpy as np
import pandas as pd
from lossforensics.classifiers.errors import CorruptInputError, EmptyInputError, UnknownFormatError
from lossforensics.ingest._builder import FrameBuilder, Warnings
from lossforensics.ingest._jsonlines import flat_frame, parse_document
from lossforensics.ingest._source import (
    apply_run_name,
    default_run_name,
    head_text,
    require_nonempty,
)
from lossforensics.ingest._steps import integral_steps
from lossforensics.ingest._trainer_state_arrow import history_frame
from lossforensics.ingest._values import json_cells
from lossforensics.ingest.base import IngestResult

FORMAT = "hf_trainer"
SUMMARY_KEYS = frozenset(("train_runtime", "train_samples_per_second", "train_steps_per_second"))
# an `epoch` that falls back by this much: a new Trainer's, not the same epoch logged again
_EPOCH_FALL = 0.01


def sniff(path: Path) -> bool:
    """A JSON document (not JSON lines) with a `log_history` key near its top (HF sorts keys,
    so it follows a few scalars); not JSON lines one of which holds a `log_history`."""
    text = head_text(Path(path))
    if not text:
        return False
    body = text.lstrip()
    if not body.startswith("{") or '"log_history"' not in body:
        return False
    # JSON lines whose last line sums the run up with its history (ms-swift's logging.jsonl):
    # a first line that is a whole object, another object on the line after it
    first, _, rest = body.partition("\n")
    return not (first.rstrip().endswith("}") and rest.lstrip().startswith("{"))


def _load(path: Path, text: bytes) -> dict:
    doc = parse_document(path, text)
    if not isinstance(doc, dict) or "log_history" not in doc:
        raise UnknownFormatError("not a trainer_state.json: no 'log_history' key", file=str(path))
    if not isinstance(doc["log_history"], list):
        raise CorruptInputError("'log_history' is not a list", file=str(path))
    return doc


def _nothing_logged(doc: dict, summaries: int) -> str:
    """Why a log_history holds no curve, in the file's own terms."""
    if not summaries:
        return "log_history has no entries"
    why = "log_history holds only the end-of-training summary: no loss was logged during training"
    every, steps = doc.get("logging_steps"), doc.get("global_step") or doc.get("max_steps")
    if isinstance(every, int | float) and isinstance(steps, int | float) and every > steps:
        why += f" (logging_steps {every:g} is more than the run's {steps:g} steps)"
    return why


def _epoch_sessions(epoch: np.ndarray, logged: np.ndarray) -> np.ndarray | None:
    """Per entry, the session it belongs to: a new one starts where the `epoch` field falls
    back by `_EPOCH_FALL` or more below the entry logged before it (a second Trainer whose state
    was appended while `step` counted on: its schedule and loss start over, which
    resume_discontinuity reads at the session's start); None when it never falls back."""
    idx = np.flatnonzero(logged)
    ep = epoch[idx]
    falls = idx[1:][ep[1:] < ep[:-1] - _EPOCH_FALL]
    if not len(falls):
        return None
    starts = np.zeros(len(epoch), dtype=np.int64)
    starts[falls] = 1
    return np.cumsum(starts)


def is_summary(entry: dict) -> bool:
    """The end-of-training summary entry: whole-run figures, not a point of a curve."""
    return not SUMMARY_KEYS.isdisjoint(entry)


def _entries_frame(path: Path, text: bytes, warns: Warnings) -> tuple[pd.DataFrame, object]:
    """The point entries as columns, and the trial name (set by a hyperparameter search), from
    the standard library's parse."""
    doc = _load(path, text)
    history = doc["log_history"]
    objects = [e for e in history if isinstance(e, dict)]
    entries = list(filter(SUMMARY_KEYS.isdisjoint, objects))  # not is_summary, in C: 2x faster
    if len(objects) < len(history):
        warns.add("log_history items that are not objects were skipped")
    if not entries:
        raise EmptyInputError(_nothing_logged(doc, len(objects)), file=str(path))
    return flat_frame(entries), doc.get("trial_name")


def read(
    path: Path, *, run: str | None = None, roles: Mapping[str, str] | None = None
) -> IngestResult:
    path = Path(path)
    require_nonempty(path)
    text = path.read_bytes()
    warns = Warnings(str(path))
    frame = history_frame(text, SUMMARY_KEYS)
    trial = None  # the fast path steps aside for a trial_name
    if frame is None:
        frame, trial = _entries_frame(path, text, warns)
    n = len(frame)
    if "step" in frame.columns:
        cells = json_cells(frame["step"])
        steps, ok = integral_steps(np.where(cells.keep, cells.values, np.nan))
        absent = ~cells.keep & ~cells.bad & ~ok
        if absent.any() and ok.any():  # `predict_*` results are logged without a step
            before = pd.Series(np.where(ok, steps, np.nan)).ffill().to_numpy()
            carried = absent & ~np.isnan(before)
            steps = np.where(carried, np.nan_to_num(before).astype(np.int64), steps)
            ok |= carried
            warns.add(
                f"{int(carried.sum())} log_history entries without a 'step' (e.g. predict_* "
                "test-set results) took the step of the entry before"
            )
        if not ok.all():
            warns.add(
                f"{int((~ok).sum())} log_history entries without a whole-number 'step' skipped"
            )
    else:
        steps, ok = np.arange(n, dtype=np.int64), np.ones(n, bool)
        warns.add("log_history entries have no 'step': the entry order is used")
    columns = [c for c in frame.columns if c != "step"]
    values = np.empty((n, len(columns)))
    keep = np.empty((n, len(columns)), dtype=bool)
    bad = 0
    for j, col in enumerate(columns):
        cells = json_cells(frame[col])
        values[:, j], keep[:, j] = cells.values, cells.keep
        bad += int((cells.bad & ok).sum())
    keep &= ok[:, None]
    sessions = None
    if "epoch" in columns:  # every entry repeats it: one point per step is the series
        j = columns.index("epoch")
        sessions = _epoch_sessions(values[:, j], keep[:, j])
        logged = np.flatnonzero(keep[:, j])
        keep[logged[pd.Series(steps[logged]).duplicated().to_numpy()], j] = False
    if bad:
        warns.add(f"{bad} non-numeric value(s) in log_history skipped")
    builder = FrameBuilder()
    named = str(trial).strip()[:200] if isinstance(trial, str) and trial.strip() else None
    run_code = builder.runs.code(named or default_run_name(path))
    codes = np.array([builder.metrics.code(str(c)) for c in columns], dtype=np.int32)
    rows, cols = np.nonzero(keep)
    labels = None if sessions is None else builder.label_codes(sessions)[rows]
    builder.add(run_code, codes[cols], steps[rows], values[rows, cols], None, labels)
    if builder.points == 0:
        raise EmptyInputError("log_history has no numeric points", file=str(path))
    # `predict_*` is Trainer.predict on a test split, logged beside `eval_*`: not the val curve
    defaults = {c: "other" for c in columns if str(c).startswith("predict_")}
    frame = apply_run_name(builder.build(roles, default_roles=defaults, warns=warns), run)
    return IngestResult(frame, warns.finish(), format=FORMAT, files=[str(path)])
