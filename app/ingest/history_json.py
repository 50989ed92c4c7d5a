"""A training history saved as one object of metric -> values: Keras'
`json.dump(history.history, f)` (`{"loss": [0.9, 0.6, ...], "val_loss": [...]}`, one value an
epoch), pandas' `DataFrame(history.history).to_json()` (`{"loss": {"0": 0.9, "1": 0.6},
...}`, the index label before each value), and the Python repr people save instead
(`json.dump(str(history.history), f)`: a JSON string holding `{'loss': [0.9, nan], ...}`, or the
repr written as text, or printed after a label on the first line: `train history: {'loss':
[...], ...}`, read up to its closing brace). Pretty-printed or on one line alike; keys that are no
series (a timestamp, a model name, a final test score) may come first.

A history kept one level down is read too: under a key beside the run's other fields
(`{"epochs": [...], "metrics": {"loss": [...], ...}}`) or one object per split (`{"train":
{"loss": [...]}, "val": {"loss": [...]}}`); its series are named `outer/inner` (`val/loss`). In
a file whose name says it holds losses (`loss_history.json`, as `series_file` reads names), a
list under a split's bare name (`"train"`, `"val"`) is that split's loss.

An object whose keys name runs, each holding a history (`{"MLP": {"train_loss": [...], ...},
"CNN": {...}}`: a comparison of models saved in one file), is read as one run a key
(`history/MLP`), each as a history on its own. So is a list of histories (`json.dump([h.history
for h in fold_histories], f)`: a cross-validation's folds, or a sweep's fits, one object each),
one run an item named by its position (`history/0`).

The position in a list is the epoch (0-based, as Keras' CSVLogger counts it); a pandas index
label is the step it names. A metric whose values are not all numbers (a nested list, a
string) is skipped with a warning; `null`, `NaN`/`nan` and `Infinity`/`inf` are values (`null`
as NaN). The object is taken only when its metrics hold a loss-like series (a train or
validation loss); a configuration file of the same shape is not a history. A file cut short (a
run killed while it wrote) gives the lists it still holds whole, with a warning that says where
it breaks.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Mapping
from pathlib import Path
from typing import cast

import numpy as np
from lossforensics.classifiers.errors import CorruptInputError, UnknownFormatError
from lossforensics.classifiers.roles import errors_as_losses, infer_role, name_words
from lossforensics.ingest._builder import FrameBuilder, Warnings
from lossforensics.ingest._jsonlines import parse_document
from lossforensics.ingest._numpy_files import ZIP_MAGIC, npz_array_names, npz_arrays
from lossforensics.ingest._source import (
    apply_run_name,
    default_run_name,
    head_text,
    read_head,
    require_nonempty,
)
from lossforensics.ingest._split_words import SPLIT_WORDS, TRAIN_WORDS
from lossforensics.ingest.base import IngestResult
from lossforensics.ingest.series_file import role_of_name

FORMAT = "history_json"

# a loss-named key holding a list of numbers, or an object keyed by index labels, anywhere in
# the first bytes (`"loss": [0.9`, `'val_loss': [nan`, `"loss": {"0": 0.9`): JSON or a Python
# dict's repr alike
_LOSS_SERIES = re.compile(
    r"""["'][^"'\n]{0,100}loss[^"'\n]{0,100}["']\s*:\s*"""
    r"""(?:\[\s*["']?(?:[-+]?[\d.]|NaN|nan|-?Infinity|-?inf|null|None)|\{\s*["']-?\d+["']\s*:)""",
    re.I,
)
# Sacred's `metrics.json` (its FileStorageObserver): a loss-named key holding an object of
# `steps`, `timestamps` and `values` lists
_SACRED_SERIES = re.compile(
    r"""["'][^"'\n]{0,100}loss[^"'\n]{0,100}["']\s*:\s*\{\s*["'](?:steps|timestamps|values)["']""",
    re.I,
)
# ...any metric of Sacred's `metrics.json`: it keeps its metrics sorted by name, so a run logging
# `accuracy` or `grad_*` for long puts its loss past the head (its name alone says it is Sacred's)
_SACRED_ANY = re.compile(
    r"""["'][^"'\n]{1,100}["']\s*:\s*\{\s*["'](?:steps|timestamps|values)["']\s*:\s*\["""
)
_SACRED_NAME = "metrics.json"
# a label printed before a history's dict on the first line (`train history: {'acc': [...`)
_LABEL_BEFORE_DICT = re.compile(r"[ \t]*[A-Za-z][\w .-]{0,60}?[ \t]*[:=][ \t]*(?=\{)")
# the braces a printed dict opens and closes (its numbers and quotes hold none)
_BRACE = re.compile(r"[{}]")
# a JSON-lines file starts a second object on a line of its own: not one document
_SECOND_OBJECT = re.compile(r"\n\s*\{")
# a list of histories (`json.dump([h.history for h in histories], f)`: a k-fold's or a sweep's
# fits, one object each) opens with a list and an object in it
_LIST_OF_OBJECTS = re.compile(r"\[\s*\{")
# an index label of pandas' `to_json()`: a whole number
_INDEX_LABEL = re.compile(r"-?\d+")
# one complete list of a key (what a file cut short still holds whole)
_WHOLE_LIST = re.compile(r"""["']([^"'\n]{1,200})["']\s*:\s*\[([^\[\]{}]*)\]""")
# Python's reprs of non-finite floats, as a literal can spell them (1e999 is inf)
_PY_NONFINITE = re.compile(r"(?<![\w.])(-?)(nan|inf)(?![\w.])")
_LOSS_ROLES = ("train_loss", "val_loss")
# a split's bare name holding a list of numbers (`"val": [0.9`), for a loss-named file
_SPLIT_SERIES = re.compile(
    r"""["'](""" + "|".join(sorted(SPLIT_WORDS)) + r""")["']\s*:\s*\[\s*(?:[-+]?[\d.]|NaN|null)""",
    re.I,
)
# ... anywhere when its first value is a decimal: a split's list of ids holds whole numbers
_SPLIT_DECIMALS = re.compile(
    r"""["'](""" + "|".join(sorted(SPLIT_WORDS)) + r""")["']\s*:\s*\[\s*(?:[-+]?\d*\.\d|NaN)""",
    re.I,
)
# a list under one of these keys, of whole numbers that go up, is the step of the series as long
_STEP_KEYS = ("step", "steps", "global_step", "iteration", "iterations", "iter", "epoch", "epochs")
# a history one level down holds at least this many values in a loss list: a settings file's
# nested `"loss_weights": [1.0, 0.5]` is no curve
_NESTED_MIN_POINTS = 3
# an object whose keys name runs holds two histories or more (one is a history one level down)
_MIN_RUNS = 2
# the keys a history is kept under one level down (a labels file's `{"run_a": {"loss": ...}}`
# is keyed by run, not by one of these)
_HISTORY_KEYS = SPLIT_WORDS | {"metrics", "history", "logs", "log", "scalars", "curves"}
# ... and the words of a longer key naming one (`training_history`), taken when it holds one
_HISTORY_WORDS = frozenset({"history", "histories", "logs", "curves", "scalars"})
# ... and an evaluation set's name with its index, as boosting libraries name their eval sets
# (XGBoost's `validation_0`, LightGBM's `valid_1`, `training`; `evals_result()` saved as JSON)
_EVAL_SET = re.compile(r"(?:" + "|".join(sorted(SPLIT_WORDS)) + r")[_\-]?\d+", re.I)
# an evaluation set's name holding an object whose first key holds a list of numbers, at the
# head of the document (`{"validation_0": {"logloss": [0.61, ..`; `{"train": {"rmse": [..`)
_EVAL_SET_SERIES = re.compile(
    r"""["'](?:""" + "|".join(sorted(SPLIT_WORDS)) + r""")(?:[_\-]?\d+)?["']\s*:\s*\{\s*"""
    r"""["'][^"'\n]{1,100}["']\s*:\s*\[\s*["']?(?:[-+]?[\d.]|NaN|nan)""",
    re.I,
)
# the bytes read first: a history opens with `{` (or a JSON string's `"{`) after some whitespace
_OPENING = 256
# a Python literal is evaluated only up to this size (a history is kilobytes; parsing a literal
# costs far more than parsing JSON, so a large file of another kind is not tried at length)
_MAX_LITERAL = 4 << 20


def _labelled(text: str) -> int | None:
    """Where the dict of a history printed after a label starts (`train history: {'loss':
    [...]}`: `print("train history:", h.history)`), or None."""
    m = _LABEL_BEFORE_DICT.match(text)
    return None if m is None else m.end()


def _npz_sniff(path: Path) -> bool:
    """A NumPy `.npz` archive (a zip of `.npy` arrays and nothing else) with an array named
    for a loss (`np.savez(f, **history)`): its names are read from the zip's directory, no
    array is loaded."""
    names = npz_array_names(path)
    return names is not None and any(infer_role(n) in _LOSS_ROLES for n in names)


def _npz_document(path: Path, warns: Warnings) -> dict[str, list]:
    """The history a `.npz` archive holds: each 1-D array of numbers (a column vector too) as a
    list under its name; other arrays are left out with a warning."""
    doc: dict[str, list] = {}
    others = []
    for name, values in npz_arrays(path).items():
        if values.ndim == 2 and values.shape[1] == 1:
            values = values[:, 0]
        if values.ndim == 1:
            doc[name] = values.tolist()
        else:
            others.append(name)
    if others:
        warns.add(
            f"{len(others)} array(s) of more than one column left out (first: {others[0]!r}): "
            "a history holds one series an array"
        )
    return doc


def sniff(path: Path) -> bool:
    """One object (not JSON lines), or a JSON string holding a Python dict's repr, or a dict's
    repr printed after a label on the first line, with a loss-named key of its own holding a
    list of numbers (or index-keyed numbers) in its first bytes; or a NumPy `.npz` archive of
    such arrays."""
    if read_head(Path(path), len(ZIP_MAGIC)) == ZIP_MAGIC:
        return _npz_sniff(Path(path))
    # most files tried here are tables: their first bytes rule them out before the head is read
    opening = read_head(Path(path), _OPENING)
    labelled = _LABEL_BEFORE_DICT.match(opening.decode("utf-8", errors="replace"))
    if not (opening.lstrip().startswith((b"{", b'"{', b"[", b"\xef\xbb\xbf")) or labelled):
        return False
    text = head_text(Path(path))
    if not text:
        return False
    start = _labelled(text)
    body = (text if start is None else text[start:]).lstrip()
    if body.startswith("["):
        return _sniff_history_list(Path(path), body)
    if not body.startswith(("{", '"{')) or _SECOND_OBJECT.search(body) is not None:
        return False
    # a key of the object itself (not of one nested in it: a labels file's `"loss": [...]`)
    depths = {_depth(body, m.start()) for m in _LOSS_SERIES.finditer(body)}
    if 1 in depths or any(_depth(body, m.start()) == 1 for m in _SACRED_SERIES.finditer(body)):
        return True
    if (
        Path(path).name == _SACRED_NAME
        and (m := _SACRED_ANY.search(body))
        and _depth(body, m.start()) == 1
    ):
        return True
    if 2 in depths and Path(path).stat().st_size <= _MAX_LITERAL:
        try:  # one level down: only under a key that holds a history (`"metrics"`, `"val"`)
            doc = parse_document(Path(path), Path(path).read_bytes())
        except CorruptInputError:
            return False
        return isinstance(doc, dict) and (
            any(k in doc for k in _flattened(doc, nested_only=True)) or bool(_runs_by_key(doc))
        )
    if any(_depth(body, m.start()) == 1 for m in _SPLIT_DECIMALS.finditer(body)):
        return True
    if any(_depth(body, m.start()) == 1 for m in _EVAL_SET_SERIES.finditer(body)):
        return True  # a boosting library's evals_result: {"validation_0": {"logloss": [..]}}
    return _names_losses(path) and any(
        _depth(body, m.start()) == 1 for m in _SPLIT_SERIES.finditer(body)
    )


def _sniff_history_list(path: Path, body: str) -> bool:
    """A list of two histories or more, each an object with a loss-named key of its own holding
    a list of numbers (not JSON records: a list of per-epoch objects holds numbers, not lists)."""
    if not _LIST_OF_OBJECTS.match(body) or path.stat().st_size > _MAX_LITERAL:
        return False
    if not any(_depth(body, m.start()) == 1 for m in _LOSS_SERIES.finditer(body)):
        return False
    try:
        doc = parse_document(path, path.read_bytes())
    except CorruptInputError:
        return False
    return _history_list(doc)


def _history_list(doc: object) -> bool:
    """Whether `doc` is a list of `_MIN_RUNS` histories or more, and nothing else."""
    return isinstance(doc, list) and len(doc) >= _MIN_RUNS and all(_holds_history(h) for h in doc)


def _depth(body: str, at: int) -> int:
    """How many objects are open at `at`."""
    return body.count("{", 0, at) - body.count("}", 0, at)


def _names_losses(path: Path) -> bool:
    """Whether the file's name says it holds losses (`loss_history.json`, `losses.json`)."""
    return role_of_name(path) in _LOSS_ROLES


def _flattened(doc: dict, *, nested_only: bool = False) -> dict[str, object]:
    """The object's own keys, and those of an object under a history key as `outer/inner` (a
    history kept under `"metrics"`, or per split under `"train"` and `"val"`); an object keyed
    by index labels (pandas' `to_json()`) is a series, not a level. `nested_only`: the history
    keys that hold such an object, each once."""
    out: dict[str, object] = {}
    for key, value in doc.items():
        if (
            isinstance(value, dict)
            and value
            and (
                _is_history_key(str(key)) or (_names_a_history(str(key)) and _holds_history(value))
            )
            and not all(_INDEX_LABEL.fullmatch(str(k)) for k in value)
        ):
            if nested_only:
                out[key] = value
            else:
                out.update({f"{key}/{inner}": v for inner, v in value.items()})
        elif not nested_only:
            out[key] = value
    return out


def _is_history_key(key: str) -> bool:
    """A key a history is kept under one level down: `metrics`, a split's name, or an
    evaluation set's name with its index (`validation_0`, `valid_1`)."""
    return key.lower() in _HISTORY_KEYS or bool(_EVAL_SET.fullmatch(key))


def _names_a_history(key: str) -> bool:
    """A key with a history's word among its words (`training_history`, `train_logs`,
    `metrics_history`): a history one level down when it holds one (`_holds_history`), beside
    the run's settings (`model_info`, `training_config`) and its `final_metrics`."""
    return bool(name_words(key) & _HISTORY_WORDS)


def _holds_history(value: object) -> bool:
    """A history of its own: an object (not pandas' index-keyed series) with a loss-named key
    holding a list of `_NESTED_MIN_POINTS` values or more."""
    if not isinstance(value, dict) or not value:
        return False
    if all(_INDEX_LABEL.fullmatch(str(k)) for k in value):
        return False
    return any(
        isinstance(v, list) and len(v) >= _NESTED_MIN_POINTS and infer_role(str(k)) in _LOSS_ROLES
        for k, v in value.items()
    )


def _runs_by_key(doc: dict) -> list[str]:
    """The keys of an object whose keys name runs: two or more holding a history of their own
    (`{"MLP": {...}, "CNN": {...}}`), none a history key (`metrics`, a split's name) and no
    series of the object's own beside them."""
    if any(_is_history_key(str(k)) for k in doc):
        return []
    if any(isinstance(v, list) and infer_role(str(k)) in _LOSS_ROLES for k, v in doc.items()):
        return []
    keys = [str(k) for k, v in doc.items() if _holds_history(v)]
    return keys if len(keys) >= _MIN_RUNS else []


def _step_lists(doc: dict) -> dict[int, np.ndarray]:
    """Length -> steps, from each top-level list under a step-named key (`"steps": [0, 100,
    ...]`, `"epochs": [1.0, 2.0, ...]`) of whole numbers that go up."""
    out: dict[int, np.ndarray] = {}
    for key, value in doc.items():
        if str(key).lower() not in _STEP_KEYS or not isinstance(value, list) or not value:
            continue
        series = _series(value)
        if series is None:
            continue
        steps = series[1]
        if np.isfinite(steps).all() and (steps == np.round(steps)).all():
            if (np.diff(steps) > 0).all():
                out.setdefault(len(steps), steps.astype(np.int64))
    return out


def _spread(n: int, base: np.ndarray) -> np.ndarray:
    """Steps for a list of `n` values logged less often than the `base` steps' series over the
    same span: each at the end of its equal share (an evaluation at the end of each epoch
    beside a training loss logged every few steps)."""
    at = np.round(np.arange(1, n + 1) * len(base) / n).astype(np.int64) - 1
    return base[np.clip(at, 0, len(base) - 1)]


def _split_roles(keys: list[str]) -> dict[str, str]:
    """Each key that is a split's bare name -> that split's loss."""
    return {
        k: "train_loss" if k.lower() in TRAIN_WORDS else "val_loss"
        for k in keys
        if k.lower() in SPLIT_WORDS
    }


def _python_literal(text: str) -> object | None:
    """A Python dict's repr (`str(history.history)`: single quotes, `nan`), or None."""
    if len(text) > _MAX_LITERAL:
        return None
    spelled = _PY_NONFINITE.sub(
        lambda m: "None" if m.group(2) == "nan" else f"{m.group(1)}1e999", text
    )
    try:
        return ast.literal_eval(spelled.strip())
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return None


def _printed_dict(text: str) -> dict | None:
    """The dict printed after a label on the first line (`train history: {...}`), up to its
    closing brace (what follows it, a final score printed on the next line, is not read)."""
    start = _labelled(text)
    if start is None:
        return None
    depth = 0
    for brace in _BRACE.finditer(text, start, start + _MAX_LITERAL):
        depth += 1 if brace.group() == "{" else -1
        if depth == 0:
            literal = _python_literal(text[start : brace.end()])
            return literal if isinstance(literal, dict) else None
    return None


def _salvage(text: str) -> dict[str, list]:
    """The complete lists of numbers a file cut short still holds."""
    out: dict[str, list] = {}
    for key, cells in _WHOLE_LIST.findall(text):
        values = _python_literal(f"[{cells}]")
        if isinstance(values, list):
            out.setdefault(key, values)
    return out


def _document(path: Path, text: bytes, warns: Warnings) -> object:
    """The history object: JSON, a JSON string holding a Python dict's repr, a bare repr, or
    what a file cut short still holds whole (with a warning)."""
    try:
        doc = parse_document(path, text)
    except CorruptInputError as exc:
        decoded = text.decode("utf-8", errors="replace")
        literal = _python_literal(decoded)
        if isinstance(literal, dict):
            return literal
        printed = _printed_dict(decoded)
        if printed is not None:
            warns.add("the history was read from the dict printed after the first line's label")
            return printed
        salvaged = _salvage(decoded)
        if not salvaged:
            raise
        warns.add(
            f"{exc.message}: the file is cut short or broken there; the {len(salvaged)} "
            "complete list(s) before it were read",
            line=exc.line,
            byte=exc.byte,
        )
        return salvaged
    if isinstance(doc, str):  # json.dump(str(history.history), f)
        literal = _python_literal(doc)
        return literal if literal is not None else doc
    return doc


def _logged_steps(value: dict) -> tuple[np.ndarray, np.ndarray] | None:
    """(steps, values) of Sacred's `{"steps": [...], "timestamps": [...], "values": [...]}`:
    the steps as logged when they are whole numbers, one a value, else the positions."""
    values = _series(value.get("values"))
    if values is None:
        return None
    logged = _series(value.get("steps"))
    steps = None if logged is None else logged[1]
    if steps is not None and len(steps) == len(values[1]):
        if np.isfinite(steps).all() and (steps == np.round(steps)).all():
            return steps.astype(np.int64), values[1]
    return values


def _series(value: object) -> tuple[np.ndarray, np.ndarray] | None:
    """(steps, values) of one metric: a list (positions), an object keyed by whole-number
    labels, or Sacred's object of `steps` and `values`; None when a value is not a number (or
    null)."""
    if isinstance(value, dict) and "values" in value:
        return _logged_steps(value)
    if isinstance(value, list):
        labels: list = list(range(len(value)))
        cells = value
    elif isinstance(value, dict) and all(_INDEX_LABEL.fullmatch(k) for k in value):
        labels = [int(k) for k in value]
        cells = list(value.values())
    else:
        return None
    numbers = [_number(c) for c in cells]
    if not numbers or any(n is None for n in numbers):
        return None
    return np.asarray(labels, dtype=np.int64), np.array(numbers, dtype=np.float64)


def _number(cell: object) -> float | None:
    """A history's value as a float: a number, null (NaN), or a number written as text
    (`"0.5234"`, `"nan"`: `json.dump(h, f, default=str)`, the usual way past NumPy's float32
    not being JSON serialisable); None for anything else."""
    if cell is None:
        return float("nan")
    if isinstance(cell, int | float) and not isinstance(cell, bool):
        return float(cell)
    if isinstance(cell, str):
        try:
            return float(cell)
        except ValueError:
            return None
    return None


def _add_history(
    path: Path,
    doc: dict,
    builder: FrameBuilder,
    run_code: int,
    roles: Mapping[str, str] | None,
    warns: Warnings,
) -> tuple[dict[str, str], list[str]]:
    """Add one history's series to `builder` under `run_code`; the roles its split-named keys
    take (the caller's `roles` go over them) and the keys skipped (no list of numbers)."""
    skipped: list[str] = []
    losses = 0
    flat = _flattened(doc)
    own_roles = _split_roles(list(flat))
    merged = {**own_roles, **(roles or {})}
    step_lists = _step_lists(doc)
    parsed = {}
    for key, value in flat.items():
        series = _series(value)
        if series is None:
            skipped.append(key)
        elif not (str(key).lower() in _STEP_KEYS and len(series[1]) in step_lists):
            parsed[key] = series
    lists = {k: len(v[1]) for k, v in parsed.items() if isinstance(flat[k], list)}
    longest = max(lists.values(), default=0)
    base = step_lists.get(longest, np.arange(longest, dtype=np.int64))
    spread = [k for k, n in lists.items() if n < longest and n not in step_lists]
    # the roles the frame will give: a split naming no loss but an error it minimises (XGBoost's
    # `{"train": {"rmse": [...]}}`) has that error as its loss
    names = list(parsed)
    role_of = dict(
        zip(
            names,
            errors_as_losses(names, [merged.get(k, infer_role(k)) for k in names]),
            strict=True,
        )
    )
    for key, (steps, values) in parsed.items():
        if key in lists:
            n = lists[key]
            steps = step_lists[n] if n in step_lists else base if n == longest else _spread(n, base)
        code = builder.metrics.code(key)
        builder.add(run_code, np.full(len(steps), code, dtype=np.int32), steps, values)
        nested_short = "/" in key and key not in doc and len(values) < _NESTED_MIN_POINTS
        losses += role_of[key] in _LOSS_ROLES and not nested_short
    if not losses:
        raise UnknownFormatError(
            "not a training history: no loss-like key holds a list of numbers "
            f"(keys: {', '.join(list(doc)[:6])})",
            file=str(path),
        )
    if own_roles and not roles:
        warns.add(
            f"{', '.join(repr(k) for k in own_roles)} read as the losses of those splits (the "
            "keys name only the split)"
        )
    if step_lists:
        named = ", ".join(repr(k) for k in doc if str(k).lower() in _STEP_KEYS)
        warns.add(f"{named} read as the step of the series as long")
    if spread:
        warns.add(
            f"{', '.join(repr(k) for k in spread[:3])} hold fewer values than the longest list "
            f"({longest}): each is placed at the end of its equal share of the run (an "
            "evaluation at each epoch's end)"
        )
    return own_roles, skipped


def read(
    path: Path, *, run: str | None = None, roles: Mapping[str, str] | None = None
) -> IngestResult:
    path = Path(path)
    require_nonempty(path)
    warns = Warnings(str(path))
    if read_head(path, len(ZIP_MAGIC)) == ZIP_MAGIC:  # a NumPy .npz (a zip of arrays)
        doc: object = _npz_document(path, warns)
    else:
        doc = _document(path, path.read_bytes(), warns)
    listed = _history_list(doc)
    if listed:  # a run an item, named by its position in the list
        doc = {str(i): history for i, history in enumerate(cast(list, doc))}
    if not isinstance(doc, dict):
        raise UnknownFormatError("not a training history: not one JSON object", file=str(path))
    builder = FrameBuilder()
    name = default_run_name(path)
    runs = _runs_by_key(doc)
    merged: dict[str, str] = {}
    skipped: list[str] = []
    keys: list[str | None] = [*runs] if runs else [None]  # None: the object is the one run
    for key in keys:
        code = builder.runs.code(name if key is None else f"{name}/{key}")
        own, passed = _add_history(
            path, doc if key is None else doc[key], builder, code, roles, warns
        )
        merged |= own
        skipped += [k for k in passed if k not in skipped]
    merged |= dict(roles or {})
    if listed:
        warns.add(
            f"{len(runs)} runs read, one an item of the list (named by its position from 0): "
            "each holds a history of its own"
        )
    elif runs:
        warns.add(
            f"{len(runs)} runs read, one a key ({', '.join(repr(k) for k in runs[:4])}): each "
            "holds a history of its own"
        )
    if skipped:
        warns.add(
            f"{len(skipped)} key(s) without a list of numbers skipped (first: {skipped[0]!r})"
        )
    frame = builder.build(merged, warns=warns)
    return IngestResult(
        apply_run_name(frame, run), warns.finish(), format=FORMAT, files=[str(path)]
    )
