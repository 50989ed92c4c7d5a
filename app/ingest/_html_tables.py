"""The tables of an HTML fragment as Markdown, for the printed-table reader.

A notebook keeps some results only as HTML: the Hugging Face Trainer's progress table in Jupyter,
Colab or Kaggle (`<table>` with `Step | Training Loss | Validation Loss | ...`, the `text/plain`
beside it only `<IPython.core.display.HTML object>`), fastai's fit table. Each `<table>` becomes a
Markdown table, a row for each `<tr>` and a cell for each `<th>` or `<td>`, its text with the
white space collapsed; the standard library's HTML parser reads the markup (no script or style
is run, and no entity is resolved beyond its text).
"""

from __future__ import annotations

from html.parser import HTMLParser

# rows a table needs to hold a curve: a header and two rows of values
_MIN_ROWS = 3


class _Tables(HTMLParser):
    """Collects each table's rows of cell texts."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tables: list[list[list[str]]] = []
        self._depth = 0
        self._row: list[str] | None = None
        self._cell: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "table":
            self._depth += 1
            if self._depth == 1:
                self.tables.append([])
        elif self._depth == 1 and tag == "tr":
            self._row = []
        elif self._depth == 1 and tag in ("td", "th") and self._row is not None:
            self._cell = []

    def handle_endtag(self, tag: str) -> None:
        if tag == "table" and self._depth:
            self._depth -= 1
        elif self._depth == 1 and tag in ("td", "th") and self._cell is not None:
            if self._row is not None:
                self._row.append(" ".join("".join(self._cell).split()))
            self._cell = None
        elif self._depth == 1 and tag == "tr" and self._row is not None:
            if self._row:
                self.tables[-1].append(self._row)
            self._row = None

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell.append(data)


def tables_as_markdown(html: str) -> str:
    """Each table of `html` with a header and two rows or more, as a Markdown table (tables
    separated by a blank line); '' when there is none."""
    parser = _Tables()
    parser.feed(html)
    parser.close()
    out = []
    for rows in parser.tables:
        width = len(rows[0]) if rows else 0
        if len(rows) < _MIN_ROWS or width < 2 or any(len(r) != width for r in rows):
            continue
        lines = ["| " + " | ".join(rows[0]) + " |", "|" + "---|" * width]
        lines += ["| " + " | ".join(row) + " |" for row in rows[1:]]
        out.append("\n".join(lines))
    return "\n\n".join(out) + ("\n" if out else "")
