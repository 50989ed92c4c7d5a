"""Jupyter notebooks (`.ipynb`): what the code cells printed, read as a console log.

A notebook keeps each cell's printed output (its `stream` outputs: stdout and stderr) as JSON
strings. Read as raw text, their escapes (`\\n`, `\\r`, a backspace) would be characters, a
progress bar's redraws would not collapse and the steps would come out wrong; so the outputs are
decoded and joined in cell order, then read by the console reader, styles, redraws and
restarts included: Keras' `fit` output in a Kaggle or Colab notebook, a PyTorch loop's prints. A
notebook whose outputs print no loss series is refused as such a console text is. Values shown
as a cell's result (`execute_result`, a DataFrame's text) and images are not read. A notebook
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
from lossforensics.ingest import console
from lossforensics.ingest._source import default_run_name, head_text, require_nonempty
from lossforensics.ingest.base import IngestResult, ReadWarning

FORMAT = "notebook"

# a notebook opens with one of its top-level keys: Jupyter writes them sorted (`cells` first),
# Colab `nbformat` first
_OPENS = re.compile(r'\A\s*\{\s*"(?:cells|nbformat|nbformat_minor|metadata)"\s*:')
# a notebook is parsed whole (images included): one larger than this is refused by the sniff
_MAX_BYTES = 64 << 20
# one complete JSON string literal
_JSON_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')
# a stream output's text in a notebook's JSON: a string, or a list of them (the last one may
# be cut short with the file: its closing bracket is optional)
_STREAM_TEXT = re.compile(
    r'"text"\s*:\s*(\[\s*(?:"(?:[^"\\]|\\.)*"\s*,?\s*)*\]?|"(?:[^"\\]|\\.)*")'
)


def _cells(path: Path) -> list | None:
    """The notebook's cells, or None for a file that is no notebook (or no whole one)."""
    text = head_text(path)
    if not text or not _OPENS.match(text) or path.stat().st_size > _MAX_BYTES:
        return None
    try:
        doc = json.loads(path.read_bytes())
    except (ValueError, RecursionError):
        return None
    if not isinstance(doc, dict) or "nbformat" not in doc:
        return None
    cells = doc.get("cells")
    return cells if isinstance(cells, list) else None


def _cut_short(path: Path) -> tuple[str, int, int] | None:
    """A notebook whose JSON does not parse (cut short while saving or copying, damaged): the
    printed output its stream texts still hold, read as JSON strings up to the damage, the
    number of outputs read, and the byte where the JSON breaks; None for any other file."""
    text = head_text(path)
    if not text or not _OPENS.match(text) or path.stat().st_size > _MAX_BYTES:
        return None
    raw = path.read_bytes().decode("utf-8", errors="replace")
    try:
        json.loads(raw)
        return None  # whole: `_cells` read it, or it is no notebook
    except json.JSONDecodeError as exc:
        broken = len(raw[: exc.pos].encode("utf-8"))  # the parser counts characters
    except (ValueError, RecursionError):
        return None
    if '"cells"' not in raw or '"cell_type"' not in raw:
        return None
    parts = []
    for block in _STREAM_TEXT.finditer(raw):
        pieces = [json.loads(s) for s in _JSON_STRING.findall(block.group(1))]
        text = "".join(pieces)
        if text:
            parts.append(text if text.endswith("\n") else text + "\n")
    return "".join(parts), len(parts), broken


def _text(value: object) -> str:
    """A notebook string: one string, or a list of lines."""
    if isinstance(value, list):
        return "".join(v for v in value if isinstance(v, str))
    return value if isinstance(value, str) else ""


def printed(cells: list) -> tuple[str, int]:
    """What the code cells printed (their stream outputs, in order), and how many cells
    printed something."""
    parts: list[str] = []
    printing = 0
    for cell in cells:
        if not isinstance(cell, dict) or cell.get("cell_type") != "code":
            continue
        streams = [
            _text(out.get("text"))
            for out in cell.get("outputs") or []
            if isinstance(out, dict) and out.get("output_type") == "stream"
        ]
        text = "".join(streams)
        if text:
            printing += 1
            parts.append(text if text.endswith("\n") else text + "\n")
    return "".join(parts), printing


def _output(path: Path) -> tuple[str, int, ReadWarning | None] | None:
    """(what the code cells printed, how many cells or outputs printed it, a warning when the
    JSON was cut short), or None for a file that is no notebook."""
    cells = _cells(path)
    if cells is not None:
        return (*printed(cells), None)
    cut = _cut_short(path)
    if cut is None:
        return None
    text, outputs, broken = cut
    note = ReadWarning(
        f"the notebook's JSON breaks here (cut short or damaged): the printed output of the "
        f"{outputs} stream output(s) before it is read",
        file=str(path),
        byte=broken,
    )
    return text, outputs, note


def sniff(path: Path) -> bool:
    """A notebook (a JSON document with its `nbformat` and its cells, or one cut short) whose
    printed output holds a loss series."""
    found = _output(Path(path))
    return found is not None and console.sniff_text(found[0])


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
    text, printing, note = found
    result = console.read_stream(
        io.BytesIO(text.encode("utf-8")),
        name=str(path),
        run=run or default_run_name(path),
        roles=roles,
    )
    result.format = FORMAT
    result.detail = f"notebook, the printed output of {printing} cell(s): {result.detail}"
    if note is not None:
        result.warnings.insert(0, note)
    return result
