"""Results tables printed as text, wherever they sit among other lines (`_text_tables`):
fastai's fit table (`epoch  train_loss  valid_loss  accuracy  time`, aligned with spaces),
markdown pipe tables (a Hugging Face model card's "Training results", a pasted table) and a
printed pandas DataFrame of a history (`print(pd.DataFrame(history.history))`: its unnamed index
is the step).

A header names the columns, so this is a table reader, not a console style: a style names a
fixed set of columns, while fastai prints whatever metrics were passed and a model card
whatever the Trainer computed. The rows go through the CSV readers' melt, cell checks and role
inference. The step is the table's step column (`Step` when there is one, else `Epoch`).
`#na#`, `None` and `No log` cells are missing values (a metric fastai did not compute, a
training loss the Trainer had not logged yet), not errors; a clock `00:12` or `1:02:03` (fastai's
`time` column, an epoch's duration) is read as seconds. Beside the train and validation losses
of fastai (`train_loss`, `valid_loss`) or of the Trainer (`Training Loss`, `Validation Loss`),
bare scores (`accuracy`, `F1`) are validation scores: both compute their metrics on the
validation set. Each table is one `fit` call with its own schedule, often its own stage or
model (`fine_tune` prints the frozen epoch's table, then the unfrozen ones'; ULMFiT a language
model's fits, then a classifier's): a file of several tables holds one run per table, named
`<run> (table N)`, each judged on its own. Joined into one run, the epochs starting again at 0
and the levels of different stages would read as a resume or a blow-up.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import BinaryIO

import numpy as np
import pandas as pd
from lossforensics.classifiers.errors import (
    EmptyInputError,
    LimitExceededError,
    UnknownFormatError,
)
from lossforensics.ingest._builder import FrameBuilder, Warnings
from lossforensics.ingest._csv import BadCells, Chunk, CsvHeader, melt_chunk
from lossforensics.ingest._score_roles import (
    SPACY_LOSS,
    fastai_roles,
    hf_table_roles,
    spacy_roles,
    split_named_roles,
)
from lossforensics.ingest._source import HEAD_BYTES, default_run_name, head_text, require_nonempty
from lossforensics.ingest._steps import choose_step_key, integral_steps
from lossforensics.ingest._text_tables import TextTable, find_tables
from lossforensics.ingest.base import IngestResult
from lossforensics.ingest.console._prefix import strip_prefix
from lossforensics.ingest.console._text import clean

FORMAT = "printed_table"

# a cell printed as a percentage (`94.12%`, `94.12 %`): the number before the sign
_PERCENT = r"^([-+]?(?:\d+\.?\d*|\.\d+))\s*%$"
# a number a Markdown table marks as the best (`**72.80%**`, `__0.98__`) or follows with a note
# holding no digit (`**74.04%** ✅`, `44.29% **(Best)**`): the number, its emphasis and the note
# dropped (a note with a digit, `0.5 (0.6)`, is no single value)
_MARKED = r"^[*_`]+(?=[-+.\d])|(?<=[\d%])[*_`]+(?=\s|$)|(?<=[\d%*_`])\s+[^\d]*$"
_MISSING = ("", "#na#", "none", "no log")  # lower-case
_CLOCK = r"^(?:(\d+):)?(\d+):(\d\d)$"  # [h:]mm:ss
_KIND = {
    "aligned": "printed table (aligned columns)",
    "markdown": "markdown table",
    "pipe": "printed table (columns between pipes)",
}


def sniff(path: Path) -> bool:
    """Text whose first bytes hold a results table with at least one row."""
    path = Path(path)
    text = head_text(path, HEAD_BYTES)
    if not text or ("loss" not in text.lower() and "nll" not in text.lower()):
        return False
    lines = [_unquoted(strip_prefix(line)[0]) for line in clean(text).split("\n")]
    if path.stat().st_size > HEAD_BYTES:
        lines = lines[:-1]  # the last line may be cut by the read size
    return next(_tables_of(path, lines), None) is not None


def holds_table(lines: Iterable[str]) -> bool:
    """Whether these lines of text hold a results table with at least one row."""
    return next(_tables_of(Path("<text>"), lines), None) is not None


def read(
    path: Path, *, run: str | None = None, roles: Mapping[str, str] | None = None
) -> IngestResult:
    path = Path(path)
    require_nonempty(path)
    with open(path, "rb") as fh:
        return read_stream(fh, name=str(path), run=run or default_run_name(path), roles=roles)


def read_stream(
    stream: BinaryIO, *, name: str, run: str, roles: Mapping[str, str] | None = None
) -> IngestResult:
    """The results tables of a text stream (a file's, or what a notebook's cells displayed),
    its errors and warnings said against `name`."""
    path = Path(name)
    tables = list(_tables_of(path, _text_lines(stream)))
    if not tables:
        raise UnknownFormatError(
            "no results table: no header naming a step and a loss column (fastai's `epoch  "
            "train_loss  valid_loss ...`, a markdown table with `Step` or `Epoch` and "
            "`Training Loss`) followed by a row",
            file=str(path),
        )
    warns = Warnings(str(path))
    builder = FrameBuilder()
    bad = BadCells()
    default_roles: dict[str, str] = {}
    for index, table in enumerate(tables):
        table_run = run if len(tables) == 1 else f"{run} (table {index + 1})"
        _add_table(table, builder.runs.code(table_run), builder, bad, warns)
        default_roles.update(_table_roles(table.names))
    bad.report(warns)
    rows = sum(len(t.rows) for t in tables)
    if builder.points == 0:
        raise EmptyInputError(
            f"no numeric points in {rows} table row(s){_bad_detail(bad)}",
            file=str(path),
            line=bad.first[0] if bad.first else tables[0].header_line,
        )
    detail = " and ".join(dict.fromkeys(_KIND[t.kind] for t in tables))
    headers = ", ".join(str(t.header_line) for t in tables)
    warns.add(
        f"read as a {detail}: {len(tables)} table(s) (header on line {headers}), {rows} row(s); "
        + (
            "steps are the DataFrame's index (its first column, unnamed in the header)"
            if tables[0].indexed
            else f"steps are the {choose_step_key(tables[0].names)!r} column"
        )
    )
    frame = builder.build(roles, default_roles=default_roles, warns=warns)
    result = IngestResult(frame, warns.finish(), format=FORMAT, files=[str(path)])
    result.detail = f"{detail}; {len(tables)} table(s), {rows} row(s)"
    return result


def _tables_of(path: Path, lines: Iterable[str]) -> Iterator[TextTable]:
    """`find_tables`, a read limit it meets said against the file."""
    try:
        yield from find_tables(lines)
    except LimitExceededError as exc:
        exc.file = str(path)
        raise


def _text_lines(stream: BinaryIO) -> Iterator[str]:
    """The stream's lines as text, one per `\\n` (so line numbers are the file's), each with
    colour codes removed, a carriage-return redraw reduced to its last state and a logger's
    prefix (its time, name and level: `2025-11-30 16:33:57,509 - __main__ - INFO - `) taken off."""
    for raw in stream:
        line = raw.decode("utf-8", errors="replace").rstrip("\r\n")
        if "\r" in line or "\x1b" in line:
            line = clean(line).rsplit("\n", 1)[-1]
        yield _unquoted(strip_prefix(line)[0])


# a Markdown quote marker before a line (`> epoch  iteration  lr  main/loss`): an issue's reply
# quotes the table it answers, often only some of its lines
_QUOTE = re.compile(r"^[ \t]*(?:>[ \t]?)+(?=\S)")


def _unquoted(line: str) -> str:
    return _QUOTE.sub("", line, count=1) if line[:1] in "> \t" else line


def _add_table(
    table: TextTable,
    run_code: int,
    builder: FrameBuilder,
    bad: BadCells,
    warns: Warnings,
) -> None:
    """The table's cells as points of run `run_code`."""
    for line, why in table.skipped:
        warns.add(f"row skipped: {why}", line=line, kind="row skipped (wrong number of cells)")
    names = table.names
    step_col = names.index(choose_step_key(names))
    cells = _cell_values(table)
    if spacy_roles(names):
        cells = _mean_losses_a_step(cells, names, step_col)
        warns.add(
            "spaCy's table sums each LOSS over the steps since the row before (the first row: "
            "one step): read as the mean loss a step, each sum divided by its steps"
        )
    chunk = Chunk(cells, table.lines[0], lines=np.asarray(table.lines))
    step_cells = chunk.cells(step_col)
    steps, ok = integral_steps(np.where(step_cells.keep, step_cells.values, np.nan))
    if not ok.all():
        first = chunk.line_of(int(np.flatnonzero(~ok)[0]))
        warns.add(
            f"{int((~ok).sum())} row(s) without a whole-number {names[step_col]!r} skipped",
            line=first,
        )
    columns = [j for j in range(len(names)) if j != step_col and names[j]]
    codes = np.array([builder.metrics.code(names[j]) for j in columns], dtype=np.int32)
    sep = "|" if table.kind in ("markdown", "pipe") else " "
    header = CsvHeader(sep, names, False, len(table.rows))
    melt_chunk(chunk, header, columns, codes, run_code, steps, ok, builder, bad)


def _cell_values(table: TextTable) -> pd.DataFrame:
    """The table's cells by column position: missing tokens as NA, clocks as seconds, a
    percentage as the number printed (`94.12%`, as a console line's is read), a number marked
    as the best as that number (`**72.80%** ✅`), the rest as printed (numbers are read by the
    melt)."""
    frame = pd.DataFrame(table.rows, dtype=object)
    for j in frame.columns:
        col = frame[j].str.strip()
        col = col.mask(col.str.lower().isin(_MISSING))
        numeric = col.str.match(r"^[*_`]*[-+]?\.?\d", na=False)
        col = col.mask(numeric, col.str.replace(_MARKED, "", regex=True))
        clock = col.str.extract(_CLOCK).astype(float)
        seconds = clock[0].fillna(0) * 3600 + clock[1] * 60 + clock[2]
        percent = col.str.extract(_PERCENT, expand=False)
        frame[j] = col.mask(seconds.notna(), seconds).mask(percent.notna(), percent)
    return frame


def _mean_losses_a_step(cells: pd.DataFrame, names: tuple[str, ...], step_col: int) -> pd.DataFrame:
    """spaCy's `LOSS <component>` cells divided by the steps each sums over: from the row
    before (from step 0 for the first row, and for a row whose step went back), at least one.
    Summed, the first row's one step and the later rows' hundreds are not on one scale."""
    steps = pd.to_numeric(cells[step_col], errors="coerce").to_numpy(dtype=float)
    before = np.r_[0.0, steps[:-1]]
    gaps = np.where(steps > before, steps - before, steps)
    gaps = np.where(np.isfinite(gaps), np.maximum(gaps, 1.0), np.nan)
    out = cells.copy()
    for j, name in enumerate(names):
        if name.startswith(SPACY_LOSS):
            out[j] = pd.to_numeric(cells[j], errors="coerce") / gaps
    return out


def _bad_detail(bad: BadCells) -> str:
    if not bad.first:
        return ""
    _, column, text = bad.first
    return f" ({bad.count} non-numeric cell(s), the first {text[:40]!r} in {column!r})"


def _table_roles(names: tuple[str, ...]) -> dict[str, str]:
    return {
        **split_named_roles(names),
        **fastai_roles(names),
        **hf_table_roles(names),
        **spacy_roles(names),
    }
