"""Splitting a JSON-lines file into parsed records, in chunks, with the line number and byte
offset of everything that could not be parsed: the one place that knows about lines."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from app.ingest._builder import Warnings
from app.ingest._values import LOGGED_NAN
from classifiers.errors import CorruptInputError

CHUNK_LINES = 50_000
_PROBE_LINES = 20  # this many unparseable lines and nothing parsed: not JSON lines at all


def _constant(token: str) -> float:
    """JSON's non-standard tokens: NaN becomes the logged-NaN marker, +-Infinity stay inf."""
    return LOGGED_NAN if token == "NaN" else float(token)


def parse_json(text: str | bytes) -> object:
    return json.loads(text, parse_constant=_constant)


@dataclass
class RecordChunk:
    records: list[dict] = field(default_factory=list)
    lines: list[int] = field(default_factory=list)  # 1-based line of each record


def iter_records(path: Path, warns: Warnings, chunk_lines: int = CHUNK_LINES
                 ) -> Iterator[RecordChunk]:
    """Parsed JSON objects in chunks. A bad middle line is a warning with its line and byte; a
    cut last line (a run still writing) is a warning; a file whose first lines are all not JSON
    is a CorruptInputError (it is something else: a CSV named .jsonl, a binary file)."""
    parsed = failed = 0
    offset = 0
    chunk = RecordChunk()
    with open(path, "rb") as fh:
        for number, raw in enumerate(fh, start=1):
            start, offset = offset, offset + len(raw)
            text = raw.strip()
            if not text:
                continue
            try:
                obj = parse_json(text)
            except (ValueError, RecursionError):
                failed += 1
                if not raw.endswith(b"\n") and parsed:
                    warns.add("last line is cut short (a run still writing?): ignored",
                              line=number, byte=start)
                elif parsed == 0 and failed >= _PROBE_LINES:
                    raise CorruptInputError("not JSON lines: none of the first "
                                            f"{failed} lines parse as JSON", file=str(path),
                                            line=1, byte=0) from None
                else:
                    warns.add("line is not valid JSON: skipped", line=number, byte=start,
                              kind="invalid JSON line")
                continue
            if not isinstance(obj, dict):
                failed += 1
                warns.add(f"line holds a JSON {type(obj).__name__}, not an object: skipped",
                          line=number, byte=start, kind="not an object")
                continue
            parsed += 1
            chunk.records.append(obj)
            chunk.lines.append(number)
            if len(chunk.records) >= chunk_lines:
                yield chunk
                chunk = RecordChunk()
    if chunk.records:
        yield chunk
    if parsed == 0 and failed:
        raise CorruptInputError(f"no line parses as a JSON object ({failed} tried)",
                                file=str(path), line=1, byte=0)
