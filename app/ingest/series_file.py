"""A file of bare numbers whose name says what they are: `np.savetxt("train_loss.txt", losses)`,
a `loss_log.txt` a script appends `epoch,loss` to, a `log_train.txt` + `log_val.txt` pair,
d3rlpy's headerless `critic_loss.csv` (`epoch,step,value`: the step is the counter).

Each non-blank line holds one value, or a whole-number counter (the epoch or step) and a value,
separated by a comma, semicolon, tab or spaces; or, in a file naming the training loss and with
no title line, an optional counter and several values (`f"{epoch},{loss},{acc},{val_loss}"`,
`f"{loss} ,{val_loss}"`): the first is that loss, the others are kept as `<stem>/column<k>` (k,
the column in the line from 1), role `other` (a script writes an accuracy there as often as a
validation loss; `--role` names them), with a warning. A file of one line of numbers
(`pd.Series(losses).to_frame().T.to_csv()`: an empty index cell, then the values) is one value a
step. One title line without digits may come first (`loss`); a title that names something else
(`% mean class accuracy`) says the numbers are no loss, and a CSV header (`,loss0,loss1`) over
lines of several values makes the file a table, the CSV readers'. Otherwise nothing in the file
names the metric, so the file name does: its stem, read without the words that only say it is
a record (`log`, `history`, `values`, ...), must name a training or validation loss
(`loss_log` -> the training loss, `log_val` -> the validation loss).
A split's name beside such a record word is that split's loss, as a script's `train=2.56,
val=2.37` is; a bare `train.txt` or `val.txt` is as often a dataset's split and is left alone.
A file whose name does not name a loss is not claimed: a column of numbers called `results.txt`
or `accuracy.txt` could be anything; nor is a file of whole numbers only (the ids or labels of
a split list). The counter, when printed, is the step; else the line's position (0-based) is,
and a warning says so. A folder's series files are one run, each file one metric, the way an
MLflow run keeps one file per metric; beside its loss files, a file of one value a line under a
score's name (`val_acc.txt`) is that run's score. A line that holds something else (a number
cut short, a message) is skipped with a warning naming it.
The same numbers saved as one JSON array are read alike: `json.dump(losses, f)` (a list of
values, the position the step) or a list of rows `[counter, value]`; a row of two values after
the counter, `[step, train, val]`, is the training and the validation loss in that order, the
order a loop over `("train", "val")` writes them (nanoGPT's `estimate_loss`); a warning says so,
and `--role` names them otherwise.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import NamedTuple

import numpy as np
from lossforensics.classifiers.errors import InputError, UnknownFormatError
from lossforensics.classifiers.roles import infer_role
from lossforensics.ingest._builder import FrameBuilder, Warnings
from lossforensics.ingest._numpy_files import npy_array
from lossforensics.ingest._source import (
    apply_run_name,
    head_text,
    metric_files,
    parts_as_folders,
)
from lossforensics.ingest.base import IngestResult
from lossforensics.ingest.console._style import NUM

FORMAT = "series_file"

# one point: an optional whole-number counter, then the value (most lines: read in one match)
_POINT = re.compile(rf"\s*(?:(?P<ctr>\d+)\s*(?:[,;\t]\s*|\s+))?(?P<val>{NUM})\s*[,;]?\s*")
# between two numbers of a line: a comma, semicolon or tab (spaces around it allowed), or spaces
_SEP = re.compile(r"\s*[,;\t]\s*|\s+")
_NUMBER = re.compile(NUM)
# a counter: a whole number
_WHOLE = re.compile(r"\d+")
# a value a loss takes: a fraction, an exponent or a non-finite value, not a whole number
_REAL = re.compile(r"[.eEnN]")
# a title line: words only, no digit (`loss`, `% mean class accuracy`)
_TITLE = re.compile(r"[^\d\n]*")
# words that say a file records a run (beside a split's name, they make it that split's loss)
_RECORD_WORDS = frozenset(
    {"log", "logs", "history", "hist", "record", "records", "curve", "curves"}
)
# words of a file name that say it is a record of something, not what it records
_FILLER = _RECORD_WORDS | {
    "values",
    "value",
    "list",
    "data",
    "file",
    "per",
    "epoch",
    "epochs",
    "step",
    "steps",
    "iter",
    "all",
    "my",
    "txt",
    "out",
}
_LOSS_ROLES = ("train_loss", "val_loss")
# a score's file is read beside a folder's loss files (`loss.txt`, `val_loss.txt`, `val_acc.txt`)
_SCORE_ROLES = ("train_score", "val_score")
# points a sniff must see before claiming a file: fewer are no curve
_MIN_POINTS = 3
# one line in this many (at least one) may be something else: a number cut short, a message
_BAD_SHARE = 50
# lines looked at by the sniff (the head of a long file says what it is)
_SNIFF_LINES = 200
# a JSON array is parsed whole: one larger than this is no list of one value an epoch or step
_MAX_JSON_BYTES = 16 << 20
# a JSON array's rows: the counter and one value, or the counter, a train and a val value
_ROW_WIDTHS = (2, 3)


class _Line(NamedTuple):
    """A line of bare numbers: its counter (a leading whole number before a value) and its
    values, as written."""

    ctr: str | None
    values: tuple[str, ...]

    @property
    def shape(self) -> tuple[bool, int]:
        return self.ctr is not None, len(self.values)


def _numbers(line: str) -> _Line | None:
    """The line's numbers, or None when anything else is on it. A separator may end the line
    (`0.5,`), or begin it where an index cell was left empty (`,0.72,0.39`)."""
    point = _POINT.fullmatch(line)
    if point is not None:
        return _Line(point["ctr"], (point["val"],))
    text = line.strip().lstrip("\ufeff")
    text = text[1:] if text[:1] in (",", ";") else text
    text = text[:-1] if text[-1:] in (",", ";") else text
    cells = _SEP.split(text.strip())
    if not cells or not all(_NUMBER.fullmatch(c) for c in cells):
        return None
    if _epoch_step_value(cells):
        return _Line(cells[1], (cells[2],))
    if len(cells) > 1 and _WHOLE.fullmatch(cells[0]):
        return _Line(cells[0], tuple(cells[1:]))
    return _Line(None, tuple(cells))


def _epoch_step_value(cells: list[str]) -> bool:
    """The epoch, the step and a value (d3rlpy's `critic_loss.csv`: `1,1000,3.4779`): two whole
    numbers, the step no smaller than the epoch, then a number that is not whole. The step is
    the counter; the epoch is dropped."""
    return (
        len(cells) == 3
        and bool(_WHOLE.fullmatch(cells[0]))
        and bool(_WHOLE.fullmatch(cells[1]))
        and int(cells[1]) >= int(cells[0])
        and bool(_REAL.search(cells[2]))
    )


def _is_title(line: str) -> bool:
    """A title line: words without a digit (`loss`), or a CSV header, names only (`,loss0,acc0`)."""
    if _TITLE.fullmatch(line):
        return True
    cells = [c for c in _SEP.split(line.strip().strip(",;")) if c]
    return bool(cells) and not any(_NUMBER.fullmatch(c) for c in cells)


def _as_series(line: _Line) -> tuple[str, ...]:
    """A line's numbers read as one series (a row of values: its first number is no counter)."""
    return line.values if line.ctr is None else (line.ctr, *line.values)


def _stem_tokens(path: Path) -> list[str]:
    """The words and numbers of a file's stem: `log_val.txt` -> ['log', 'val']."""
    return [w for w in re.split(r"[^A-Za-z0-9]+", path.name.split(".")[0]) if w]


def role_of_name(path: Path) -> str:
    """The role the file name gives its numbers: `log_val.txt` -> val_loss. A split's name
    alone names its loss only beside a word saying the file is a record (`log_val`,
    `train_history`): a bare `train.txt` or `val.txt` is as often a dataset's split."""
    tokens = _stem_tokens(path)
    words = [w for w in tokens if w.lower() not in _FILLER]
    if not words:
        return "other"
    named_loss = any("loss" in w.lower() for w in words)
    if not named_loss and not _RECORD_WORDS & {w.lower() for w in tokens}:
        return "other"
    return infer_role("_".join(words))


def _number(value: object) -> bool:
    return value is None or (isinstance(value, int | float) and not isinstance(value, bool))


def json_list(path: Path, min_items: int) -> list | None:
    """The JSON array a file holds (of at least `min_items` items), parsed; None for any other
    file (other JSON, no JSON, larger than `_MAX_JSON_BYTES`)."""
    if path.stat().st_size > _MAX_JSON_BYTES:
        return None
    try:
        doc = json.loads(path.read_bytes())
    except (ValueError, RecursionError):
        return None
    return doc if isinstance(doc, list) and len(doc) >= min_items else None


def number_rows(doc: list, width: int) -> np.ndarray | None:
    """The rows of `doc` as floats (a null as NaN) when every one is a list of `width`
    numbers; None otherwise."""
    if not all(isinstance(r, list) and len(r) == width and all(_number(v) for v in r) for r in doc):
        return None
    return np.array([[np.nan if v is None else v for v in r] for r in doc], dtype=np.float64)


def json_array(path: Path) -> tuple[np.ndarray, np.ndarray, bool] | None:
    """(steps, values: one column per value, counted) of a JSON array of numbers (the position
    is the step), or of rows [counter, value, ...] (`_points`); None for any other file."""
    doc = json_list(path, _MIN_POINTS)
    if doc is None:
        return None
    if all(_number(v) for v in doc):
        return _points(np.array([np.nan if v is None else v for v in doc], dtype=np.float64))
    width = len(doc[0]) if isinstance(doc[0], list) else 0
    rows = number_rows(doc, width) if width in _ROW_WIDTHS else None
    return None if rows is None else _points(rows)


def npy_points(
    path: Path, warns: Warnings | None = None
) -> tuple[np.ndarray, np.ndarray, bool] | None:
    """The same from a NumPy `.npy` file (`np.save("train_loss.npy", losses)`): a 1-D array
    (a column vector too), or rows [counter, value, ...]; None for any other array. A file cut
    short gives its whole rows before the cut, said in `warns`."""
    found = npy_array(path) if path.suffix.lower() == ".npy" else None
    if found is None or len(found[0]) < _MIN_POINTS:
        return None
    values, cut = found
    if cut is not None and warns is not None:
        warns.add(
            f"the array is cut short: the {len(values)} whole row(s) before the cut were read",
            byte=cut,
        )
    if values.ndim == 2 and values.shape[1] == 1:
        values = values[:, 0]
    return _points(values)


def _points(values: np.ndarray) -> tuple[np.ndarray, np.ndarray, bool] | None:
    """(steps, values: one column per value, counted) of numbers: a series (the position is the
    step) or rows [counter, value, ...] whose counter is a whole number that goes up (counted);
    None for rows of another width or without such a counter, or for whole numbers only (ids,
    not a loss)."""
    if values.ndim == 1:
        steps, columns, counted = np.arange(len(values), dtype=np.int64), values[:, None], False
    else:
        if values.shape[1] not in _ROW_WIDTHS:
            return None
        counter = values[:, 0]
        if not np.isfinite(counter).all() or (counter != np.round(counter)).any():
            return None
        if (np.diff(counter) <= 0).any():
            return None
        steps, columns, counted = counter.astype(np.int64), values[:, 1:], True
    finite = columns[np.isfinite(columns)]
    if not len(finite) or (finite == np.round(finite)).all():
        return None
    return steps, columns, counted


def score_of_name(path: Path) -> str | None:
    """The score role a file's name gives its numbers (`val_acc.txt` -> val_score), or None. Read
    only beside the loss files of the same folder: alone, a column of numbers called
    `accuracy.txt` could be anything."""
    words = [w for w in _stem_tokens(path) if w.lower() not in _FILLER]
    role = infer_role("_".join(words)) if words else "other"
    return role if role in _SCORE_ROLES else None


def sniff(path: Path) -> bool:
    """A loss-named file whose head is bare numbers (an optional title line first), or that
    holds them as one JSON array."""
    path = Path(path)
    role = role_of_name(path)
    if role not in _LOSS_ROLES:
        return False
    return _bare_numbers(path, role)


def _bare_numbers(path: Path, role: str) -> bool:
    """Whether the file's head is bare numbers (an optional title line first) or one JSON array
    of them; lines of several values only in a file of the training loss."""
    if path.suffix.lower() == ".npy":
        try:
            found = npy_points(path)
        except InputError:
            return False
        return found is not None and (found[1].shape[1] == 1 or role == "train_loss")
    text = head_text(path)
    if not text:
        return False
    if text.lstrip().startswith("["):
        found = json_array(path)
        return found is not None and (found[1].shape[1] == 1 or role == "train_loss")
    lines = [ln for ln in text.splitlines()[:_SNIFF_LINES] if ln.strip()]
    if path.stat().st_size > len(text.encode()) and len(lines) > 1:
        lines = lines[:-1]  # the head cut its last line
    titled = bool(lines) and _is_title(lines[0])
    if titled:
        if infer_role(lines[0]) not in (*_LOSS_ROLES, "other"):
            return False  # `% mean class accuracy (train set)`: the title says what they are
        lines = lines[1:]
    parsed = [_numbers(line) for line in lines]
    if len(lines) == 1 and parsed[0] is not None:
        values = _as_series(parsed[0])  # one line: a series written as a row
        return len(values) >= _MIN_POINTS and any(_REAL.search(v) for v in values)
    first = next((p for p in parsed if p is not None), None)
    if first is None:
        return False
    # several values a line under a title are a table whose header names them: a CSV reader's
    if first.shape[1] > 1 and (role != "train_loss" or titled):
        return False
    points = [p for p in parsed if p is not None and p.shape == first.shape]
    if len(points) < _MIN_POINTS or len(lines) - len(points) > max(1, len(lines) // _BAD_SHARE):
        return False
    # whole numbers only: ids or labels (a `train.txt` split list), not a loss
    return any(_REAL.search(p.values[0]) for p in points)


def pair_parts(paths: list[Path]) -> list[Path]:
    """Each folder holding two or more series files replaced by the folder: one run."""
    return parts_as_folders(paths, lambda files: files if len(files) > 1 else None)


def _read_one(path: Path, warns: Warnings) -> tuple[np.ndarray, np.ndarray, bool]:
    """(steps, values: one column per value, counted) of one file: a value a line, or lines of
    the shape of its first line of numbers (a counter or not, so many values); a file of one
    line is a series. Lines of another shape are skipped with a warning."""
    counters: list[str | None] = []
    values: list[str] = []
    shape: tuple[bool, int] | None = None
    with open(path, encoding="utf-8", errors="replace") as fh:
        for number, raw in enumerate(fh, start=1):
            line = raw.strip().lstrip("\ufeff")
            if not line:
                continue
            parsed = _numbers(line)
            if parsed is not None and shape is None:
                shape = parsed.shape
            if parsed is None or parsed.shape != shape:
                if not (number == 1 and _is_title(line)):
                    warns.add(f"not a number: skipped ({line[:60]!r})", line=number, kind="skip")
                continue
            counters.append(parsed.ctr)
            values.extend(parsed.values)
    counted, width = shape or (False, 1)
    if len(counters) == 1 and len(values) + counted >= _MIN_POINTS:
        row = [counters[0], *values] if counted else values
        series = np.array(row, dtype=np.float64)
        warns.add(f"one line of {len(series)} numbers: read as a series, one value a step")
        return np.arange(len(series), dtype=np.int64), series[:, None], False
    steps = (
        np.array(counters, dtype=np.int64) if counted else np.arange(len(counters), dtype=np.int64)
    )
    columns = np.array(values, dtype=np.float64).reshape(len(counters), width)
    return steps, columns, counted


def _array_of(file: Path, warns: Warnings) -> tuple[np.ndarray, np.ndarray, bool] | None:
    """The points of a file that holds them as one array (`.npy`, a JSON array), or None for
    a text file of lines."""
    if file.suffix.lower() == ".npy":
        found = npy_points(file, warns)
        if found is None:
            raise UnknownFormatError(
                "not a loss curve: a NumPy array of numbers (a value a step, or rows of a "
                "counter and values) was expected",
                file=str(file),
            )
        return found
    return json_array(file) if (head_text(file) or "").lstrip().startswith("[") else None


def _scores_beside(folder: Path, files: list[Path]) -> list[Path]:
    """The folder's score files (`val_acc.txt` beside `loss.txt`): bare numbers of one value a
    line under a score's name, read as the same run's score."""
    return [
        f
        for f in sorted(folder.iterdir())
        if f.is_file()
        and f not in files
        and f.stat().st_size
        and (role := score_of_name(f)) is not None
        and _bare_numbers(f, role)
    ]


def _kept_columns(
    name: str, role: str, width: int, counted: bool, warns: Warnings
) -> dict[str, str]:
    """The metrics of lines of several values: the first is the loss the file name names, the
    others are kept as `<name>/column<k>` (k, the column in the line from 1), role other."""
    first = 2 if counted else 1
    others = [f"{name}/column{first + j}" for j in range(1, width)]
    shown = ", ".join(others)
    warns.add(
        f"each line holds {'a counter and ' if counted else ''}{width} values: the first is read "
        f"as the {role.replace('_', ' ')} (from the file name); the others, as likely scores as "
        f"a validation loss, are kept as {shown}; --role '{others[0]}=val_loss' reads one as "
        "the validation loss"
    )
    return {name: role, **dict.fromkeys(others, "other")}


def read(
    path: Path, *, run: str | None = None, roles: Mapping[str, str] | None = None
) -> IngestResult:
    """Read one series file, or a folder's series files as one run."""
    files, run_name = metric_files(
        Path(path),
        sniff,
        none_here="no loss-named file of bare numbers here",
        not_one="not a series file: a loss-named file of bare numbers, one per line",
    )
    if Path(path).is_dir():
        files += _scores_beside(Path(path), files)
    builder = FrameBuilder()
    run_code = builder.runs.code(run_name)
    warnings = []
    own_roles: dict[str, str] = {}
    for file in files:
        warns = Warnings(str(file))
        name = file.name.split(".")[0]
        array = _array_of(file, warns)
        if array is not None:
            steps, columns, counted = array
        else:
            steps, columns, counted = _read_one(file, warns)
        file_role = score_of_name(file) or role_of_name(file)
        if columns.shape[1] == 1:
            named = {name: file_role}
        elif array is None:
            named = _kept_columns(name, file_role, columns.shape[1], counted, warns)
        else:
            named = {f"{name}/train": "train_loss", f"{name}/val": "val_loss"}
            warns.add(
                "two values after each counter read as the training and the validation loss, "
                "in that order; --role NAME=ROLE says otherwise"
            )
        for j, (metric, role_name) in enumerate(named.items()):
            own_roles[metric] = role_name
            code = builder.metrics.code(metric)
            n = len(steps)
            builder.add(run_code, np.full(n, code, dtype=np.int32), steps, columns[:, j])
        role = file_role.replace("_", " ")
        where = "array" if array is not None else "line"
        how = "the counter before each value" if counted else f"the {where} positions (from 0)"
        if columns.shape[1] == 1 or not counted:
            warns.add(f"bare numbers read as the {role} (from the file name); steps are {how}")
        warnings.extend(warns.finish())
    merged = {**own_roles, **(roles or {})}
    frame = builder.build(merged)
    return IngestResult(
        apply_run_name(frame, run), warnings, format=FORMAT, files=[str(f) for f in files]
    )
