"""Splitting a JSON-lines file into parsed records, in chunks, with the line number and byte
offset of everything that could not be parsed: the one place that knows about lines.

Speed: a block whose every line opens with `{` is read a chunk at a time by pyarrow's C++ JSON
reader into the chunk's frame (`_jsonlines_arrow`), when that gives the frame the standard
library's parse would; otherwise, or for any other block, the lines are parsed as one JSON array
by one C-accelerated `decode` call, their newlines turned into commas, without splitting them
into lines; a block that does not parse that way (a blank or bad line) is split, and parsed a
chunk of lines at a time; only a chunk holding a bad line is parsed again line by line, to say
which line it was.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from itertools import chain, compress, repeat
from pathlib import Path

import numpy as np
import pandas as pd
from lossforensics.classifiers.errors import CorruptInputError
from lossforensics.ingest._builder import Warnings
from lossforensics.ingest._jsonlines_arrow import arrow_frame, object_line_starts
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


def parse_document(path: Path, text: bytes) -> object:
    """One JSON document (a whole file), or CorruptInputError saying where it breaks."""
    try:
        return parse_json(text)
    except json.JSONDecodeError as exc:
        raise CorruptInputError(
            f"not valid JSON: {exc.msg}", file=str(path), line=exc.lineno, byte=exc.pos
        ) from None
    except (ValueError, RecursionError) as exc:
        raise CorruptInputError(f"not valid JSON: {exc}", file=str(path)) from None


def flat_frame(records: list[dict]) -> pd.DataFrame:
    """JSON objects as columns; nested objects flattened with '/' (json_normalize is ~4x slower
    on flat records, so only when an object column actually holds a dict). The columns, every
    key in order of first appearance, are gathered here in one C-level pass (pandas' own pass
    builds a list of keys per record: ~1 ms on 10k records)."""
    keys = list(dict.fromkeys(chain.from_iterable(records)))
    if not keys:  # empty objects (`{}`): a row each all the same, so lines and rows stay aligned
        return pd.DataFrame(index=pd.RangeIndex(len(records)))
    frame = pd.DataFrame.from_records(records, columns=keys)
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

    @property
    def frame(self) -> pd.DataFrame:
        """The records as columns (`flat_frame`)."""
        return flat_frame(self.records)


class FrameChunk:
    """A chunk pyarrow read straight into its frame (`_jsonlines_arrow`); its records, for a
    reader that wants the objects themselves, parsed from its text on first use."""

    def __init__(self, frame: pd.DataFrame, text: bytes, lines: np.ndarray) -> None:
        self.frame = frame
        self.lines = lines
        self._text = text
        self._records: list[dict] | None = None

    @property
    def records(self) -> list[dict]:
        if self._records is None:
            joined = self._text.rstrip(b"\n").replace(b"\n", b",")
            self._records = _DECODER.decode("[" + joined.decode("utf-8", errors="replace") + "]")
        return self._records


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
            if len(records) == len(pending.texts) and all(map(isinstance, records, repeat(dict))):
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


def _blocks(path: Path) -> Iterator[tuple[bytes, int, int, bool]]:
    """(whole lines, number of the first line, byte offset of the first line, is the file's
    unterminated last line) in blocks of whole lines."""
    number, offset, tail = 1, 0, b""
    with open(path, "rb") as fh:
        while True:
            block = fh.read(_BLOCK_BYTES)
            data = tail + block
            if not block:
                if data:
                    yield data, number, offset, True
                return
            cut = data.rfind(b"\n") + 1  # after the last newline: the next block's line starts
            tail = data[cut:]
            if cut:
                body = data[:cut]
                yield body, number, offset, False
                number += body.count(b"\n")
                offset += cut


def _whole_block(body: bytes) -> list[dict] | None:
    """Every line of `body` parsed in one call, when each line is one JSON object (blank lines
    only at the end); None otherwise (a blank line in between leaves an empty array element, a
    bad line a syntax error, a line of two values one record too many)."""
    text = body.rstrip(b"\n")
    try:
        records = _DECODER.decode(
            "[" + text.replace(b"\n", b",").decode("utf-8", errors="replace") + "]"
        )
    except (ValueError, RecursionError):
        return None
    lines = text.count(b"\n") + 1 if text else 0
    if len(records) != lines or not all(map(isinstance, records, repeat(dict))):
        return None
    return records


def _split_lines(body: bytes, at_end: bool) -> list[bytes]:
    """The block's lines, each with its newline (the unterminated last line without)."""
    return [body] if at_end else [ln + b"\n" for ln in body.split(b"\n")[:-1]]


class _ChunkSizes:
    """A small first chunk (fail fast on a non-JSON file), CHUNK_LINES after it."""

    def __init__(self, chunk_lines: int) -> None:
        self.chunk_lines = chunk_lines
        self.size = min(chunk_lines, _PROBE_LINES)

    def bounds(self, n: int) -> Iterator[tuple[int, int]]:
        a = 0
        while a < n:
            b = a + self.size
            yield a, b
            a, self.size = b, self.chunk_lines


def _arrow_chunks(
    parser: _Parser,
    sizes: _ChunkSizes,
    body: bytes,
    starts: np.ndarray,
    number: int,
    offset: int,
) -> Iterator[RecordChunk | FrameChunk]:
    """A block of lines that each open with `{`, in the chunks the other paths cut: each read
    by pyarrow when `arrow_frame` vouches for it, else parsed as the split path parses it."""
    ends = np.append(starts[1:], len(body))
    for a, b in sizes.bounds(len(starts)):
        b = min(b, len(starts))
        text = body[starts[a] : ends[b - 1]]
        lines = np.arange(number + a, number + b)
        frame = arrow_frame(text, b - a)
        if frame is not None:
            parser.parsed += b - a
            yield FrameChunk(frame, text, lines)
            continue
        texts = [line.strip() for line in text.split(b"\n")[:-1]]
        chunk = parser.chunk(_Pending(texts, lines.tolist(), (offset + starts[a:b]).tolist()))
        if chunk.records:
            yield chunk


def iter_records(
    path: Path, warns: Warnings, chunk_lines: int | None = None
) -> Iterator[RecordChunk | FrameChunk]:
    """Parsed JSON objects in chunks. A bad middle line is a warning with its line and byte; a
    cut last line (a run still writing) is a warning; a file whose first lines are all not JSON
    is a CorruptInputError (it is something else: a CSV named .jsonl, a binary file). Chunk
    bounds count non-blank lines, whichever way a block was parsed."""
    parser = _Parser(path, warns)
    sizes = _ChunkSizes(chunk_lines or CHUNK_LINES)
    for body, number, offset, at_end in _blocks(path):
        starts = None if at_end else object_line_starts(body)
        if starts is not None:
            yield from _arrow_chunks(parser, sizes, body, starts, number, offset)
            continue
        records = _whole_block(body)
        if records is not None:  # no blank line before the last record: line = number + index
            parser.parsed += len(records)
            for a, b in sizes.bounds(len(records)):
                part = records[a:b]
                yield RecordChunk(part, list(range(number + a, number + a + len(part))))
            continue
        lines = _split_lines(body, at_end)
        stripped = [ln.strip() for ln in lines]
        keep = np.fromiter(map(bool, stripped), dtype=bool, count=len(stripped))
        lengths = np.fromiter(map(len, lines), dtype=np.int64, count=len(lines))
        starts = offset + np.concatenate(([0], np.cumsum(lengths)[:-1]))
        numbers = number + np.flatnonzero(keep)
        starts = starts[keep]
        texts = list(compress(stripped, keep))
        cut = at_end and not lines[-1].endswith(b"\n")
        for a, b in sizes.bounds(len(texts)):
            pending = _Pending(
                texts[a:b],
                numbers[a:b].tolist(),
                starts[a:b].tolist(),
                cut_last=cut and b >= len(texts),
            )
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
