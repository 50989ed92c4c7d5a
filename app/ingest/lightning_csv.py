"""PyTorch Lightning `CSVLogger` metrics.csv (in `<name>/version_N/`, beside hparams.yaml).

One sparse row per `log_metrics` call: every column is filled only on the rows where that
metric was logged (`train_loss_step` every N steps, `train_loss_epoch`/`val_loss` once an
epoch), `step` is on every row, `epoch` on most. Names keep Lightning's `_step`/`_epoch`
suffixes and `lr-Adam` style LearningRateMonitor columns. hparams.yaml is configuration, not a
series, and is not read. A directory (`version_N/`) may be given instead of the file.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from lossforensics.classifiers.errors import NoLogsFoundError, UnknownFormatError
from lossforensics.ingest._csv import CsvHeader, is_long_form, sniff_header
from lossforensics.ingest._score_roles import evaluation_file_roles
from lossforensics.ingest._source import require_nonempty
from lossforensics.ingest._table import read_step_table
from lossforensics.ingest.base import IngestResult, ReadWarning

FORMAT = "lightning_csv"
FILENAME = "metrics.csv"


def _is_lightning(header: CsvHeader) -> bool:
    names = header.stripped
    return (
        "step" in names
        and not header.padded
        and not is_long_form(names)
        and not any(" - " in n for n in names)
    )


def sniff(path: Path) -> bool:
    """A delimited header with a lowercase `step` column (the CSVLogger always writes it); a
    `version_N` directory holding such a metrics.csv."""
    path = Path(path)
    if path.is_dir():
        path = path / FILENAME
        if not path.is_file():
            return False
    header = sniff_header(path)
    return header is not None and _is_lightning(header)


def run_name(path: Path) -> str:
    """'version_3' under the default 'lightning_logs', else '<name>/version_3'."""
    version = path.resolve().parent
    parent = version.parent.name
    if version.name.startswith("version_") and parent and parent != "lightning_logs":
        return f"{parent}/{version.name}"
    return version.name or path.stem


def read(
    path: Path, *, run: str | None = None, roles: Mapping[str, str] | None = None
) -> IngestResult:
    path = Path(path)
    if path.is_dir():
        if not (path / FILENAME).is_file():
            raise NoLogsFoundError(f"no {FILENAME} in this directory", file=str(path))
        path = path / FILENAME
    require_nonempty(path)
    header = sniff_header(path)
    if header is None:
        raise UnknownFormatError(
            "not a Lightning metrics.csv: no delimited header on line 1", file=str(path), line=1
        )
    names = header.stripped
    step_col = names.index("step") if "step" in names else None
    warnings_first = []
    if step_col is None and "epoch" in names:
        step_col = names.index("epoch")
        warnings_first.append("no 'step' column: epochs are used as steps")
    result = read_step_table(
        path,
        header,
        fmt=FORMAT,
        run=run or run_name(path),
        step_col=step_col,
        roles=roles,
        default_roles=evaluation_file_roles(path.stem, header.stripped),
    )
    result.warnings[:0] = [ReadWarning(m, str(path)) for m in warnings_first]
    return result
