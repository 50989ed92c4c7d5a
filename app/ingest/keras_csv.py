"""Keras `CSVLogger` files (often named `training.log`): one row per epoch, `epoch` first
(0-based), then the logs dict's keys sorted; `NA` where a key was missing that epoch.

Handled: old Keras names (`acc`, `val_acc`), CRLF line endings, the `separator` option (`,`,
`;`, tab), 17-digit float reprs, `nan`/`inf` values (kept), non-scalar cells written as
`"[1 2]"` (skipped, counted in one warning). Steps are the epoch indices as logged.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from lossforensics.classifiers.errors import UnknownFormatError
from lossforensics.ingest._csv import CsvHeader, is_long_form, sniff_header
from lossforensics.ingest._source import default_run_name, require_nonempty
from lossforensics.ingest._table import read_step_table
from lossforensics.ingest.base import IngestResult

FORMAT = "keras_csv"


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


def read(
    path: Path, *, run: str | None = None, roles: Mapping[str, str] | None = None
) -> IngestResult:
    path = Path(path)
    require_nonempty(path)
    header = sniff_header(path)
    if header is None or "epoch" not in header.stripped:
        raise UnknownFormatError(
            "not a Keras CSVLogger file: no delimited header with an 'epoch' column on line 1",
            file=str(path),
            line=1,
        )
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
    )
