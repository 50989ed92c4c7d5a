"""Jupyter notebooks (`.ipynb`): what the code cells printed, read as a console log.

A notebook keeps each cell's printed output (its `stream` outputs: stdout and stderr) as JSON
strings. Read as raw text, their escapes (`\\n`, `\\r`, a backspace) would be characters, a
progress bar's redraws would not collapse and the steps would come out wrong; so the outputs are
decoded and joined in cell order, then read by the console reader, styles, redraws and
restarts included: Keras' `fit` output in a Kaggle or Colab notebook, a PyTorch loop's prints. A
notebook whose outputs print no loss series is refused as such a console text is. Values shown
as a cell's result (`execute_result`, a DataFrame's text) and images are not read.
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
from lossforensics.ingest.base import IngestResult

FORMAT = "notebook"

# a notebook opens with one of its top-level keys: Jupyter writes them sorted (`cells` first),
# Colab `nbformat` first
_OPENS = re.compile(r'\A\s*\{\s*"(?:cells|nbformat|nbformat_minor|metadata)"\s*:')
# a notebook is parsed whole (images included): one larger than this is refused by the sniff
_MAX_BYTES = 64 << 20


def _cells(path: Path) -> list | None:
    """The notebook's cells, or None for a file that is no notebook."""
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


def sniff(path: Path) -> bool:
    """A notebook (a JSON document with its `nbformat` and its cells) whose printed output
    holds a loss series."""
    cells = _cells(Path(path))
    return cells is not None and console.sniff_text(printed(cells)[0])


def read(
    path: Path, *, run: str | None = None, roles: Mapping[str, str] | None = None
) -> IngestResult:
    """Read a notebook's printed output as one console log."""
    path = Path(path)
    require_nonempty(path)
    cells = _cells(path)
    if cells is None:
        raise UnknownFormatError(
            "not a Jupyter notebook (nbformat 4: a JSON document with `nbformat` and `cells`)",
            file=str(path),
            line=1,
        )
    text, printing = printed(cells)
    result = console.read_stream(
        io.BytesIO(text.encode("utf-8")),
        name=str(path),
        run=run or default_run_name(path),
        roles=roles,
    )
    result.format = FORMAT
    result.detail = f"notebook, the printed output of {printing} cell(s): {result.detail}"
    return result
