"""Reads console text with one style: lines -> records (counters + metrics) -> points.

A *record* is one line that carries metrics: its counters (epoch, step, batch; a line with
metrics but no counter takes the last counters seen, so a step printed on one line and its
losses on the next are one record), whether it is a train, eval or summary line, and its run
and segment. Metric values are kept as logged. The step axis is chosen once per file, after
reading: the logged step/iteration when there is one; else epoch x batches-per-epoch + batch;
else the epoch (a metric printed several times within one epoch gets consecutive sub-steps).
Memory is bounded by the points kept: values are packed into arrays every CHUNK records.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Iterable
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from lossforensics.classifiers.roles import infer_role
from lossforensics.ingest.console._prefix import strip_prefix
from lossforensics.ingest.console._style import Style

CHUNK = 65_536
LOSS_ROLES = ("train_loss", "val_loss")
MIN_LOSS_POINTS = 2  # a single loss-like number is a coincidence, not a series
CONTEXT_MAX_WORDS = 3  # prose allowed on a metrics-only line that borrows the last counters
CONTEXT_SPAN = 12  # lines after a counter within which a metrics-only line still belongs to it
_WORD = re.compile(r"[A-Za-z]{2,}")
_DIGIT = re.compile(r"\d")
_SPLIT_WORD = re.compile(r"\b(val|valid|validation|eval|evaluation|test|dev)\b", re.I)
_HAS_SPLIT = re.compile(
    r"(?:^|[^a-z])(?:val|valid|validation|eval|evaluation|test|dev|train|training|predict)"
    r"(?:[^a-z]|$)|^(?:Val|Train|Test|Eval|Valid)[A-Z_]",
    re.I,
)
TRAIN, EVAL, SUMMARY = 0, 1, 2


@dataclass
class Parsed:
    """What one style made of a text: records, points and counts."""

    style: Style
    lines: int = 0
    records: int = 0
    keys: dict[str, int] = field(default_factory=dict)
    runs: list[str] = field(default_factory=lambda: [""])
    rec: dict[str, list[np.ndarray]] = field(default_factory=dict)
    pts: dict[str, list[np.ndarray]] = field(default_factory=dict)
    restarts: int = 0
    first_line: int | None = None

    def key_names(self) -> list[str]:
        return list(self.keys)


class Parser:
    """Feeds lines through one style, accumulating records and points."""

    def __init__(self, style: Style) -> None:
        self.style = style
        self.out = Parsed(style)
        self._context: dict[str, str] | None = None
        self._context_line = 0
        self._run = 0
        self._segment = 0
        self._rec_cols: dict[str, list] = {k: [] for k in _REC_FIELDS}
        self._pt_rec: list[int] = []
        self._pt_key: list[int] = []
        self._pt_val: list[str] = []

    # ------------------------------------------------------------------ per line

    def feed(self, lines: Iterable[str]) -> None:
        for raw in lines:
            self.out.lines += 1
            if not self.line(raw, self.out.lines) and len(_WORD.findall(raw)) >= CONTEXT_MAX_WORDS:
                self._context = None  # a log message ends a record spread over lines
            if len(self._rec_cols["line"]) >= CHUNK:
                self._flush()

    def line(self, raw: str, number: int) -> bool:
        """Read one line; True when it was a record."""
        st = self.style
        if not raw or not _DIGIT.search(raw):
            if raw and (st.restart or st.trial):
                self._headers(raw)
            return False
        text, wall = strip_prefix(raw)
        if st.restart or st.trial:
            if self._headers(text):
                return False
        if st.skip is not None and st.skip.search(text):
            return False
        if st.signature is not None and not st.signature.search(text):
            return False
        counters: dict[str, str] = {}
        rest = text
        for rx in st.counters:
            m = rx.search(rest)
            if m:
                counters.update({k: v for k, v in m.groupdict().items() if v is not None})
                rest = rest[: m.start()] + " | " + rest[m.end() :]
        own = bool(counters)
        found = []
        for m in st.pairs.finditer(rest):
            key = m["key"].strip()
            spaced = not m["sep"].strip() and " is " not in m["sep"]
            if spaced and m["sep"] and not (st.spaced and own):
                continue
            key = re.sub(r"\s+(?:is|was|=)$", "", key)
            if key in st.ignore or key.lower() in st.ignore:
                continue
            found.append((m.start(), m.end(), key, m["val"]))
        if not found:
            if own:
                self._context, self._context_line = counters, number
            return False
        gaps = [rest[: found[0][0]], rest[found[-1][1] :]]
        gaps += [rest[a[1] : b[0]] for a, b in zip(found, found[1:], strict=False)]
        words = sum(len(_WORD.findall(g)) for g in gaps)
        if words > (st.max_words if own else CONTEXT_MAX_WORDS):
            return False
        if own:
            self._context, self._context_line = counters, number
        elif (
            st.context and self._context is not None and number - self._context_line <= CONTEXT_SPAN
        ):
            counters = self._context
        elif st.needs_counter:
            return False
        kind = TRAIN
        prefix = ""
        head = rest[: found[0][0]]
        if st.eval is not None and (m := st.eval.search(text)):
            kind = EVAL
            word = m.groupdict().get("split")
            prefix = f"{word}/" if word else st.prefix_eval
        elif st.summary is not None and st.summary.search(text):
            kind = SUMMARY
            prefix = "summary/"
        elif st.eval is None and (m := _SPLIT_WORD.search(head)):
            kind = EVAL
            prefix = f"{m.group(1)}/"
        rec = len(self._rec_cols["line"]) + self.out.records
        cols = self._rec_cols
        cols["line"].append(number)
        cols["epoch"].append(int(counters.get("epoch", -1)))
        cols["step"].append(int(counters.get("step", -1)))
        cols["batch"].append(int(counters.get("batch", -1)))
        cols["kind"].append(kind)
        cols["run"].append(self._run)
        cols["segment"].append(self._segment)
        cols["wall"].append(wall)
        keys = self.out.keys
        for _, _, key, val in found:
            name = prefix + key if prefix and not _HAS_SPLIT.search(key) else key
            code = keys.get(name)
            if code is None:
                code = keys[name] = len(keys)
            self._pt_rec.append(rec)
            self._pt_key.append(code)
            self._pt_val.append(val)
        if self.out.first_line is None:
            self.out.first_line = number
        return True

    def _headers(self, text: str) -> bool:
        st = self.style
        if st.trial is not None and (m := st.trial.search(text)):
            name = (m.groupdict().get("trial") or str(len(self.out.runs))).strip()
            self.out.runs.append(f"trial {name}")
            self._run = len(self.out.runs) - 1
            self._segment = 0
            self._context = None
            return True
        if st.restart is not None and st.restart.search(text):
            if self._rec_cols["line"] or self.out.records:
                self._segment += 1
                self.out.restarts += 1
            self._context = None
            return True
        return False

    # ------------------------------------------------------------------ packing

    def _flush(self) -> None:
        cols = self._rec_cols
        if not cols["line"]:
            return
        for k, dtype in _REC_FIELDS.items():
            self.out.rec.setdefault(k, []).append(np.asarray(cols[k], dtype=dtype))
            cols[k] = []
        self.out.records += len(self.out.rec["line"][-1])
        self.out.pts.setdefault("rec", []).append(np.asarray(self._pt_rec, dtype=np.int64))
        self.out.pts.setdefault("key", []).append(np.asarray(self._pt_key, dtype=np.int32))
        self.out.pts.setdefault("val", []).append(_floats(self._pt_val))
        self._pt_rec, self._pt_key, self._pt_val = [], [], []

    def finish(self) -> Parsed:
        self._flush()
        return self.out


_REC_FIELDS: dict[str, type] = {
    "line": np.int64,
    "epoch": np.int64,
    "step": np.int64,
    "batch": np.int64,
    "kind": np.int8,
    "run": np.int32,
    "segment": np.int64,
    "wall": np.float64,
}


def _floats(values: list[str]) -> np.ndarray:
    try:
        return np.asarray(values, dtype=np.float64)
    except (ValueError, OverflowError):
        return np.array([_float(v) for v in values], dtype=np.float64)


def _float(v: str) -> float:
    try:
        return float(v)
    except (ValueError, OverflowError):
        return float("nan")


# ---------------------------------------------------------------------- points


@dataclass
class Points:
    """The parsed text as long arrays, with the step axis chosen."""

    run: np.ndarray
    metric: np.ndarray
    step: np.ndarray
    value: np.ndarray
    wall: np.ndarray
    segment: np.ndarray
    names: list[str]
    runs: list[str]
    axis: str
    roles: dict[str, str]


def _cat(parts: list[np.ndarray] | None, dtype: type) -> np.ndarray:
    return np.concatenate(parts) if parts else np.empty(0, dtype=dtype)


def to_points(parsed: Parsed) -> Points:
    rec = {k: _cat(parsed.rec.get(k), t) for k, t in _REC_FIELDS.items()}
    p_rec = _cat(parsed.pts.get("rec"), np.int64)
    p_key = _cat(parsed.pts.get("key"), np.int32)
    p_val = _cat(parsed.pts.get("val"), np.float64)
    names = parsed.key_names()
    step, axis, renamed = _steps(rec, p_rec, p_key, names)
    names = renamed
    roles = _roles(parsed.style, names)
    return Points(
        run=rec["run"][p_rec] if len(p_rec) else np.empty(0, np.int32),
        metric=p_key,
        step=step,
        value=p_val,
        wall=rec["wall"][p_rec] if len(p_rec) else np.empty(0),
        segment=_segments(rec, step, p_rec)[p_rec] if len(p_rec) else np.empty(0, np.int64),
        names=names,
        runs=parsed.runs,
        axis=axis,
        roles=roles,
    )


def _ffill(values: np.ndarray, groups: np.ndarray) -> np.ndarray:
    """Missing (-1) entries take the last value before them in the same group (else 0)."""
    s = pd.Series(np.where(values >= 0, values, np.nan))
    return s.groupby(groups).ffill().fillna(0).to_numpy(dtype=np.int64)


def _steps(
    rec: dict[str, np.ndarray], p_rec: np.ndarray, p_key: np.ndarray, names: list[str]
) -> tuple[np.ndarray, str, list[str]]:
    """Per point: the step, a phrase saying which axis it is, and the metric names (epoch-end
    lines of a batch-level log are renamed `epoch/...` so they do not mix with the batches)."""
    if not len(p_rec):
        return np.empty(0, np.int64), "none", names
    epoch, step, batch, run = rec["epoch"], rec["step"], rec["batch"], rec["run"]
    if (step >= 0).any():
        return _ffill(step, run)[p_rec], "the logged step/iteration", names
    if (batch >= 0).any():
        per_epoch = int(batch.max()) + 1
        ep = np.maximum(epoch, 0)
        end_of_epoch = batch < 0
        s = np.where(end_of_epoch, ep * per_epoch + per_epoch - 1, ep * per_epoch + batch)
        s = _eval_at_last_train(s, rec)
        at_end = end_of_epoch[p_rec]
        epoch_keys = np.unique(p_key[at_end])
        new_code = np.full(len(names), -1, dtype=np.int32)
        new_code[epoch_keys] = len(names) + np.arange(len(epoch_keys), dtype=np.int32)
        p_key[at_end] = new_code[p_key[at_end]]  # epoch-end lines: their own series
        names = [*names, *(f"epoch/{names[k]}" for k in epoch_keys)]
        axis = f"epoch x {per_epoch} + batch (batches per epoch taken as the largest logged + 1)"
        return s[p_rec], axis, names
    if (epoch >= 0).any():
        ep = _ffill(epoch, run)
        block = np.r_[0, np.cumsum((np.diff(ep) != 0) | (np.diff(run) != 0))]
        frame = pd.DataFrame({"block": block[p_rec], "key": p_key})
        occ = frame.groupby(["block", "key"], sort=False).cumcount().to_numpy()
        count = frame.groupby(["block", "key"], sort=False)["key"].transform("size").to_numpy()
        per = int(count.max())
        if per == 1:
            return ep[p_rec], "the epoch", names
        sub = np.where(count > 1, occ, per - 1)
        return ep[p_rec] * per + sub, f"epoch x {per} + the line's place within the epoch", names
    ordinal = np.maximum(np.cumsum(rec["kind"] == TRAIN) - 1, 0)
    return ordinal[p_rec], "the order of the train lines (no step, iteration or epoch)", names


def _eval_at_last_train(s: np.ndarray, rec: dict[str, np.ndarray]) -> np.ndarray:
    """Evaluation lines count their own batches: they are placed at the last train step."""
    is_eval = rec["kind"] == EVAL
    if not is_eval.any():
        return s
    train_s = pd.Series(np.where(is_eval, np.nan, s)).groupby(rec["run"]).ffill().fillna(0)
    return np.where(is_eval, train_s.to_numpy(dtype=np.int64), s)


def _segments(rec: dict[str, np.ndarray], step: np.ndarray, p_rec: np.ndarray) -> np.ndarray:
    """Per record: the session it belongs to: +1 at a restart header, and +1 where the train
    step goes back."""
    n = len(rec["line"])
    first = np.full(n, -1, dtype=np.int64)
    order = np.arange(len(p_rec))[::-1]
    first[p_rec[order]] = step[order]  # the step of each record's first point
    seg = rec["segment"].copy()
    train = (rec["kind"] == TRAIN) & (first >= 0)
    idx = np.flatnonzero(train)
    if len(idx) > 1:
        back = np.zeros(n, dtype=np.int64)
        same_run = rec["run"][idx[1:]] == rec["run"][idx[:-1]]
        went_back = (first[idx[1:]] < first[idx[:-1]]) & same_run
        back[idx[1:][went_back]] = 1
        seg = seg + pd.Series(back).groupby(rec["run"]).cumsum().to_numpy()
    return seg


def _roles(style: Style, names: list[str]) -> dict[str, str]:
    """The style's role hints, matched against the metric names (exact or glob)."""
    out: dict[str, str] = {}
    for name in names:
        bare = name.split("/", 1)[1] if name.startswith("epoch/") else name
        for pattern, role in style.roles.items():
            if fnmatch.fnmatchcase(bare, pattern):
                if name.startswith(("epoch/", "summary/")):
                    role = "other"
                elif role == "train_loss" and name != bare:
                    role = "other"
                out[name] = role
                break
        else:
            if name.startswith(("epoch/", "summary/")):
                out[name] = "other"
    return out


def loss_points(points: Points) -> int:
    """How many points belong to a loss-like series (a train or val loss, by the style's hints
    or the general inference) with at least MIN_LOSS_POINTS points."""
    if not len(points.metric):
        return 0
    counts = np.bincount(points.metric, minlength=len(points.names))
    total = 0
    for code, name in enumerate(points.names):
        role = points.roles.get(name) or infer_role(name)
        if role in LOSS_ROLES and counts[code] >= MIN_LOSS_POINTS:
            total += int(counts[code])
    return total
