"""Results tables printed as text, found among other lines: fastai's table (`epoch  train_loss
valid_loss  accuracy  time`, columns aligned with runs of spaces, a row an epoch) and markdown
pipe tables (a model card's "Training results", a table pasted in an issue or a notebook; a
script's `epoch | loss | ...` under a rule of dashes or with none, outer pipes or not).

Only tables whose header names a step (`Step`, `Epoch`, `iter`, ...) and a loss are kept: a
markdown file is mostly prose and other tables, and a line of words is a header only when it
names both. The one exception is a printed pandas DataFrame (`print(pd.DataFrame(history.
history))`): its header names only the metrics and each row opens with the index, which is the
step (`INDEX_NAME`). An aligned header that names a loss but no step is such a table only when
its first row has one more field than the header, a whole number and then numbers (a text
column, as in a table comparing models, makes it none). A markdown table is its header, the
`|---|:---:|` line under it, and the lines of cells after (until a line without a pipe). An
aligned table is its header and the lines with as many fields whose first one is a number, until
a blank line, a new header, or more than a few lines of other text (fastai's callbacks print a
line between rows: a better model saved, an LR reduced). An aligned header whose names have
several words (`Epoch  Train Loss  Val Loss`) is split into as many names as its first row has
fields (`_grouped_names`). A pipe header with no rule line under it is a header when the next
line is a row of as many cells, the first a number. A line that starts like a row (a number,
then more fields; a markdown line of cells) but has the wrong number of cells is given back with
its line number, to be said in a warning; a lone number is text. Cells stay text here;
`printed_table` reads them.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from lossforensics.classifiers.errors import LimitExceededError
from lossforensics.classifiers.roles import infer_role
from lossforensics.ingest._limits import current
from lossforensics.ingest._steps import choose_step_key
from lossforensics.ingest.console._style import NUM

# more lines than this of other text after the last row: the aligned table has ended
MAX_LINES_BETWEEN_ROWS = 5

# a column name; `#` alone is a count column (spaCy's `E    #       LOSS TOK2VEC ...`)
_NAME = r"(?:[A-Za-z_][\w./@%-]*|#)"
_ALIGNED_HEADER = re.compile(rf"\s*{_NAME}(?:[ \t]+{_NAME})+\s*")
_NUMBER_FIRST = re.compile(r"\s*[-+]?(?:\d|\.\d|nan\b|inf\b)", re.I)
_MARKDOWN_RULE = re.compile(r"\s*\|?\s*:?-+:?\s*(?:\|\s*:?-+:?\s*)*\|?\s*")
_LOSS_WORD = re.compile(r"loss|nll", re.I)
# a rule of dashes alone under a pipe-separated header (a script's own `print` of a table)
_PLAIN_RULE = re.compile(r"\s*-{3,}\s*")
# a printed DataFrame's index: a whole number opening each row, under no name in the header
_INDEX = re.compile(r"\d+")
# ...and the values after it, each a number as a script prints one (NaN and inf included)
_VALUE = re.compile(NUM)
# ...read as the step, as the CSV readers read a DataFrame saved with its index
INDEX_NAME = "step"


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
    # the header as printed, to group its words into names of several words at the first row
    header_text: str = ""
    # a pipe table with no rule line: the line that showed the header is one is its first row
    first_row: list[str] | None = None
    # an aligned header that names a loss but no step: a printed pandas DataFrame, whose rows
    # start with the index the header leaves unnamed; settled by the first row
    unnamed_index: bool = False
    # ...and, once its first row had one more field than the header, read so (INDEX_NAME)
    indexed: bool = False


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


def _unnamed_index_header(line: str) -> tuple[str, ...] | None:
    """An aligned header of losses and scores with no step column (`      loss  accuracy
    val_loss  val_accuracy`: `print(pd.DataFrame(history.history))`), or None."""
    if not _LOSS_WORD.search(line) or not _ALIGNED_HEADER.fullmatch(line):
        return None
    names = tuple(line.split())
    loss = any(infer_role(n) in ("train_loss", "val_loss") for n in names)
    return names if loss and choose_step_key(names) is None else None


def _pipe_header_by_row(previous: str | None, line: str) -> tuple[str, ...] | None:
    """The header of a pipe table printed with no rule line (`Epoch | Train Loss | Val Loss`,
    then `    1 |     0.9821 |   1.0346`): the line before a row of as many cells whose
    first is a number, or None."""
    if previous is None or "|" not in previous or "|" not in line:
        return None
    names, cells = markdown_cells(previous), markdown_cells(line)
    if len(names) < 2 or len(cells) != len(names) or not _NUMBER_FIRST.match(cells[0]):
        return None
    return tuple(names) if is_results_header(names) else None


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
            if table is not None and table.first_row is not None:
                _add_row(table, table.first_row, number)
            continue
        if table is None:
            continue
        if table.kind == "markdown":
            _add_row(table, markdown_cells(line), number)
        elif table.kind == "pipe" and "|" in line and _NUMBER_FIRST.match(line.lstrip(" |")):
            _add_row(table, markdown_cells(line), number)
            since_row = 0
        elif table.kind == "pipe":
            since_row += 1
        elif table.unnamed_index and not table.rows:
            # a DataFrame's first row: its index, then one number a name (a text column, a
            # model's name in a comparison table, makes it no training history); else no table
            fields = line.split()
            if (
                len(fields) == len(table.names) + 1
                and _INDEX.fullmatch(fields[0])
                and all(_VALUE.fullmatch(f) for f in fields[1:])
            ):
                table.names, table.unnamed_index = (INDEX_NAME, *table.names), False
                table.indexed = True
                _add_row(table, fields, number)
                since_row = 0
            else:
                table = None
        elif _NUMBER_FIRST.match(line) and len(fields := line.split()) > 1:
            if len(fields) < len(table.names) and (cut := _fixed_width_cells(table, line)):
                fields = cut
            elif not table.rows and len(fields) < len(table.names):
                table.names = _names_for(table, line, len(fields))
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
        kind = "markdown" if "|" in line else "pipe"  # under a plain rule: a script's print
        return TextTable(kind, names, number - 1)
    names = _pipe_header_by_row(previous, line)
    if names is not None:
        return TextTable("pipe", names, number - 1, first_row=markdown_cells(line))
    names = _aligned_header(line)
    if names is not None:
        return TextTable("aligned", names, number, header_text=line)
    names = _unnamed_index_header(line)
    if names is None:
        return None
    return TextTable("aligned", names, number, header_text=line, unnamed_index=True)


# a header of one-word names, each two spaces or more from the next: columns of fixed width
# (Chainer's `PrintReport`, ESPnet1's `train.log`), whose rows leave a cell blank where a value
# was not reported (the validation's columns between evaluations)
_FIXED_WIDTH_HEADER = re.compile(r"\s*\S+(?: {2,}\S+)+\s*")


def _fixed_width_cells(table: TextTable, row: str) -> list[str] | None:
    """A row of fewer fields than names, cut at the columns where the header's names start,
    blank cells kept (''); None when the header is not of fixed-width columns, a value does not
    sit within its column, or no blank cell lies between two values."""
    header = table.header_text
    if table.kind != "aligned" or not _FIXED_WIDTH_HEADER.fullmatch(header):
        return None
    starts = [m.start() for m in re.finditer(r"\S+", header)]
    if len(starts) != len(table.names):
        return None
    ends = [*starts[1:], max(len(row), starts[-1] + 1)]
    cells = [row[a:b].strip() for a, b in zip(starts, ends, strict=True)]
    if not cells[0] or row[: starts[0]].strip() or any(" " in c for c in cells):
        return None
    # a blank between values (a row cut short at its end is a broken row, not blank cells)
    inner_blank = any(not a and b for a, b in zip(cells, cells[1:], strict=False))
    return cells if inner_blank and [c for c in cells if c] == row.split() else None


def _names_for(table: TextTable, row: str, fields: int) -> tuple[str, ...]:
    """The header's names for a first row of fewer fields: without a leading `#` that is a
    comment marker (NumPy's `np.savetxt(f, rows, header="epoch train_loss val_loss")` writes
    `# epoch train_loss val_loss`), else grouped into names of several words; as they were when
    neither fits."""
    names = table.names
    if names[0] == "#" and len(names) == fields + 1 and is_results_header(names[1:]):
        return names[1:]
    grouped = _grouped_names(table.header_text, row)
    return grouped if grouped is not None else names


def _grouped_names(header: str, row: str) -> tuple[str, ...] | None:
    """A header whose names have several words (`Epoch  Train Loss  Val Loss`), grouped into
    as many names as `row` has fields: split at runs of two spaces or tabs when that gives the
    count, else each word joins the field whose columns it sits over (a table printed with one
    space between names, `Epoch Train Loss Val Loss`, its values aligned under them). None when
    no grouping gives a results header."""
    fields = [m.span() for m in re.finditer(r"\S+", row)]
    by_gaps = tuple(re.split(r"\s{2,}|\t", header.strip()))
    if len(by_gaps) == len(fields) and is_results_header(by_gaps):
        return by_gaps
    starts = [start for start, _ in fields]
    groups: list[list[str]] = [[] for _ in fields]
    last = 0
    for m in re.finditer(r"\S+", header):
        centre = (m.start() + m.end()) / 2
        # the field whose columns hold the word's centre, or the nearer of the two around it
        after = bisect.bisect_right(starts, centre)
        near = [i for i in (after - 1, after) if 0 <= i < len(fields)]
        nearest = min(near, key=lambda i: max(fields[i][0] - centre, centre - fields[i][1], 0.0))
        if nearest < last:
            return None
        groups[nearest].append(m.group())
        last = nearest
    if any(not group for group in groups):
        return None
    names = tuple(" ".join(group) for group in groups)
    return names if is_results_header(names) else None


def _ended(table: TextTable, line: str, since_row: int) -> bool:
    """A markdown table ends at its first line without a pipe (prose follows); a script's
    tables, aligned or piped, as an aligned one does (its loop prints lines between rows)."""
    if table.kind == "markdown":
        return "|" not in line
    return not line.strip() or since_row >= MAX_LINES_BETWEEN_ROWS


# the time fastai v1 printed after each row of a fit table whose header names no time column
# (`1 | 1.030236 | 0.179226 | 0.028369 | (00:14)`)
_ROW_TIME = re.compile(r"\(\d+(?::\d\d){1,2}\)")


def _add_row(table: TextTable, cells: list[str], number: int) -> None:
    if len(cells) == len(table.names) + 1 and _ROW_TIME.fullmatch(cells[-1].strip()):
        cells = cells[:-1]  # the row's time, beside a header that did not name it
    if len(cells) == len(table.names):
        table.rows.append(cells)
        table.lines.append(number)
    else:
        table.skipped.append(
            (number, f"{len(cells)} cell(s) where the header has {len(table.names)}")
        )
