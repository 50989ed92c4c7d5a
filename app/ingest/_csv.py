"""CSV plumbing shared by the CSV readers: sniffing the header by content, reading in chunks
(memory bounded by the chunk, not the file), and melting a wide chunk into long points."""

from __future__ import annotations

import csv
import io
import re
import warnings
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np
import pandas as pd
from lossforensics.classifiers.errors import CorruptInputError, LimitExceededError
from lossforensics.ingest._builder import FrameBuilder, Warnings
from lossforensics.ingest._limits import current
from lossforensics.ingest._source import head_lines, leading_lines
from lossforensics.ingest._values import Cells, text_cells
from lossforensics.ingest.console._style import NUM
from pandas.io.common import infer_compression

CHUNK_ROWS = 100_000
CHUNK_CELLS = 2_000_000  # a chunk of a wide table holds at most this many cells
_SNIFF_LINES = 6
_SEPARATORS = (",", ";", "\t")
_COMMENT_LINES = 40  # a block of `#` lines above a table is read past up to this many lines
_SKIPPED_LINE = re.compile(r"Skipping line (\d+): (.*)")
_ASCII_READ_BYTES = 16 << 20  # a pure-ASCII file up to this size is read from memory


@dataclass(frozen=True)
class CsvHeader:
    """The header line of a delimited file: separator, column names (stripped of quotes), and
    whether the raw cells were padded with spaces (Ultralytics right-aligns its header)."""

    sep: str
    columns: tuple[str, ...]
    padded: bool
    rows_sampled: int
    # lines before the header: a title line (`model_history_log`, Excel's `sep=;` hint)
    skip: int = 0

    @property
    def stripped(self) -> tuple[str, ...]:
        return tuple(c.strip() for c in self.columns)


# a first line that is a log message, not column names: it starts with a date and time, or
# carries a decimal number (`Epoch:0, mask loss is 0.1411`), bare or printed in the object
# that holds it (`loss: [0.69]`, `tensor(0.69, device='cuda:0')`); such files are console text
_LOG_LINE = re.compile(r"^\s*\[?\d{4}[-/]\d{2}[-/]\d{2}[ T_]\d{2}:\d{2}")
_DECIMAL = re.compile(
    r"(?:^|[\s=])(?:(?:tensor|array|np\.float\d*)\()?\[?\s*[-+]?\d+\.\d+(?:[eE][-+]?\d+)?(?![\w.])"
)


_QUOTED = re.compile(r'"[^"]*"')
# a cell that is a number and nothing else (`1.000000000000000000e+00`, `nan`)
_FLOAT = re.compile(NUM, re.I)
# Excel's first-line hint naming the separator of the table below it
_EXCEL_SEP_HINT = re.compile(r"^sep=.$")


def is_text_line(line: str) -> bool:
    """A first line of free text rather than a header: a log line with a timestamp, or one
    holding a decimal number after a space or `=` outside quotes (column names never do;
    `mAP_0.5:0.95` is a name, and so is a quoted W&B column like `"lr=0.1 - train/loss"`:
    writers that quote their header quote every name, free text is not quoted)."""
    return bool(_LOG_LINE.match(line) or _DECIMAL.search(_QUOTED.sub('""', line)))


def sniff_header(path: Path) -> CsvHeader | None:
    """The header of a text file that looks delimited (>= 2 columns, and the next lines, if any,
    agree on the count), else None. Reads the first lines whole, however long, up to the line
    limit; a delimited header past that limit, or with more columns than the column limit, is
    refused with LimitExceededError rather than read in part."""
    limits = current()
    text, complete = head_lines(path, _SNIFF_LINES, limits.max_line_bytes)
    if not text:
        return None
    if not complete:
        if text.lstrip()[:1] not in ("{", "[", "#", "<") and any(
            text.count(sep) >= 2 for sep in _SEPARATORS
        ):
            raise LimitExceededError(
                f"the header line is longer than {limits.max_line_bytes} bytes "
                "(the limit on one line)",
                file=str(path),
                line=1,
            )
        return None
    raw = leading_lines(text, _SNIFF_LINES + 1)
    if raw and raw[0].lstrip().startswith("#"):
        return _below_comments(path)
    lines = [ln for ln in raw[:_SNIFF_LINES] if ln.strip()]
    if not lines or lines[0].lstrip()[:1] in ("{", "[", "#", "<") or is_text_line(lines[0]):
        return None
    csv.field_size_limit(max(csv.field_size_limit(), limits.max_line_bytes))
    best = _best_table(lines)
    if best is None and _is_title(raw):
        # a title line above the table: the table starts on the next line
        found = _best_table(raw[1:])
        best = None if found is None else replace(found, skip=1)
    if best is not None and len(best.columns) > limits.max_columns:
        raise LimitExceededError(
            f"{len(best.columns)} columns; the limit is {limits.max_columns}",
            file=str(path),
            line=1 + best.skip,
        )
    return best


def _below_comments(path: Path) -> CsvHeader | None:
    """The header of a table under a block of `#` comment lines (and blank lines), as some
    writers open their log with the run's settings (`# Base Learning Rate: 0.01000`); None when
    the block runs past `_COMMENT_LINES` or no table follows it."""
    text, complete = head_lines(path, _COMMENT_LINES + _SNIFF_LINES, current().max_line_bytes)
    if not text or not complete:
        return None
    raw = leading_lines(text, _COMMENT_LINES + _SNIFF_LINES + 1)
    skip = 0
    while skip < len(raw) and (not raw[skip].strip() or raw[skip].lstrip().startswith("#")):
        skip += 1
    if skip > _COMMENT_LINES or skip == len(raw) or raw[skip].lstrip()[:1] in ("{", "[", "<"):
        return None
    lines = [ln for ln in raw[skip : skip + _SNIFF_LINES] if ln.strip()]
    named = _names_in_comment(raw[skip - 1], lines) if skip and raw[skip - 1].strip() else None
    if named is not None:
        return replace(named, skip=skip - 1)
    if is_text_line(lines[0]):
        return None
    found = _best_table(lines)
    if found is None or found.rows_sampled < 1:  # a sentence with a `;` is no table
        return None
    return replace(found, skip=skip)


def _names_in_comment(comment: str, lines: list[str]) -> CsvHeader | None:
    """The header NumPy's `np.savetxt(f, rows, delimiter=",", header="loss,val_loss")` writes:
    the column names on the last comment line (`# loss,val_loss`), right above rows of numbers
    only; None when the rows are not all numbers or the names do not match their count."""
    names = comment.lstrip()[1:].strip()
    found = _best_table([names, *lines])
    if found is None or found.rows_sampled < 1 or not names or names[0].isdigit():
        return None
    first = next(csv.reader(io.StringIO(lines[0]), delimiter=found.sep))
    if not all(_FLOAT.fullmatch(cell.strip()) for cell in first):
        return None
    return found


def _is_title(raw: list[str]) -> bool:
    """A first line of one word and no separator (a name, or Excel's `sep=;` hint) right above
    two non-blank lines: it may be a title over a table."""
    first = raw[0].strip() if raw else ""
    word = len(first.split()) == 1 and not any(sep in first for sep in _SEPARATORS)
    return (
        (word or bool(_EXCEL_SEP_HINT.match(first)))
        and len(raw) >= 3
        and all(ln.strip() for ln in raw[1:3])
    )


def _best_table(lines: list[str]) -> CsvHeader | None:
    """The separator whose split gives the widest header (>= 2 columns) that the next lines
    agree with, as a CsvHeader; None when none does."""
    best: CsvHeader | None = None
    for sep in _SEPARATORS:
        try:
            rows = list(csv.reader(io.StringIO("\n".join(lines)), delimiter=sep))
        except csv.Error:
            continue
        head = rows[0]
        if len(head) < 2 or any(len(c) > 500 for c in head):
            continue
        body = rows[1:-1] if len(rows) > 2 else rows[1:]  # the last sampled line may be cut
        if any(len(r) != len(head) for r in body):
            continue
        if best is None or len(head) > len(best.columns):
            padded = sum(c != c.strip() for c in head) > len(head) // 2
            best = CsvHeader(sep, tuple(head), padded, len(rows) - 1)
    return best


# the column that names each row's metric in a long table: ours (`convert --to csv`), a
# TensorBoard export's (`tag`: tbparse's `reader.scalars`, an events-to-CSV script), MLflow's
# `get_metric_history` (`key`)
LONG_NAME_COLUMNS: tuple[str, ...] = ("metric", "tag", "key", "metric_name")


def long_name_column(names: Sequence[str]) -> int | None:
    """Where a long table (one point a row: a metric's name, its step, its value) names its
    metric, or None when the header is no long table."""
    low = [n.strip().lower() for n in names]
    if not {"step", "value"} <= set(low):
        return None
    return next((low.index(c) for c in LONG_NAME_COLUMNS if c in low), None)


def is_long_form(names: Sequence[str]) -> bool:
    """A long table, e.g. what `convert --to csv` writes or a TensorBoard export of
    `tag,step,value`; no wide reader should claim it."""
    return long_name_column(names) is not None


@dataclass
class BadCells:
    """Non-numeric cells skipped: how many, and where the first one was."""

    count: int = 0
    first: tuple[int, str, str] | None = None  # (line, column, text)

    def report(self, warns: Warnings) -> None:
        if self.count and self.first:
            line, col, text = self.first
            warns.add(
                f"{self.count} non-numeric cell(s) skipped (first: column {col!r}, "
                f"value {text[:40]!r})",
                line=line,
            )


@dataclass
class Chunk:
    """A block of rows and the 1-based file line of its first row; `lines`, each row's line,
    where the rows are not consecutive lines (a table printed among other text)."""

    frame: pd.DataFrame
    first_line: int
    skipped: list[tuple[int, str]] = field(default_factory=list)
    lines: np.ndarray | None = None
    _cells: dict[int, Cells] = field(default_factory=dict, repr=False)

    def line_of(self, row: int) -> int:
        """The file line of the chunk's `row`-th row."""
        return self.first_line + row if self.lines is None else int(self.lines[row])

    def cells(self, col: int) -> Cells:
        """The column's cells (`text_cells`), converted once however many readers ask (a W&B
        export reads the x-axis, and each loss beside its `__MAX`, twice)."""
        got = self._cells.get(col)
        if got is None:
            got = self._cells[col] = text_cells(self.frame[col])
        return got


def iter_chunks(
    path: Path,
    header: CsvHeader,
    *,
    na_values: Sequence[str] = ("",),
    chunk_rows: int | None = None,
    has_header: bool = True,
) -> Iterator[Chunk]:
    """Data rows in chunks, columns named by position, as parsed by pandas' C parser (numbers
    stay native floats). Missing cells are NA (only `na_values` count as missing: a logged
    'nan' stays a value); rows with too many fields are skipped and reported with their line;
    a table the C parser cannot tokenize is a CorruptInputError naming the line."""
    line = (2 if has_header else 1) + header.skip
    text = _ascii_text(path)
    try:
        reader = pd.read_csv(
            path if text is None else io.BytesIO(text),
            sep=header.sep,
            skiprows=header.skip,
            header=0 if has_header else None,
            names=list(range(len(header.columns))),
            keep_default_na=False,
            na_values=list(na_values),
            chunksize=chunk_rows or max(1, min(CHUNK_ROWS, CHUNK_CELLS // len(header.columns))),
            skip_blank_lines=False,
            on_bad_lines="warn",
            encoding="utf-8",
            encoding_errors="replace" if text is None else "strict",
            skipinitialspace=header.padded,
            index_col=False,
            engine="c",
            low_memory=True,
        )
        limits, cells = current(), 0
        with reader:
            while True:
                # pandas reports a skipped row as a warning: catch it per chunk, never across
                # a yield (the caller's own warnings must not be swallowed)
                with warnings.catch_warnings(record=True) as caught:
                    warnings.simplefilter("always")
                    frame = next(reader, None)
                if frame is None:
                    break
                cells += frame.size
                if cells > limits.max_cells:
                    raise LimitExceededError(
                        f"a table of {len(header.columns)} columns is over the limit of "
                        f"{limits.max_cells} cells (columns x rows) by this line",
                        file=str(path),
                        line=line + len(frame) - 1,
                    )
                skipped = [
                    (int(m.group(1)), m.group(2).strip())
                    for w in caught
                    for m in _SKIPPED_LINE.finditer(str(w.message))
                ]
                yield Chunk(frame, line, skipped)
                line += len(frame) + len(skipped)
    except (pd.errors.ParserError, pd.errors.EmptyDataError) as exc:
        raise CorruptInputError(
            f"unreadable as a table: {_parser_message(exc)}",
            file=str(path),
            line=_parser_line(exc, line),
        ) from None


def _ascii_text(path: Path) -> bytes | None:
    """The file's bytes when it is small, not compressed and pure ASCII. pandas decodes text
    cells several times faster when told no byte needs replacing (a column of `NaN` tokens among
    numbers, a diverged run's, read ~3x slower with `encoding_errors='replace'`), and in ASCII
    none does; the bytes are read once, so the file cannot change between the check and the
    read."""
    if infer_compression(str(path), "infer") is not None:
        return None
    try:
        if path.stat().st_size > _ASCII_READ_BYTES:
            return None
        data = path.read_bytes()
    except OSError:  # pandas names the failure as before
        return None
    return data if len(data) <= _ASCII_READ_BYTES and data.isascii() else None


def _parser_message(exc: Exception) -> str:
    return str(exc).replace("Error tokenizing data. C error: ", "").strip()


def _parser_line(exc: Exception, chunk_line: int) -> int:
    """The file line pandas names ('line 7' is a file line, 'row 3' a row of the chunk)."""
    text = str(exc)
    if m := re.search(r"line (\d+)", text):
        return int(m.group(1))
    if m := re.search(r"row (\d+)", text):
        return chunk_line + int(m.group(1))
    return chunk_line


def melt_chunk(
    chunk: Chunk,
    header: CsvHeader,
    columns: Sequence[int],
    metric_codes: np.ndarray,
    run_codes: np.ndarray | int,
    steps: np.ndarray,
    row_ok: np.ndarray,
    builder: FrameBuilder,
    bad: BadCells,
    wall: np.ndarray | None = None,
    row_runs: np.ndarray | None = None,
    labels: np.ndarray | None = None,
) -> None:
    """Add every kept cell of the `columns` (positions) as a point, row-major: the order they
    were logged. `metric_codes`/`run_codes` say whose each column is; `row_runs` (a run code
    per row) and `labels` (a session label code per row) come from a run or segment column."""
    n, k = len(chunk.frame), len(columns)
    if n == 0 or k == 0:
        return
    values = np.empty((n, k))
    keep = np.empty((n, k), dtype=bool)
    for j, col in enumerate(columns):
        cells = chunk.cells(col)
        values[:, j] = cells.values
        keep[:, j] = cells.keep
        bad_rows = np.flatnonzero(cells.bad & row_ok)
        if len(bad_rows):
            bad.count += len(bad_rows)
            line = chunk.line_of(int(bad_rows[0]))
            if bad.first is None or line < bad.first[0]:
                bad.first = (line, header.stripped[col], str(chunk.frame[col].iloc[bad_rows[0]]))
    keep &= row_ok[:, None]
    rows, cols = np.nonzero(keep)
    codes = np.asarray(metric_codes, dtype=np.int32)[cols]
    runs = np.asarray(run_codes, np.int32)[cols] if isinstance(run_codes, np.ndarray) else run_codes
    if row_runs is not None:
        runs = row_runs[rows]
    builder.add(
        runs,
        codes,
        steps[rows],
        values[rows, cols],
        None if wall is None else wall[rows],
        None if labels is None else labels[rows],
    )
