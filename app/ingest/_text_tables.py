"""Results tables printed as text, found among other lines: fastai's table (`epoch  train_loss
valid_loss  accuracy  time`, columns aligned with runs of spaces, a row an epoch) and markdown
pipe tables (a model card's "Training results", a table pasted in an issue or a notebook; a
script's `epoch | loss | ...` under a rule of dashes, outer pipes or not).

Only tables whose header names a step (`Step`, `Epoch`, `iter`, ...) and a loss are kept: a
markdown file is mostly prose and other tables, and a line of words is a header only when it
names both. A markdown table is its header, the `|---|:---:|` line under it, and the lines of
cells after (until a line without a pipe). An aligned table is its header and the lines with as
many fields whose first one is a number, until a blank line, a new header, or more than a few
lines of other text (fastai's callbacks print a line between rows: a better model saved, an LR
reduced). A line that starts like a row (a number, then more fields; a markdown line of cells)
but has the wrong number of cells is given back with its line number, to be said in a warning;
a lone number is text. Cells stay text here; `printed_table` reads them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from lossforensics.classifiers.errors import LimitExceededError
from lossforensics.classifiers.roles import infer_role
from lossforensics.ingest._limits import current
from lossforensics.ingest._steps import choose_step_key

# more lines than this of other text after the last row: the aligned table has ended
MAX_LINES_BETWEEN_ROWS = 5

_NAME = r"[A-Za-z_][\w./@%-]*"
_ALIGNED_HEADER = re.compile(rf"\s*{_NAME}(?:[ \t]+{_NAME})+\s*")
_NUMBER_FIRST = re.compile(r"\s*[-+]?(?:\d|\.\d|nan\b|inf\b)", re.I)
_MARKDOWN_RULE = re.compile(r"\s*\|?\s*:?-+:?\s*(?:\|\s*:?-+:?\s*)*\|?\s*")
_LOSS_WORD = re.compile(r"loss|nll", re.I)
# a rule of dashes alone under a pipe-separated header (a script's own `print` of a table)
_PLAIN_RULE = re.compile(r"\s*-{3,}\s*")


@dataclass
class TextTable:
    """One table: its kind ('markdown' or 'aligned'), header names, the line of the header,
    each row's cells and line, and the row-like lines left out (line, why)."""

    kind: str
    names: tuple[str, ...]
    header_line: int
    rows: list[list[str]] = field(default_factory=list)
    lines: list[int] = field(default_factory=list)
    skipped: list[tuple[int, str]] = field(default_factory=list)


def is_results_header(names: Iterable[str]) -> bool:
    """Column names of a training results table: a step column and a loss column."""
    names = tuple(names)
    return choose_step_key(names) is not None and any(
        infer_role(n) in ("train_loss", "val_loss") for n in names
    )


def markdown_cells(line: str) -> list[str]:
    """The cells of a markdown table line, outer pipes dropped, each stripped."""
    text = line.strip()
    text = text[1:] if text.startswith("|") else text
    text = text[:-1] if text.endswith("|") else text
    return [cell.strip() for cell in text.split("|")]


def _aligned_header(line: str) -> tuple[str, ...] | None:
    if not _LOSS_WORD.search(line) or not _ALIGNED_HEADER.fullmatch(line):
        return None
    names = tuple(line.split())
    return names if is_results_header(names) else None


def _markdown_header(previous: str | None, line: str) -> tuple[str, ...] | None:
    """The header of a pipe table whose rule line is `line` (the header is the line before
    it, with as many cells; or, under a plain rule of dashes, `epoch | loss | ...` printed by a
    script, any number), or None."""
    if previous is None or "|" not in previous:
        return None
    plain = "|" not in line and bool(_PLAIN_RULE.fullmatch(line))
    if not plain and ("|" not in line or not _MARKDOWN_RULE.fullmatch(line)):
        return None
    names = tuple(markdown_cells(previous))
    if not plain and len(names) != len(markdown_cells(line)):
        return None
    return names if is_results_header(names) else None


def find_tables(lines: Iterable[str]) -> Iterator[TextTable]:
    """The results tables among `lines` (numbered from 1) that hold a row, in order; past the
    read limit on cells (a hostile line of a million pipes), LimitExceededError at that line."""
    table: TextTable | None = None
    previous: str | None = None
    since_row = 0  # lines of other text since the aligned table's last row
    seen, limits = 0, current()
    for number, line in enumerate(lines, start=1):
        if table is not None:
            seen += len(table.names)
            if seen > limits.max_cells:
                raise LimitExceededError(
                    f"tables of more than {limits.max_cells} cells (the limit on cells read)",
                    line=number,
                )
        header = _header(previous, line, number)
        previous = line
        if header is not None and len(header.names) > limits.max_columns:
            raise LimitExceededError(
                f"a table of {len(header.names)} columns; the limit is {limits.max_columns}",
                line=header.header_line,
            )
        if header is not None or (table is not None and _ended(table, line, since_row)):
            if table is not None and table.rows:
                yield table
            table, since_row = header, 0
            continue
        if table is None:
            continue
        if table.kind == "markdown":
            _add_row(table, markdown_cells(line), number)
        elif _NUMBER_FIRST.match(line) and len(fields := line.split()) > 1:
            _add_row(table, fields, number)
            since_row = 0
        else:
            since_row += 1
    if table is not None and table.rows:
        yield table


def _header(previous: str | None, line: str, number: int) -> TextTable | None:
    """A new table whose header ends on this line, or None."""
    names = _markdown_header(previous, line)
    if names is not None:
        return TextTable("markdown", names, number - 1)
    names = _aligned_header(line)
    return None if names is None else TextTable("aligned", names, number)


def _ended(table: TextTable, line: str, since_row: int) -> bool:
    if table.kind == "markdown":
        return "|" not in line
    return not line.strip() or since_row >= MAX_LINES_BETWEEN_ROWS


def _add_row(table: TextTable, cells: list[str], number: int) -> None:
    if len(cells) == len(table.names):
        table.rows.append(cells)
        table.lines.append(number)
    else:
        table.skipped.append(
            (number, f"{len(cells)} cell(s) where the header has {len(table.names)}")
        )
