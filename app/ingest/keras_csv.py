"""Keras `CSVLogger` files (often named `training.log`): one row per epoch, `epoch` first
(0-based), then the logs dict's keys sorted; `NA` where a key was missing that epoch.

Handled: old Keras names (`acc`, `val_acc`), CRLF line endings, the `separator` option (`,`,
`;`, tab), 17-digit float reprs, `nan`/`inf` values (kept), non-scalar cells written as
`"[1 2]"` (skipped, counted in one warning). Steps are the epoch indices as logged.

A run logged as two parts in one folder, `training.csv` and `validation.csv` (a CSVLogger per
split, `train`/`val`/`eval` stems and `.log`/`.tsv` names alike), is one run: `read` on that
folder reads both, the validation part's columns prefixed `val_` (its `loss` is `val_loss`, its
`accuracy` the val score `val_accuracy`). A file is a validation part only when its name says
so and none of its columns is validation-named already (a full CSVLogger file named `val.csv`
is read as it is).

fastai's CSVLogger writes the same shape (`epoch,train_loss,valid_loss,accuracy,time`); the
metrics it names bare are computed on the validation set, so beside its `train_loss` and
`valid_loss` they are validation scores. Its `time` column (`04:39`) is no series.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from pathlib import Path

from lossforensics.classifiers.errors import NoLogsFoundError, UnknownFormatError
from lossforensics.classifiers.roles import infer_role
from lossforensics.ingest._csv import CsvHeader, is_long_form, sniff_header
from lossforensics.ingest._score_roles import (
    evaluation_file_roles,
    fastai_roles,
    split_named_roles,
)
from lossforensics.ingest._source import default_run_name, parts_as_folders, require_nonempty
from lossforensics.ingest._table import read_step_table
from lossforensics.ingest.base import IngestResult

FORMAT = "keras_csv"

_SUFFIX = r"(?:[_-](?:log|logs|history|metrics|loss|losses))?"
_TRAIN_PART = re.compile(rf"(?:train|training){_SUFFIX}", re.IGNORECASE)
_VAL_PART = re.compile(rf"(?:val|valid|validation|eval|evaluation){_SUFFIX}", re.IGNORECASE)
_VAL_ROLES = {"val_loss", "val_score"}


def _is_keras(header: CsvHeader) -> bool:
    names = header.stripped
    low = {n.lower() for n in names}
    return (
        names[0] == "epoch"
        and not header.padded
        and "step" not in low
        and not is_long_form(names)
        and not any("/" in n or " - " in n for n in names)
    )


def sniff(path: Path) -> bool:
    """A delimited header whose first column is exactly `epoch` (CSVLogger's layout)."""
    header = sniff_header(Path(path))
    return header is not None and _is_keras(header)


def _stem(path: Path) -> str:
    return path.name.split(".")[0]


def _is_val_part(path: Path, header: CsvHeader) -> bool:
    """Named as a validation part, holding no validation-named column of its own."""
    return bool(_VAL_PART.fullmatch(_stem(path))) and not names_validation(header.stripped)


def names_validation(names: Iterable[str]) -> bool:
    """Whether some column is validation-named already (`val_loss`, `val_accuracy`)."""
    return any(infer_role(n) in _VAL_ROLES for n in names)


def pair_parts(paths: Iterable[Path]) -> list[Path]:
    """`paths` (Keras CSV files) with each folder's train/validation pair replaced by the folder
    (which `read` reads as one run); a folder with several files of one part keeps them all."""
    return parts_as_folders(paths, _pair)


def named_parts(files: list[Path]) -> tuple[Path, Path] | None:
    """The one file named as a training part and the one named as a validation part among
    `files` (`training.csv` and `validation.csv`, `train_loss.csv` and `val_loss.csv`), or
    None when either name is missing or repeated."""
    train = [f for f in files if _TRAIN_PART.fullmatch(_stem(f))]
    val = [f for f in files if _VAL_PART.fullmatch(_stem(f))]
    return (train[0], val[0]) if len(train) == 1 and len(val) == 1 else None


def _pair(files: list[Path]) -> tuple[Path, Path] | None:
    parts = named_parts(files)
    if parts is None:
        return None
    header = sniff_header(parts[1])
    return parts if header is not None and _is_val_part(parts[1], header) else None


def folder_pair(folder: Path) -> tuple[Path, Path] | None:
    """The (train, validation) Keras CSV parts directly in `folder`, if it holds one pair."""
    files = sorted(p for p in folder.iterdir() if p.is_file() and p.stat().st_size and sniff(p))
    return _pair(files)


def read(
    path: Path, *, run: str | None = None, roles: Mapping[str, str] | None = None
) -> IngestResult:
    """Read a CSVLogger file, or a folder holding a train/validation pair as one run."""
    path = Path(path)
    if path.is_dir():
        pair = folder_pair(path)
        if pair is None:
            raise NoLogsFoundError(
                "no Keras training/validation CSV pair in this folder", file=str(path)
            )
        name = run or path.resolve().name or "run"
        parts = [_read_file(p, run=name, roles=roles) for p in pair]
        return IngestResult.joined(
            parts, format=FORMAT, detail="training and validation parts of one run"
        )
    return _read_file(path, run=run, roles=roles)


def _read_file(path: Path, *, run: str | None, roles: Mapping[str, str] | None) -> IngestResult:
    require_nonempty(path)
    header = sniff_header(path)
    if header is None or "epoch" not in header.stripped:
        raise UnknownFormatError(
            "not a Keras CSVLogger file: no delimited header with an 'epoch' column on line 1",
            file=str(path),
            line=1,
        )
    rename = {n: f"val_{n}" for n in header.stripped} if _is_val_part(path, header) else None
    # steps are the 0-based epoch indices Keras logs: that is the file's normal axis, not a
    # problem with it, so it is documented rather than warned about on every read
    return read_step_table(
        path,
        header,
        fmt=FORMAT,
        run=run or default_run_name(path),
        step_col=header.stripped.index("epoch"),
        roles=roles,
        na_values=("", "NA"),
        rename=rename,
        default_roles={
            **split_named_roles(header.stripped),
            **fastai_roles(header.stripped),
            **evaluation_file_roles(path.stem, header.stripped),
        },
    )
