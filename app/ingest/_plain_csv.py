"""Any other per-step CSV, and the long table `convert --to csv` writes.

Indexed: a history table with no step column but a loss column (a Keras `history.history` saved
with pandas): its rows are the steps, in order, and a warning says so; saved with pandas' index
(`to_csv()`'s default: a first column with no name, or `Unnamed: 0` once read back and written
again), that index is the step. Bare scores beside fastai's `train_loss` and `valid_loss` are
validation scores, as keras_csv reads fastai's CSVLogger. Wide: a header with a
step-like column (`step`, `iter`, `iteration`, `epoch`, ... matched case-insensitively, padding
ignored), one metric per other column. This is how Ultralytics / YOLOv5 `results.csv` is read:
its header and cells are right-aligned with spaces, the step is the `epoch` column, and its
`metrics/*` columns are validation scores; the Trainer's printed table (`Epoch Training Loss
Validation Loss Accuracy`) names its validation scores without a prefix. Long: columns `metric`,
`step`, `value` (optional `run`, `role`, `wall_time`, `seq`, `segment`): one point per row, so
the normalised frame round-trips through CSV; a TensorBoard export names the metric `tag`
(tbparse, with its run folder as `dir_name`) and MLflow's metric history `key` (with `run_id`).
CatBoost's `learn_error.tsv` beside `test_error.tsv` is one run, read from their folder
(`_catboost_parts`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path

import numpy as np
import pandas as pd
from lossforensics.classifiers.errors import EmptyInputError, UnknownFormatError
from lossforensics.classifiers.roles import ROLES, infer_role, override_role
from lossforensics.ingest import _catboost_parts
from lossforensics.ingest._builder import FrameBuilder, Warnings
from lossforensics.ingest._catboost_parts import read_pair
from lossforensics.ingest._csv import (
    BadCells,
    CsvHeader,
    is_long_form,
    iter_chunks,
    long_name_column,
    sniff_header,
)
from lossforensics.ingest._score_roles import (
    evaluation_file_roles,
    fastai_roles,
    hf_table_roles,
    split_named_roles,
    ultralytics_roles,
)
from lossforensics.ingest._source import (
    apply_run_name,
    default_run_name,
    parts_as_folders,
    require_nonempty,
)
from lossforensics.ingest._steps import choose_step_key, integral_steps
from lossforensics.ingest._table import read_step_table
from lossforensics.ingest._values import text_cells
from lossforensics.ingest.base import IngestResult
from lossforensics.ingest.keras_csv import named_parts, names_validation

FORMAT = "csv"


# the header pandas writes for a DataFrame's index: nothing, or `Unnamed: N` once read back
_PANDAS_PLACEHOLDER = re.compile(r"(unnamed: \d+)?")

# a "column name" that is a key with its value (`Loss:0.4423`, `Epoch=1`): a first line whose
# every cell is one is printed key-value pairs separated by commas, not a header (one such cell
# is a name: YOLOv5's `metrics/mAP_0.5:0.95`)
_KEY_VALUE = re.compile(r"[A-Za-z_][\w /.-]*\s*[:=]\s*[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")

# a number printed after a separator or a bracket (`Loss: 2.56`, `Epoch [1/100]`), or a decimal
# one after a space that ends the cell (`loss 0.43315`): half the cells of a "header" holding one
# make it a printed record (`2018-03-21T13:56:22: step 3866, loss 0.43315, acc 0.90625` under a
# `...` line a paste opened with; one such cell is a name: YOLOv5's `metrics/mAP_0.5:0.95`)
_PRINTED_NUMBER = re.compile(r"[:=\[]\s*[-+]?\.?\d|\s[-+]?\d*\.\d+(?:[eE][-+]?\d+)?$")

# the column of a long table that names each row's run: ours, MLflow's `run_id`, tbparse's
# `dir_name` (the run's folder under the log directory)
_LONG_RUN_COLUMNS = ("run", "run_id", "dir_name")

# columns that key a summary table (one row per model or run), not a row per step
_TABLE_KEYS = frozenset({"name", "model", "run", "id", "experiment", "config", "trial"})


def _layout(header: CsvHeader, roles: Mapping[str, str] | None = None) -> str | None:
    names = header.stripped
    if len(names) >= 2 and all(_KEY_VALUE.fullmatch(n) for n in names):
        return None  # `Epoch=1,Loss:0.44,...`: a printed record, the console reader's
    if len(names) >= 2 and 2 * sum(bool(_PRINTED_NUMBER.search(n)) for n in names) >= len(names):
        return None  # `Epoch [1/100], Iteration [200/1952], Loss: 2.56`: a record, not names
    if is_long_form(names):
        return "long"
    if choose_step_key(names) is not None and len(names) >= 2:
        return "wide"
    if _placeholder(names[0]) and _history_without_steps(names[1:], roles):
        return "pandas_index"
    if _history_without_steps(names, roles):
        return "indexed"
    return None


def _placeholder(name: str) -> bool:
    """The header pandas gives a DataFrame's index when it writes one: empty (`to_csv()` of a
    history), or `Unnamed: 0` (a CSV read with pandas and written again)."""
    return _PANDAS_PLACEHOLDER.fullmatch(name.strip().lower()) is not None


def _pandas_placeholders(names: tuple[str, ...]) -> list[int]:
    """Columns named like a pandas index (`Unnamed: 0`): not series; an empty name is never
    read as one either."""
    return [j for j, n in enumerate(names) if n.strip() and _placeholder(n)]


def _history_without_steps(names: tuple[str, ...], roles: Mapping[str, str] | None = None) -> bool:
    """A history table with no step column (`pd.DataFrame(history.history).to_csv()`): every
    column named, a loss among them (by its name, or by the caller's `roles`: `loss0`, `loss1`
    name no loss a reader can know), and no column that keys rows by model or run. Its rows are
    read in order as steps 0, 1, 2, ... (and a warning says so). A last column with no name is
    the delimiter each line ends with (bearpaw's `Logger` writes a tab after every cell)."""
    low = [n.strip().lower() for n in names]
    if len(low) > 2 and not low[-1]:
        low = low[:-1]
    return (
        len(low) >= 2
        and all(low)
        and not _TABLE_KEYS & set(low)
        and any(override_role(n, infer_role(n), roles) in ("train_loss", "val_loss") for n in names)
    )


def sniff(path: Path) -> bool:
    """A delimited header with a step-like column, or the long metric/step/value table."""
    header = sniff_header(Path(path))
    return header is not None and _layout(header) is not None


def _read_long(
    path: Path, header: CsvHeader, roles: Mapping[str, str] | None, run: str
) -> IngestResult:
    warns = Warnings(str(path))
    builder = FrameBuilder()
    pos = {n.lower(): j for j, n in enumerate(header.stripped)}
    name_at = long_name_column(header.stripped)
    run_at = next((pos[k] for k in _LONG_RUN_COLUMNS if k in pos), None)
    fallback = builder.runs.code(run)
    defaults: dict[str, str] = {}
    bad = BadCells()
    rows = 0
    for chunk in iter_chunks(path, header):
        for line, why in chunk.skipped:
            warns.add(f"row skipped: {why}", line=line, kind="row skipped (wrong field count)")
        f = chunk.frame
        metric = f[name_at]
        step_cells = text_cells(f[pos["step"]])
        steps, ok = integral_steps(np.where(step_cells.keep, step_cells.values, np.nan))
        value = text_cells(f[pos["value"]])
        ok &= metric.notna().to_numpy() & value.keep
        if (value.bad & metric.notna().to_numpy()).any() and bad.first is None:
            bad.first = (chunk.first_line + int(np.flatnonzero(value.bad)[0]), "value", "?")
        bad.count += int(value.bad.sum())
        names = metric[ok].astype(str)
        runs: np.ndarray | int = fallback
        if run_at is not None:
            run_col = f[run_at][ok]
            runs = builder.runs.codes(run_col.fillna(run).astype(str))
        if "role" in pos:
            pairs = pd.DataFrame({"m": names, "r": f[pos["role"]][ok]}).drop_duplicates("m")
            for m, r in zip(pairs["m"], pairs["r"], strict=True):
                if isinstance(r, str) and r in ROLES:
                    defaults.setdefault(m, r)
        wall = None
        if "wall_time" in pos:
            w = text_cells(f[pos["wall_time"]])
            wall = np.where(w.keep, w.values, np.nan)[ok]
        labels = None
        if "segment" in pos:  # a normalised frame written out: its segments as they were
            labels = builder.label_codes(f[pos["segment"]][ok])
        builder.add(runs, builder.metrics.codes(names), steps[ok], value.values[ok], wall, labels)
        rows += len(f)
    bad.report(warns)
    if builder.points == 0:
        raise EmptyInputError(f"no numeric points in {rows} data row(s)", file=str(path))
    frame = builder.build(roles, default_roles=defaults, warns=warns)
    return IngestResult(frame, warns.finish(), format=FORMAT, files=[str(path)])


def read(
    path: Path, *, run: str | None = None, roles: Mapping[str, str] | None = None
) -> IngestResult:
    path = Path(path)
    if path.is_dir():
        name = run or path.resolve().name or "run"
        files = sorted(p for p in path.iterdir() if p.is_file() and p.stat().st_size)
        if (parts := _catboost_parts.pair(files)) is not None:
            return read_pair(path, parts, fmt=FORMAT, run=name, roles=roles)
        if (split := _split_pair(files)) is not None:
            return _read_split_pair(split, run=name, roles=roles)
    require_nonempty(path)
    header = sniff_header(path)
    layout = None if header is None else _layout(header, roles)
    if header is None or layout is None:
        raise UnknownFormatError(
            "not a per-step CSV: no delimited header with a step, iter or epoch column on line 1",
            file=str(path),
            line=1,
        )
    if layout == "long":
        result = _read_long(path, header, roles, default_run_name(path))
        result.frame = apply_run_name(result.frame, run)
        return result
    return _read_wide(path, header, layout, run=run or default_run_name(path), roles=roles)


def _read_wide(
    path: Path,
    header: CsvHeader,
    layout: str,
    *,
    run: str,
    roles: Mapping[str, str] | None,
    rename: dict[str, str] | None = None,
) -> IngestResult:
    """A table of a row per step (its step column, pandas' index, or the row order), one
    metric per other column; `rename` names the columns (a validation part's `val_`)."""
    step_col = (
        None
        if layout == "indexed"
        else 0
        if layout == "pandas_index"
        else header.stripped.index(choose_step_key(header.stripped))
    )
    numbered = _numbered_losses(header.stripped)
    result = read_step_table(
        path,
        header,
        fmt=FORMAT,
        run=run,
        step_col=step_col,
        roles=roles,
        na_values=("", "NA"),
        exclude=_pandas_placeholders(header.stripped),
        rename=rename,
        default_roles={
            **split_named_roles(header.stripped),
            **ultralytics_roles(header.stripped),
            **hf_table_roles(header.stripped),
            **fastai_roles(header.stripped),
            **evaluation_file_roles(path.stem, header.stripped),
            **numbered,
        },
    )
    if numbered and not set(numbered) & set(roles or {}):
        warns = Warnings(str(path))
        kept = ", ".join(numbered)
        warns.add(
            f"numbered losses: the first is read as the loss its name says; {kept}, as likely "
            f"a validation loss as another head's, kept with role other; --role "
            f"'{next(iter(numbered))}=val_loss' reads one as the validation loss"
        )
        result.warnings.extend(warns.finish())
    return result


def _split_pair(files: list[Path]) -> tuple[Path, Path, CsvHeader, str] | None:
    """A training part and a validation part of one run in one folder (`train_loss.csv` beside
    `val_loss.csv`, `train.csv` beside `val.csv`, each a pandas DataFrame of the same columns,
    a custom loop's losses per split): the same header in both, wide or indexed, and no
    validation-named column already (a full table named `val.csv` is read as it is). With the
    shared header and its layout."""
    parts = named_parts(files)
    if parts is None:
        return None
    header, other = sniff_header(parts[0]), sniff_header(parts[1])
    if header is None or other is None or header.stripped != other.stripped:
        return None
    layout = _layout(header)
    if layout in (None, "long") or names_validation(header.stripped):
        return None
    return parts[0], parts[1], header, layout


def _pair(files: list[Path]) -> tuple[Path, Path] | None:
    """A folder's two parts of one run: CatBoost's learn/test files, or a train/val split."""
    if (parts := _catboost_parts.pair(files)) is not None:
        return parts
    split = _split_pair(files)
    return None if split is None else (split[0], split[1])


def pair_parts(paths: list[Path]) -> list[Path]:
    """`paths` with each folder's two parts of one run replaced by the folder (`read` reads it
    as one run)."""
    return parts_as_folders(paths, _pair)


def _read_split_pair(
    split: tuple[Path, Path, CsvHeader, str], *, run: str, roles: Mapping[str, str] | None
) -> IngestResult:
    """Both parts as one run, the validation part's columns named `val_<name>` (its `loss` is
    `val_loss`, its `total_loss` `val_total_loss`)."""
    train, val, header, layout = split
    rename = {n: f"val_{n}" for n in header.stripped if n.strip()}
    parts = [
        _read_wide(train, header, layout, run=run, roles=roles),
        _read_wide(val, header, layout, run=run, roles=roles, rename=rename),
    ]
    return IngestResult.joined(
        parts, format=FORMAT, detail="training and validation parts of one run"
    )


# a loss numbered without a separator (`loss0`, `loss1`): pandas' columns of a list of curves
_NUMBERED = re.compile(r"(?P<stem>.*?loss)(?P<n>\d+)", re.IGNORECASE)


def _numbered_losses(names: tuple[str, ...]) -> dict[str, str]:
    """The numbered losses after the first of each stem, role other: `loss0,loss1` (a DataFrame
    of `[train_losses, test_losses]`) names no split, and the first is read as the loss its
    name says; the others are as likely a validation loss as a second head's."""
    stems: dict[str, list[tuple[int, str]]] = {}
    for name in names:
        m = _NUMBERED.fullmatch(name)
        if m is not None:
            stems.setdefault(m["stem"].lower(), []).append((int(m["n"]), name))
    return {
        name: "other" for group in stems.values() if len(group) > 1 for _, name in sorted(group)[1:]
    }
