"""Jupyter notebooks (`.ipynb`): what the code cells printed, read as a console log.

A notebook keeps each cell's printed output (its `stream` outputs: stdout and stderr) as JSON
strings. Read as raw text, their escapes (`\\n`, `\\r`, a backspace) would be characters, a
progress bar's redraws would not collapse and the steps would come out wrong; so the outputs are
decoded and joined in cell order, then read by the console reader, styles, redraws and
restarts included: Keras' `fit` output in a Kaggle or Colab notebook, a PyTorch loop's prints.
When they print no loss series in console lines, a results table they printed is read (skorch's
fit table, `epoch  train_loss  valid_acc  valid_loss  dur`, one row an epoch); else the plain
text of what the cells displayed as their result (`execute_result`, `display_data`) is read for
one: a history shown as `pd.DataFrame(history.history)` after a silent `fit(..., verbose=0)`.
A notebook with neither is refused as such a console text is. Images are not read. A notebook
whose JSON is cut short (saved or copied while a long fit was still printing) gives the output
its stream texts hold up to the break, with a warning naming the byte where the JSON breaks.
"""

from __future__ import annotations

import io
import json
import re
from collections.abc import Mapping
from pathlib import Path

from lossforensics.classifiers.errors import UnknownFormatError
from lossforensics.ingest import console, printed_table
from lossforensics.ingest._html_tables import tables_as_markdown
from lossforensics.ingest._source import default_run_name, head_text, require_nonempty
from lossforensics.ingest.base import IngestResult, ReadWarning

FORMAT = "notebook"

# a notebook opens with one of its top-level keys: Jupyter writes them sorted (`cells` first),
# Colab `nbformat` first
_OPENS = re.compile(r'\A\s*\{\s*"(?:cells|nbformat|nbformat_minor|metadata)"\s*:')
# a notebook is parsed whole (images included): one larger than this is refused by the sniff
_MAX_BYTES = 64 << 20
# the outputs that show a cell's result rather than print it
_RESULTS = frozenset({"execute_result", "display_data"})
# one complete JSON string literal
_JSON_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')
# a stream output's text in a notebook's JSON: a string, or a list of them (the last one may
# be cut short with the file: its closing bracket is optional)
_STREAM_TEXT = re.compile(
    r'"text"\s*:\s*(\[\s*(?:"(?:[^"\\]|\\.)*"\s*,?\s*)*\]?|"(?:[^"\\]|\\.)*")'
)


def _joined(outputs: list[str]) -> str:
    """The outputs that printed something, one after the other, each ending its last line."""
    return "".join(t if t.endswith("\n") else t + "\n" for t in outputs if t)


def _text(value: object) -> str:
    """A notebook string: one string, or a list of lines."""
    if isinstance(value, list):
        return "".join(v for v in value if isinstance(v, str))
    return value if isinstance(value, str) else ""


def printed(cells: list) -> tuple[str, int]:
    """What the code cells printed (their stream outputs, in order), and how many cells
    printed something."""
    texts = [
        "".join(
            _text(out.get("text"))
            for out in cell.get("outputs") or []
            if isinstance(out, dict) and out.get("output_type") == "stream"
        )
        for cell in cells
        if isinstance(cell, dict) and cell.get("cell_type") == "code"
    ]
    return _joined(texts), sum(1 for t in texts if t)


def _cut_short(path: Path, raw: str, broken: int) -> tuple[str, int, ReadWarning, str] | None:
    """A notebook whose JSON breaks at character `broken` (cut short while saving or copying,
    damaged): the printed output its stream texts hold up to there, read as JSON strings, how
    many outputs that is, a warning naming the byte, and no displayed results (''); None when
    `raw` holds no cells."""
    if '"cells"' not in raw or '"cell_type"' not in raw:
        return None
    texts = [
        "".join(json.loads(s) for s in _JSON_STRING.findall(block.group(1)))
        for block in _STREAM_TEXT.finditer(raw)
    ]
    outputs = sum(1 for t in texts if t)
    note = ReadWarning(
        f"the notebook's JSON breaks here (cut short or damaged): the printed output of the "
        f"{outputs} stream output(s) before it is read",
        file=str(path),
        byte=len(raw[:broken].encode("utf-8")),  # the parser counts characters
    )
    return _joined(texts), outputs, note, ""


def _output(path: Path) -> tuple[str, int, ReadWarning | None, str] | None:
    """(what the code cells printed, how many cells or outputs printed it, a warning when the
    JSON was cut short, what they displayed as their results: `displayed`, '' for a notebook
    cut short), or None for a file that is no notebook. The file is read and parsed once."""
    head = head_text(path)
    if not head or not _OPENS.match(head) or path.stat().st_size > _MAX_BYTES:
        return None
    raw = path.read_bytes().decode("utf-8", errors="replace")
    try:
        doc = json.loads(raw)
    except json.JSONDecodeError as exc:
        return _cut_short(path, raw, exc.pos)
    except (ValueError, RecursionError):
        return None
    cells = doc.get("cells") if isinstance(doc, dict) and "nbformat" in doc else None
    return (*printed(cells), None, displayed(cells)) if isinstance(cells, list) else None


def displayed(cells: list) -> str:
    """The plain text of what the code cells displayed as their result (`execute_result`,
    `display_data`: a DataFrame's text), in order; an output kept only as HTML (its plain text
    IPython's placeholder, as for the Trainer's progress table) gives its tables as Markdown."""
    texts = [
        _shown(out.get("data") or {})
        for cell in cells
        if isinstance(cell, dict) and cell.get("cell_type") == "code"
        for out in cell.get("outputs") or []
        if isinstance(out, dict) and out.get("output_type") in _RESULTS
    ]
    return _joined(texts)


# what IPython stores as the plain text of an output it can only show as HTML
_HTML_PLACEHOLDER = "<IPython.core.display.HTML object>"


def _shown(data: object) -> str:
    """One displayed output's text: its plain text, or its HTML tables when the plain text is
    IPython's placeholder (or missing)."""
    if not isinstance(data, dict):
        return ""
    plain = _text(data.get("text/plain"))
    html = _text(data.get("text/html"))
    if (not plain.strip() or plain.strip() == _HTML_PLACEHOLDER) and "<table" in html:
        return tables_as_markdown(html)
    return plain


def _holds_table(text: str) -> bool:
    """Whether what the cells displayed holds a results table (a printed history DataFrame)."""
    return bool(text) and printed_table.holds_table(text.split("\n"))


def sniff(path: Path) -> bool:
    """A notebook (a JSON document with its `nbformat` and its cells, or one cut short) whose
    printed output holds a loss series, or whose displayed results hold a results table."""
    found = _output(Path(path))
    if found is None:
        return False
    return console.sniff_text(found[0]) or _holds_table(found[0]) or _holds_table(found[3])


def read(
    path: Path, *, run: str | None = None, roles: Mapping[str, str] | None = None
) -> IngestResult:
    """Read a notebook's printed output as one console log."""
    path = Path(path)
    require_nonempty(path)
    found = _output(path)
    if found is None:
        raise UnknownFormatError(
            "not a Jupyter notebook (nbformat 4: a JSON document with `nbformat` and `cells`)",
            file=str(path),
            line=1,
        )
    text, printing, note, shown = found
    name = run or default_run_name(path)
    try:
        result = console.read_stream(
            io.BytesIO(text.encode("utf-8")), name=str(path), run=name, roles=roles
        )
        what = f"the printed output of {printing} cell(s)"
    except UnknownFormatError:
        # no loss series in console lines: a results table the cells printed (skorch's and
        # fastai's fit tables), else a history shown as a cell's result
        # (`pd.DataFrame(history.history)` after `fit(..., verbose=0)`), is the record left
        table, what = (
            (text, f"the table printed by {printing} cell(s)")
            if _holds_table(text)
            else (shown, "the results its cells displayed")
        )
        if not _holds_table(table):
            raise
        result = printed_table.read_stream(
            io.BytesIO(table.encode("utf-8")), name=str(path), run=name, roles=roles
        )
    result.format = FORMAT
    result.detail = f"notebook, {what}: {result.detail}"
    if note is not None:
        result.warnings.insert(0, note)
    return result
