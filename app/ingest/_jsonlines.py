"""Splitting a JSON-lines file into parsed records, in chunks, with the line number and byte
offset of everything that could not be parsed: the one place that knows about lines.

Speed: a chunk of lines is parsed as one JSON array by one C-accelerated `decode` call; only a
chunk holding a bad line is parsed again line by line, to say which line it was.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from itertools import compress
from pathlib import Path

import numpy as np
import pandas as pd
from lossforensics.classifiers.errors import CorruptInputError
from lossforensics.ingest._builder import Warnings
from lossforensics.ingest._values import LOGGED_NAN

CHUNK_LINES = 50_000
_PROBE_LINES = 20  # this many unparseable lines and nothing parsed: not JSON lines at all


def _constant(token: str) -> float:
    """JSON's non-standard tokens: NaN becomes the logged-NaN marker, +-Infinity stay inf."""
    return LOGGED_NAN if token == "NaN" else float(token)


_DECODER = json.JSONDecoder(parse_constant=_constant)


def parse_json(text: str | bytes) -> object:
    if isinstance(text, bytes | bytearray):
        text = text.decode("utf-8", errors="replace")
    return _DECODER.decode(text.lstrip("\ufeff"))


def flat_frame(records: list[dict]) -> pd.DataFrame:
    """JSON objects as columns; nested objects flattened with '/' (json_normalize is ~4x slower
    on flat records, so only when an object column actually holds a dict)."""
    frame = pd.DataFrame.from_records(records)
    nested = any(
        frame[c].map(lambda v: isinstance(v, dict)).any()
        for c in frame.columns
        if frame[c].dtype == object
    )
    return pd.json_normalize(records, sep="/") if nested else frame


@dataclass
class RecordChunk:
    records: list[dict] = field(default_factory=list)
    lines: list[int] = field(default_factory=list)  # 1-based line of each record


@dataclass
class _Pending:
    texts: list[bytes] = field(default_factory=list)
    numbers: list[int] = field(default_factory=list)
    offsets: list[int] = field(default_factory=list)
    cut_last: bool = False  # the file's last line had no newline


class _Parser:
    def __init__(self, path: Path, warns: Warnings) -> None:
        self.path = path
        self.warns = warns
        self.parsed = 0
        self.failed = 0

    def chunk(self, pending: _Pending) -> RecordChunk:
        try:
            joined = b",".join(pending.texts).decode("utf-8", errors="replace")
            records = _DECODER.decode("[" + joined + "]")
            if all(isinstance(r, dict) for r in records) and len(records) == len(pending.texts):
                self.parsed += len(records)
                return RecordChunk(records, pending.numbers)
        except (ValueError, RecursionError):
            pass
        return self._line_by_line(pending)

    def _line_by_line(self, pending: _Pending) -> RecordChunk:
        out = RecordChunk()
        last = len(pending.texts) - 1
        for i, (text, number, start) in enumerate(
            zip(pending.texts, pending.numbers, pending.offsets, strict=True)
        ):
            try:
                obj = _DECODER.decode(text.decode("utf-8", errors="replace"))
            except (ValueError, RecursionError):
                self._bad(number, start, cut=pending.cut_last and i == last)
                continue
            if not isinstance(obj, dict):
                self.failed += 1
                self.warns.add(
                    f"line holds a JSON {type(obj).__name__}, not an object: skipped",
                    line=number,
                    byte=start,
                    kind="not an object",
                )
                continue
            self.parsed += 1
            out.records.append(obj)
            out.lines.append(number)
        return out

    def _bad(self, number: int, start: int, cut: bool) -> None:
        self.failed += 1
        if cut and self.parsed:
            self.warns.add(
                "last line is cut short (a run still writing?): ignored", line=number, byte=start
            )
        elif self.parsed == 0 and self.failed >= _PROBE_LINES:
            raise CorruptInputError(
                f"not JSON lines: none of the first {self.failed} lines parse as JSON",
                file=str(self.path),
                line=1,
                byte=0,
            )
        else:
            self.warns.add(
                "line is not valid JSON: skipped", line=number, byte=start, kind="invalid JSON line"
            )


_BLOCK_BYTES = 8 << 20


def _blocks(path: Path) -> Iterator[tuple[list[bytes], int, int, bool]]:
    """(lines, number of the first line, byte offset of the first line, is the file's end) in
    blocks of whole lines; the last line of the file may lack its newline."""
    number, offset, tail = 1, 0, b""
    with open(path, "rb") as fh:
        while True:
            block = fh.read(_BLOCK_BYTES)
            data = tail + block
            if not block:
                if data:
                    yield [data], number, offset, True
                return
            lines = data.split(b"\n")
            tail = lines.pop()  # after the last newline: the start of the next block's line
            if lines:
                yield [ln + b"\n" for ln in lines], number, offset, False
                number += len(lines)
                offset += len(data) - len(tail)


def iter_records(
    path: Path, warns: Warnings, chunk_lines: int | None = None
) -> Iterator[RecordChunk]:
    """Parsed JSON objects in chunks. A bad middle line is a warning with its line and byte; a
    cut last line (a run still writing) is a warning; a file whose first lines are all not JSON
    is a CorruptInputError (it is something else: a CSV named .jsonl, a binary file)."""
    parser = _Parser(path, warns)
    chunk_lines = chunk_lines or CHUNK_LINES
    size = min(chunk_lines, _PROBE_LINES)  # a small first chunk: fail fast on a non-JSON file
    for lines, number, offset, at_end in _blocks(path):
        stripped = [ln.strip() for ln in lines]
        keep = np.fromiter(map(bool, stripped), dtype=bool, count=len(stripped))
        lengths = np.fromiter(map(len, lines), dtype=np.int64, count=len(lines))
        starts = offset + np.concatenate(([0], np.cumsum(lengths)[:-1]))
        numbers = number + np.flatnonzero(keep)
        starts = starts[keep]
        texts = list(compress(stripped, keep))
        cut = at_end and not lines[-1].endswith(b"\n")
        a = 0
        while a < len(texts):
            b = a + size
            pending = _Pending(
                texts[a:b],
                numbers[a:b].tolist(),
                starts[a:b].tolist(),
                cut_last=cut and b >= len(texts),
            )
            a, size = b, chunk_lines
            chunk = parser.chunk(pending)
            if chunk.records:
                yield chunk
    if parser.parsed == 0 and parser.failed:
        raise CorruptInputError(
            f"no line parses as a JSON object ({parser.failed} tried)",
            file=str(path),
            line=1,
            byte=0,
        )
