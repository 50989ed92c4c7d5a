"""JSON lines written by a logging formatter: the numbers are in each record's message text.

Python's `logging` with a JSON formatter (python-json-logger, structlog, loguru's `serialize`)
writes one object a line, `{"timestamp": ..., "level": "INFO", "message": "Epoch : 1  Loss :
0.0011"}`: no field holds a number, the training log is the messages. When a JSON-lines file
gives no numeric point, the messages under one of `_MESSAGE_KEYS` (the first key that most
records hold as text) are read as console lines, one a record, by the console reader.
"""

from __future__ import annotations

import io
import json
from collections.abc import Mapping
from pathlib import Path

from lossforensics.classifiers.errors import InputError
from lossforensics.ingest.base import IngestResult, ReadWarning

# the keys logging formatters write the message under
_MESSAGE_KEYS = ("message", "msg", "text", "log", "event")
# a file is read this way only up to this size: a message log is small, and it is read twice
_MAX_BYTES = 64 << 20
# most records hold the message: more than half of them
_MESSAGE_SHARE = 0.5


def messages(path: Path) -> str | None:
    """The records' messages, one a line, or None when no key holds text in most records."""
    if path.stat().st_size > _MAX_BYTES:
        return None
    records = []
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if isinstance(record, dict):
            records.append(record)
    for key in _MESSAGE_KEYS:
        texts = [r[key] for r in records if isinstance(r.get(key), str)]
        if texts and len(texts) > _MESSAGE_SHARE * len(records):
            return "\n".join(t.replace("\n", " ") for t in texts) + "\n"
    return None


def read_messages(path: Path, *, run: str, roles: Mapping[str, str] | None) -> IngestResult | None:
    """The console reading of the records' messages, or None when they hold no training log."""
    from lossforensics.ingest.console import read_stream  # console reads text; jsonl calls it last

    text = messages(path)
    if text is None:
        return None
    try:
        result = read_stream(io.BytesIO(text.encode()), name=str(path), run=run, roles=roles)
    except InputError:
        return None
    note = "no field holds a number: the records' message text was read as console lines"
    result.warnings.insert(0, ReadWarning(note, file=str(path)))
    result.files = [str(path)]
    return result
