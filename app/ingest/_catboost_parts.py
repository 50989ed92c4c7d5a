"""CatBoost's `catboost_info/` folder: `learn_error.tsv` (the training set's objective and
metrics by iteration) beside `test_error.tsv` (the same for the `eval_set`, the set that early
stopping and the best iteration are judged on). They are one run's two halves: read apart,
each was a run of its own whose objective (`Logloss`, `RMSE`) was a training loss. Read
together, the eval set's columns are named `test_<name>`, a validation series, and the
objective (the learn file's first metric, as CatBoost writes it) is the loss of both: `RMSE`
and `test_RMSE` are then the train and validation losses, not scores."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path

from lossforensics.ingest._csv import sniff_header
from lossforensics.ingest._source import parts_as_folders
from lossforensics.ingest._table import read_step_table
from lossforensics.ingest.base import IngestResult

LEARN, TEST = "learn_error.tsv", "test_error.tsv"


def pair(files: list[Path]) -> tuple[Path, Path] | None:
    """The (learn, test) files of one folder, when it holds both."""
    by_name = {f.name: f for f in files}
    if LEARN in by_name and TEST in by_name:
        return by_name[LEARN], by_name[TEST]
    return None


def pair_parts(paths: Iterable[Path]) -> list[Path]:
    """`paths` with each folder's learn/test pair replaced by the folder."""
    return parts_as_folders(paths, pair)


def read_pair(
    folder: Path, parts: tuple[Path, Path], *, fmt: str, run: str, roles: Mapping[str, str] | None
) -> IngestResult:
    """Both halves as one run (see the module docstring)."""
    results = []
    objective: str | None = None
    for part, prefix, role in zip(parts, ("", "test_"), ("train_loss", "val_loss"), strict=True):
        header = sniff_header(part)
        if header is None or len(header.stripped) < 2:
            continue
        names = header.stripped
        objective = objective or names[1]
        rename = {n: f"{prefix}{n}" for n in names[1:]} if prefix else None
        defaults = {f"{prefix}{objective}": role} if objective in names else {}
        results.append(
            read_step_table(
                part,
                header,
                fmt=fmt,
                run=run,
                step_col=0,
                roles=roles,
                na_values=("", "NA"),
                rename=rename,
                default_roles=defaults,
            )
        )
    return IngestResult.joined(
        results, format=fmt, detail="CatBoost learn and test (eval set) parts of one run"
    )
