"""JSON lines: one object per line, as nanoGPT-style loops, detectron2 (`metrics.json`, despite
the name) and W&B's history files write them.

Wide lines (`{"iter": 100, "train/loss": 2.1, "lr": 3e-4}`): the step key is the first of
`step, global_step, _step, iter, iteration, current_steps, epoch` present (none: the line order,
with a warning); nested objects are flattened with `/`; a line without the step key takes the last
step seen. Long lines (`{"metric": "loss", "step": 3, "value": 2.1}`, also `tag`/`key`/`name`
for `metric`, optional `run`, `role`, `wall_time`, `segment`) are one point each; that is also what
`lossforensics convert --to jsonl` writes, so the normalised frame round-trips.

A `mode` or `split` key (mmdetection's `log.json`: `"mode": "val"`) names a line's split: the
metrics of a line of any split but train are named under it (`val/bbox_mAP`), its `lr` dropped
(it repeats the train lines'). A step key that starts again at every epoch (mmdetection's `iter`
beside `epoch`) counts within the epoch: steps become epoch x (largest step + 1) + step. A line
without the `epoch` key that the train lines carry, whose step is at most the last train line's
epoch and below its step, is an evaluation logged at its epoch's number (mmengine's
`vis_data/scalars.json`): it is placed at the last train line's step and its metrics are named
under `val/` (unless their name says a split already).

Runs and segments, in wide lines: a `run`, `experiment` or `trial` key (or `run_id`,
`trial_id`, ...) names separate runs (each value its own `run`, named `<key>-<value>` when the
value is not text); a `segment` or
`phase` key, or a metric's step that goes back below its previous step, starts a new segment
of the same run (the frame's `segment` column: 0, then +1 at each restart; the rule is
`_segments`'). Neither key is a metric.

`NaN`, `Infinity`, `-Infinity` tokens are values (kept); a null is a value not logged on that
line, except in a loss key that held only nulls in a log where no loss key held a number: JSON has
no NaN and JavaScript and pandas write one as null, so those nulls are NaN (with a warning).
A number written as text (`"0.5234"`, `"nan"`: `json.dump(h, f, default=str)`) is a number;
other strings, booleans and lists are
skipped and counted in one warning with the first line; a bad line is a warning with its line
and byte offset; a cut last line (a live run) is a warning, not an error. Keys such as `time`,
`data_time`, `eta_seconds` stay series with role `other`. `_timestamp`/`timestamp`/`wall_time`
(seconds or milliseconds since the epoch) become the wall time.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from pathlib import Path

import numpy as np
import pandas as pd
from lossforensics.classifiers.errors import EmptyInputError
from lossforensics.classifiers.roles import ROLES, infer_role, name_words
from lossforensics.ingest._builder import FrameBuilder, Warnings
from lossforensics.ingest._json_records import looks_like_records, records_document
from lossforensics.ingest._jsonlines import FrameChunk, RecordChunk, iter_records, parse_json
from lossforensics.ingest._logged_messages import read_messages
from lossforensics.ingest._segments import RUN_KEYS, SEGMENT_KEYS
from lossforensics.ingest._source import (
    apply_run_name,
    default_run_name,
    first_line,
    head_text,
    require_nonempty,
)
from lossforensics.ingest._split_words import SPLIT_WORDS, held_out_splits
from lossforensics.ingest._steps import (
    STEP_KEYS,
    choose_step_key,
    counts_within_epoch,
    integral_steps,
    progress_key,
    progress_steps,
    same_count_each_epoch,
)
from lossforensics.ingest._values import json_cells
from lossforensics.ingest.base import IngestResult

FORMAT = "jsonl"
_METRIC_KEYS = ("metric", "tag", "key", "name")
_WALL_KEYS = ("_timestamp", "wall_time", "walltime", "timestamp")
_DROPPED_PREFIXES = ("_wandb",)
_SPLIT_KEYS = ("mode", "split")  # a line's split: mmdetection's "mode": "train" / "val"
# DETR's (and Deformable-DETR's, DINO's) COCO evaluation: a list of the 12 COCO stats, AP first
_COCO_EVAL = re.compile(r"coco_eval_(bbox|masks|segm)$")


# the top-level keys of a Jupyter notebook's JSON (nbformat 4)
_NOTEBOOK_KEYS = frozenset({"cells", "nbformat"})
# the roles of a loss: a key of one of them holding only nulls is named in the error
_LOSS_ROLES = ("train_loss", "val_loss")


def sniff(path: Path) -> bool:
    """The first non-blank line is a JSON object on its own (a cut long first line that opens
    like one counts too), or the file is one document of loss-logging records
    (`_json_records`)."""
    text = head_text(Path(path))
    if not text:
        return False
    if _json_lines(text):
        return True
    return looks_like_records(text)


def _json_lines(text: str) -> bool:
    """The head's first non-blank line is a JSON object on its own."""
    line = first_line(text.lstrip()).strip()
    if not line.startswith("{"):
        return False
    try:
        record = parse_json(line)
    except (ValueError, RecursionError):
        return len(line) > 1000 and line.startswith('{"') and "\n" not in text.lstrip()
    # a notebook saved on one line is one JSON object too: the notebook reader's, and refused
    # there when it printed no training (its `nbformat` is no metric)
    return isinstance(record, dict) and not _NOTEBOOK_KEYS <= record.keys()


def _fractional(col: pd.Series) -> bool:
    """A step column holding numbers that are not whole (an HF-style fractional epoch)."""
    cells = json_cells(col)
    values = cells.values[cells.keep & np.isfinite(cells.values)]
    return bool(len(values)) and bool(np.any(values != np.floor(values)))


def _wall_seconds(values: np.ndarray) -> np.ndarray:
    """Seconds since the epoch from seconds or milliseconds; NaN for anything else."""
    return np.where(values > 1e11, values / 1000.0, np.where(values > 1e8, values, np.nan))


class _State:
    """What carries from one chunk to the next: the layout, the step key, the last step."""

    def __init__(self, path: Path, run: str) -> None:
        self.path = path
        self.warns = Warnings(str(path))
        self.builder = FrameBuilder()
        self.run_code = self.builder.runs.code(run)
        self.long: bool | None = None
        self.step_key: str | None = None
        self.wall_key: str | None = None
        self.records = 0
        self.last_step: int | None = None
        self.defaults: dict[str, str] = {}
        self.bad = 0
        self.first_bad: tuple[int, str] | None = None
        self.carried = 0
        self.unstepped = 0
        self.run_key: str | None = None
        self.segment_key: str | None = None
        self.split_key: str | None = None
        # the step key prints the step out of the total as text (`"global_step/max_steps"`)
        self.progress = False
        # per point added: its line's epoch (-1: none); per train line: step, epoch, run
        self.point_epochs: list[np.ndarray] = []
        self.line_steps: list[np.ndarray] = []
        self.line_epochs: list[np.ndarray] = []
        self.line_runs: list[np.ndarray] = []
        # keys seen with only nulls so far, and keys seen with a value (a record layout's)
        self.null_keys: set[str] = set()
        self.valued_keys: set[str] = set()
        # whether a loss key has held a number: no null can be a NaN then, nor needs tracking
        self.loss_valued = False
        # loss keys whose nulls are read as NaN (`_null_losses`): a second pass sets them
        self.null_as_nan: frozenset[str] = frozenset()
        # the last line with an epoch key: (its step, its epoch), for `_epoch_numbered_evals`
        self.last_train: tuple[int, int] | None = None

    def run_codes(self, col: pd.Series | None) -> np.ndarray:
        """Each line's run code: its run/experiment/trial value, else the file's run."""
        if col is None:
            return np.zeros(0, dtype=np.int32)
        return self.builder.named_runs(col, self.run_key or "run", self.run_code)

    def note_bad(self, mask: np.ndarray, lines: np.ndarray, key: str) -> None:
        if mask.any():
            self.bad += int(mask.sum())
            line = int(lines[np.flatnonzero(mask)[0]])
            if self.first_bad is None or line < self.first_bad[0]:
                self.first_bad = (line, key)

    def steps(self, col: pd.Series | None, lines: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Steps for a chunk; a record without one takes the last step seen."""
        n = len(lines)
        if col is None:
            return np.arange(self.records, self.records + n, dtype=np.int64), np.ones(n, bool)
        cells = json_cells(col)
        steps, ok = integral_steps(np.where(cells.keep, cells.values, np.nan))
        absent = ~cells.keep & ~cells.bad
        if absent.any():
            s = pd.Series(np.where(ok, steps, np.nan)).ffill()
            if self.last_step is not None:
                s = s.fillna(self.last_step)
            fill = absent & s.notna().to_numpy()
            steps = np.where(fill, s.fillna(0).to_numpy().astype(np.int64), steps)
            ok |= fill
            self.carried += int(fill.sum())
            self.unstepped += int((absent & ~fill).sum())
        self.note_bad(~ok & ~absent, lines, self.step_key or "step")
        if ok.any():
            self.last_step = int(steps[np.flatnonzero(ok)[-1]])
        return steps, ok


def _coco_ap(col: pd.Series) -> pd.Series:
    """A `test_coco_eval_bbox` column's AP: the first of the 12 COCO stats each cell lists
    (AP at IoU 0.50:0.95), read as `test_coco_eval_bbox/AP`, a validation score."""

    def first(v: object) -> object:
        if isinstance(v, (list, tuple, np.ndarray)) and len(v) > 0:
            return v[0] if isinstance(v[0], (int, float, np.number)) else v
        return v

    return col.map(first)


def _wide(state: _State, chunk: RecordChunk | FrameChunk) -> None:
    frame, lines = _without_summaries(_stats_as_means(chunk.frame), np.asarray(chunk.lines))
    if not state.loss_valued:  # until a loss holds a number its nulls may be NaN (`_null_losses`)
        empty = frame.isna().all()
        state.null_keys |= set(map(str, empty.index[empty.to_numpy()]))
        valued = set(map(str, empty.index[~empty.to_numpy()]))
        state.valued_keys |= valued
        state.loss_valued = any(infer_role(k) in _LOSS_ROLES for k in valued)
    if state.step_key is None and state.records == 0:
        state.step_key = choose_step_key(list(frame.columns))
        state.wall_key = next((k for k in _WALL_KEYS if k in frame.columns), None)
        state.run_key = next((k for k in RUN_KEYS if k in frame.columns), None)
        state.segment_key = next((k for k in SEGMENT_KEYS if k in frame.columns), None)
        state.split_key = next((k for k in _SPLIT_KEYS if k in frame.columns), None)
        progress = progress_key(list(map(str, frame.columns)))
        if progress is not None and (state.step_key is None or _fractional(frame[state.step_key])):
            state.step_key, state.progress = progress, True  # `"global_step/max_steps": "10/438"`
        elif state.step_key is not None and _fractional(frame[state.step_key]):
            state.warns.add(
                f"{state.step_key!r} has fractional values: the line order is "
                f"used as the step and {state.step_key!r} is kept as a series"
            )
            state.step_key = None
        elif state.step_key is None:
            state.warns.add(
                f"no step key ({', '.join(STEP_KEYS)}): the line order is used as the step"
            )
    if state.progress and state.step_key in frame.columns:
        frame = frame.copy()
        frame[state.step_key] = progress_steps(frame[state.step_key])
    step_col = (
        frame[state.step_key]
        if state.step_key in frame.columns
        else (None if state.step_key is None else pd.Series([None] * len(frame), dtype=object))
    )
    steps, ok = state.steps(step_col, lines)
    wall = None
    if state.wall_key in frame.columns:
        w = json_cells(frame[state.wall_key])
        wall = _wall_seconds(np.where(w.keep, w.values, np.nan))
    runs = state.run_codes(frame[state.run_key] if state.run_key in frame.columns else None)
    if state.run_key not in frame.columns:
        runs = np.full(len(frame), state.run_code, dtype=np.int32)
    labels = (
        state.builder.label_codes(frame[state.segment_key])
        if state.segment_key in frame.columns
        else None
    )
    skip = {state.step_key, state.wall_key, state.run_key, state.segment_key, state.split_key}
    columns = [
        c for c in frame.columns if c not in skip and not str(c).startswith(_DROPPED_PREFIXES)
    ]
    n = len(frame)
    values = np.empty((n, len(columns)))
    keep = np.empty((n, len(columns)), dtype=bool)
    for j, col in enumerate(columns):
        cells = json_cells(_coco_ap(frame[col]) if _COCO_EVAL.search(str(col)) else frame[col])
        values[:, j], keep[:, j] = cells.values, cells.keep
        if str(col) in state.null_as_nan:
            keep[:, j] = frame[col].isna().to_numpy()
        state.note_bad(cells.bad & ok, lines, str(col))
    keep &= ok[:, None]
    split = held_out_splits(frame[state.split_key]) if state.split_key in frame.columns else None
    epochs = _epochs(frame, state.step_key, n)
    evals, at = _epoch_numbered_evals(state, steps, ok, epochs)
    if evals.any():
        steps = np.where(evals, at, steps)
        split = np.where(evals, "val", "" if split is None else split)
    names = [f"{c}/AP" if _COCO_EVAL.search(str(c)) else str(c) for c in columns]
    for j, name in enumerate(names):  # a split line's lr repeats the train lines' lr
        if split is not None and infer_role(name) == "lr":
            keep[:, j] &= split == ""
    rows, cols = np.nonzero(keep)
    codes = _split_codes(state, names, split, rows, cols)
    state.point_epochs.append(epochs[rows])
    train = ok if split is None else ok & (split == "")
    state.line_steps.append(steps[train])
    state.line_epochs.append(epochs[train])
    state.line_runs.append(runs[train])
    state.builder.add(
        runs[rows],
        codes,
        steps[rows],
        values[rows, cols],
        None if wall is None else wall[rows],
        None if labels is None else labels[rows],
    )


# a key only a run's closing summary holds: ms-swift's last line (`log_history`, the run's whole
# history again, beside its `best_metric` and `memory`); the HF Trainer's end-of-training line
# (`train_runtime`) is kept, for `_final_evaluation` to find what was evaluated after it
_SUMMARY_KEYS = ("log_history",)


# a statistic logged as its sample count, mean and spread (the NVlabs training loop's
# `stats.jsonl`: `{"Loss/G/loss": {"num": 32, "mean": 3.48, "std": 0.89}}`, StyleGAN2/3, EDM)
_STAT_PARTS = ("/num", "/mean", "/std")


def _stats_as_means(frame: pd.DataFrame) -> pd.DataFrame:
    """Each statistic whose count, mean and spread were logged as `<name>/num`, `/mean` and
    `/std` read as its mean, under its own name: the count is bookkeeping and the spread no
    curve of its own."""
    names = {str(c) for c in frame.columns}
    stems = {n[: -len("/mean")] for n in names if n.endswith("/mean")}
    stats = [s for s in stems if all(f"{s}{part}" in names for part in _STAT_PARTS)]
    if not stats:
        return frame
    dropped = [f"{s}{part}" for s in stats for part in ("/num", "/std")]
    return frame.drop(columns=dropped).rename(columns={f"{s}/mean": s for s in stats})


def _without_summaries(frame: pd.DataFrame, lines: np.ndarray) -> tuple[pd.DataFrame, np.ndarray]:
    """The chunk without the lines that sum a run up rather than log a step (`_SUMMARY_KEYS`),
    nor the keys only those lines hold."""
    rows = np.zeros(len(frame), dtype=bool)
    for key in _SUMMARY_KEYS:
        if key in frame.columns:
            rows |= frame[key].notna().to_numpy()
    if not rows.any():
        return frame, lines
    kept = frame.loc[~rows]
    only_there = [c for c in frame.columns if kept[c].isna().all() and frame[c].notna().any()]
    return kept.drop(columns=only_there), lines[~rows]


def _split_codes(
    state: _State, names: list[str], split: np.ndarray | None, rows: np.ndarray, cols: np.ndarray
) -> np.ndarray:
    """Each point's metric code: a split line's metrics are named under the split (`val/`)."""
    plain = np.array([state.builder.metrics.code(n) for n in names], dtype=np.int32)
    codes = plain[cols]
    if split is None:
        return codes
    # a name that already says its split (`val/clf_acc`, `train/clf_acc`) keeps it
    says_split = np.array([bool(name_words(n) & SPLIT_WORDS) for n in names], dtype=bool)
    tagged = (split[rows] != "") & ~says_split[cols]
    if tagged.any():
        pairs = pd.DataFrame({"s": split[rows][tagged], "c": cols[tagged]})
        lookup = {
            (sp, c): state.builder.metrics.code(f"{sp}/{names[c]}")
            for sp, c in pairs.drop_duplicates().itertuples(index=False)
        }
        codes[tagged] = [lookup[p] for p in zip(pairs["s"], pairs["c"], strict=True)]
    return codes


def _epoch_numbered_evals(
    state: _State, steps: np.ndarray, ok: np.ndarray, epochs: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Per line: whether it is an evaluation logged at its epoch's number (mmengine's
    `vis_data/scalars.json`: a train line carries `epoch` and the global iteration as its
    `step`, the evaluation after it no `epoch` and the epoch's number as its `step`), and the
    step it belongs at: the last train line's. Read as steps they went back to 1, 2, 3: every
    evaluation a restart. The sign: a line without the epoch key whose step is at most the
    epoch of the last train line and below that line's step."""
    n = len(steps)
    evals = np.zeros(n, dtype=bool)
    at = np.zeros(n, dtype=np.int64)
    if (epochs < 0).all() and state.last_train is None:
        return evals, at
    train = ok & (epochs >= 0)
    seq = np.arange(n)
    last = np.maximum.accumulate(np.where(train, seq, -1))
    prev_step = np.where(last >= 0, steps[np.maximum(last, 0)], -1)
    prev_epoch = np.where(last >= 0, epochs[np.maximum(last, 0)], -1)
    if state.last_train is not None:  # the train line before this chunk
        prev_step = np.where(last >= 0, prev_step, state.last_train[0])
        prev_epoch = np.where(last >= 0, prev_epoch, state.last_train[1])
    evals = ok & (epochs < 0) & (prev_epoch >= 0) & (steps <= prev_epoch) & (steps < prev_step)
    if train.any():
        i = int(np.flatnonzero(train)[-1])
        state.last_train = (int(steps[i]), int(epochs[i]))
    return evals, prev_step


def _epochs(frame: pd.DataFrame, step_key: str | None, n: int) -> np.ndarray:
    """Each line's whole epoch (-1: none), when the step is another key."""
    col = next((c for c in frame.columns if str(c).lower() == "epoch"), None)
    if col is None or col == step_key:
        return np.full(n, -1, dtype=np.int64)
    cells = json_cells(frame[col])
    epochs, ok = integral_steps(np.where(cells.keep, cells.values, np.nan))
    return np.where(ok, epochs, -1)


def _fold_epochs(state: _State) -> None:
    """A step that counts within each epoch (mmdetection's `iter`, reset every epoch) becomes
    epoch x (largest step + 1) + step, so a new epoch is no restart."""
    if not state.line_steps:
        return
    epoch = np.concatenate(state.line_epochs)
    if len(epoch) == 0 or (epoch < 0).any():
        return
    step, run = np.concatenate(state.line_steps), np.concatenate(state.line_runs)
    if not (counts_within_epoch(epoch, step, run) or same_count_each_epoch(epoch, step, run)):
        return
    steps = state.builder.added_steps()
    epochs = np.concatenate(state.point_epochs)
    per = int(step.max()) + 1
    # epochs counted from 1 (mmcv's `runner.epoch + 1`) start at 0 epochs done: a log from the
    # first epoch starts where its run started, not one epoch into it; a val line's `iter`
    # counts the val set's batches (or images), past the epoch's: it sits at the epoch's end
    first = 1 if epoch.min() >= 1 else 0
    within = np.minimum(steps, per - 1)
    state.builder.replace_steps(np.where(epochs >= 0, (epochs - first) * per + within, steps))
    done = "epoch" if first == 0 else "(epoch - 1)"
    state.warns.add(
        f"{state.step_key!r} starts again at every epoch: steps are {done} x {per} + "
        f"{state.step_key}"
    )


def _long(state: _State, chunk: RecordChunk | FrameChunk) -> None:
    frame = pd.DataFrame.from_records(chunk.records)
    lines = np.asarray(chunk.lines)
    key = next(k for k in _METRIC_KEYS if k in frame.columns)
    names = frame[key]
    named = names.map(lambda v: isinstance(v, str)).to_numpy(dtype=bool)
    state.note_bad(~named, lines, key)
    if state.step_key is None and state.records == 0:
        state.step_key = choose_step_key([c for c in frame.columns if c != key])
    steps, ok = state.steps(
        frame[state.step_key] if state.step_key in frame.columns else None, lines
    )
    cells = json_cells(frame["value"]) if "value" in frame.columns else None
    keep = named & ok & (cells.keep if cells is not None else False)
    if cells is not None:
        state.note_bad(cells.bad & named & ok, lines, "value")
    run_codes: np.ndarray | int = state.run_code
    if "run" in frame.columns:
        runs = frame["run"][keep]
        named_run = runs.map(lambda v: isinstance(v, str)).to_numpy(dtype=bool)
        run_codes = np.full(len(runs), state.run_code, dtype=np.int32)
        run_codes[named_run] = state.builder.runs.codes(runs[named_run])
    if "role" in frame.columns:
        for metric, role in zip(names[keep], frame["role"][keep], strict=True):
            if isinstance(role, str) and role in ROLES:
                state.defaults.setdefault(metric, role)
    wall = None
    wall_key = next((k for k in ("wall_time", "_timestamp", "timestamp") if k in frame), None)
    if wall_key:
        w = json_cells(frame[wall_key])
        wall = _wall_seconds(np.where(w.keep, w.values, np.nan))[keep]
    codes = state.builder.metrics.codes(names[keep].astype(str))
    values = cells.values[keep] if cells is not None else np.empty(0)
    labels = None
    if "segment" in frame.columns:  # a normalised frame written out: its segments as they were
        labels = state.builder.label_codes(frame["segment"][keep])
    state.builder.add(run_codes, codes, steps[keep], values, wall, labels)


def _null_losses(state: _State) -> frozenset[str]:
    """The loss keys to read as NaN: those that held only nulls, in a log where no loss key held
    a number. JSON has no NaN, and JavaScript's JSON.stringify and pandas' to_json write a NaN as
    null, so a run whose loss was NaN throughout logs exactly that; a null beside a loss logged
    elsewhere in the file (`val_loss` null on the train lines) is a value not logged there."""
    losses = {k for k in state.null_keys - state.valued_keys if infer_role(k) in _LOSS_ROLES}
    if not losses or state.loss_valued:
        return frozenset()
    return frozenset(losses)


def read(
    path: Path, *, run: str | None = None, roles: Mapping[str, str] | None = None
) -> IngestResult:
    path = Path(path)
    require_nonempty(path)
    first = _read(path, run, roles, frozenset())
    if isinstance(first, IngestResult):
        return first
    again = _read(path, run, roles, first)
    assert isinstance(again, IngestResult)  # a pass given its null losses never asks again
    return again


def _read(
    path: Path, run: str | None, roles: Mapping[str, str] | None, null_as_nan: frozenset[str]
) -> IngestResult | frozenset[str]:
    """One pass over the file; the loss keys to read again with their nulls as NaN when the
    pass found only nulls in every loss key (`_null_losses`)."""
    state = _State(path, default_run_name(path))
    state.null_as_nan = null_as_nan
    detail = None
    chunks: Iterable[RecordChunk | FrameChunk] = iter_records(path, state.warns)
    head = head_text(path)
    if head and not _json_lines(head) and looks_like_records(head):
        document = records_document(path, state.warns)
        if document is None:
            raise EmptyInputError("no list of records holding a loss in this JSON", file=str(path))
        chunks, detail = [document[0]], document[1]
    for chunk in chunks:
        if state.long is None:
            first = chunk.records[0]
            state.long = "value" in first and any(
                isinstance(first.get(k), str) for k in _METRIC_KEYS
            )
        (_long if state.long else _wide)(state, chunk)
        state.records += len(chunk.lines)
    if not state.long:
        _fold_epochs(state)
    if state.unstepped:
        state.warns.add(
            f"{state.unstepped} line(s) before the first {state.step_key!r} "
            "skipped: no step to give them"
        )
    if state.carried:
        state.warns.add(
            f"{state.carried} line(s) without {state.step_key!r} took the step of the line before"
        )
    if state.bad and state.first_bad:
        line, key = state.first_bad
        state.warns.add(f"{state.bad} non-numeric value(s) skipped (first: key {key!r})", line=line)
    nulls = frozenset() if state.long or null_as_nan else _null_losses(state)
    if nulls:
        return nulls
    if null_as_nan:
        names = ", ".join(repr(k) for k in sorted(null_as_nan)[:3])
        state.warns.add(
            f"{names} held only nulls and no loss key held a number: read as NaN, since JSON has "
            "no NaN and JavaScript's JSON.stringify and pandas' to_json write a NaN as null"
        )
    if state.builder.points == 0:
        logged = read_messages(path, run=run or default_run_name(path), roles=roles)
        if logged is not None:
            return logged
        found = state.warns.finish()  # why the objects gave nothing, when the reader noticed
        why = f" ({'; '.join(w.message for w in found[:2])})" if found else ""
        raise EmptyInputError(
            f"no numeric points in {state.records} JSON object(s){why}",
            file=str(path),
        )
    frame = state.builder.build(roles, default_roles=state.defaults, warns=state.warns)
    return IngestResult(
        apply_run_name(frame, run),
        state.warns.finish(),
        format=FORMAT,
        files=[str(path)],
        detail=detail,
    )
