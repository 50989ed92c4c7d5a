"""Per-epoch records saved as one JSON document rather than one object a line: a list of them
(`json.dump(history, f)` where `history` is `[{"epoch": 1, "loss": 0.9, ...}, ...]`), or an
object that keeps such a list under one key beside the run's settings (`{"seed": 42, "config":
{...}, "history": [{...}, ...]}`), or one level further down (`{"run_info": {...},
"train_info": {"metrics": [{...}, ...]}}`). The records are the lines of a JSON-lines log by another
layout, so the jsonl reader reads them (`records_document`); each keeps the line its object
opens on, for warnings. A document cut short (a script that rewrites the whole list every epoch,
killed mid-write; a copy of its first part) gives the complete records before the break, with a
warning naming where it breaks.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from lossforensics.classifiers.errors import CorruptInputError
from lossforensics.ingest._builder import Warnings
from lossforensics.ingest._jsonlines import RecordChunk, parse_document

# a loss-named key with a number after it (or written as text, `"0.52"`; or null, which a
# NaN is written as): what makes the records a training log
_LOSS_KEY = re.compile(
    r""""[^"\n]{0,100}loss[^"\n]{0,100}"\s*:\s*(?:"?[-+\d.NI]|"?nan\b|null\b)""", re.I
)
# a list of objects under a key (`"history": [ {`)
_LIST_OF_OBJECTS = re.compile(r""""([^"\n]{1,100})"\s*:\s*\[\s*\{""")
_WHITESPACE = re.compile(r"\s*")
_DECODER = json.JSONDecoder()


def looks_like_records(text: str) -> bool:
    """Whether a file's head opens one JSON document holding a list of loss-logging records:
    `[{` at the top, or `{` on a line of its own with a list of objects under a key (a file of
    JSON lines opens with a whole object on its first line instead)."""
    body = text.lstrip("\ufeff \t\r\n")
    if _LOSS_KEY.search(body) is None:
        return False
    if body.startswith("["):
        return body[1:].lstrip().startswith("{")
    return body.startswith("{") and _LIST_OF_OBJECTS.search(body) is not None


def _records_path(doc: dict) -> tuple[str, ...] | None:
    """The keys to the longest list of records holding a loss-named key: under a key of the
    document, or of an object one level down (PEFT's method comparison keeps them under
    `train_info.metrics`, beside `run_info` and `meta_info`); None when there is none."""
    best: tuple[int, tuple[str, ...]] | None = None
    places: list[tuple[tuple[str, ...], object]] = [((str(k),), v) for k, v in doc.items()]
    places += [
        ((str(k), str(k2)), v2)
        for k, v in doc.items()
        if isinstance(v, dict)
        for k2, v2 in v.items()
    ]
    for path, value in places:
        if isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
            if any("loss" in str(k).lower() for v in value for k in v):
                if best is None or len(value) > best[0]:
                    best = (len(value), path)
    return None if best is None else best[1]


def _walk(text: str, opening: int, limit: int | None = None) -> tuple[list[object], list[int]]:
    """The values of the list opening at `opening`, each with the line it starts on: up to
    `limit` of them, or to the first that is not whole (a document cut short)."""
    values: list[object] = []
    lines: list[int] = []
    at, pos, line = opening + 1, 0, 1
    while limit is None or len(values) < limit:
        at = _WHITESPACE.match(text, at).end()  # type: ignore[union-attr]
        line += text.count("\n", pos, at)
        pos = at
        try:
            value, at = _DECODER.raw_decode(text, at)
        except ValueError:
            break
        values.append(value)
        lines.append(line)
        at = _WHITESPACE.match(text, at).end()  # type: ignore[union-attr]
        if not text.startswith(",", at):
            break
        at += 1
    return values, lines


def _lines(text: str, opening: int, count: int) -> list[int]:
    """The line each of the `count` objects of the list opening at `opening` starts on."""
    lines = _walk(text, opening, count)[1]
    return lines + [lines[-1] if lines else 1] * (count - len(lines))


def _cut_short(
    path: Path, raw: bytes, exc: CorruptInputError, warns: Warnings
) -> tuple[RecordChunk, str]:
    """The complete records before the break of a document that does not parse: of the list
    at the top, or of the longest list of objects under a key that logs a loss; the error
    again when there is none."""
    text = raw.decode("utf-8", errors="replace")
    body = text.lstrip("\ufeff \t\r\n")
    if body.startswith("["):
        places = [(len(text) - len(body), "a JSON list of records")]
    else:
        places = [
            (m.start() + m[0].rindex("["), f"the records under {m[1]!r}")
            for m in _LIST_OF_OBJECTS.finditer(text)
        ]
    best: tuple[list[dict], list[int], str] | None = None
    for opening, where in places:
        values, lines = _walk(text, opening)
        whole = next((i for i, v in enumerate(values) if not isinstance(v, dict)), len(values))
        records: list[dict] = values[:whole]  # type: ignore[assignment]
        if any("loss" in str(k).lower() for r in records for k in r):
            if best is None or len(records) > len(best[0]):
                best = (records, lines[:whole], where)
    if best is None:
        raise exc
    records, lines, where = best
    warns.add(
        f"{exc.message}: the file is cut short or broken there; the {len(records)} complete "
        "record(s) before it were read",
        line=exc.line,
        byte=exc.byte,
    )
    return RecordChunk(records, lines), where


def records_document(path: Path, warns: Warnings) -> tuple[RecordChunk, str] | None:
    """The records of a one-document log, with a word on where they were found; None when the
    document holds no list of loss-logging records."""
    raw = path.read_bytes()
    try:
        doc = parse_document(path, raw)
    except CorruptInputError as exc:
        return _cut_short(path, raw, exc, warns)
    text = raw.decode("utf-8", errors="replace")
    if isinstance(doc, list) and doc and all(isinstance(v, dict) for v in doc):
        opening = text.index("[")
        return RecordChunk(doc, _lines(text, opening, len(doc))), "a JSON list of records"
    if not isinstance(doc, dict) or (path_keys := _records_path(doc)) is None:
        return None
    key = path_keys[-1]
    m = re.search(rf'"{re.escape(key)}"\s*:\s*\[', text)
    opening = m.end() - 1 if m else 0
    records = doc[path_keys[0]] if len(path_keys) == 1 else doc[path_keys[0]][key]
    where = ".".join(path_keys)
    return RecordChunk(records, _lines(text, opening, len(records))), f"the records under {where!r}"
