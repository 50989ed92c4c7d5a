"""A trainer_state.json read by pyarrow's C++ JSON reader: the frame `flat_frame` builds from its
point entries (the log history less the end-of-training summary), without the standard
library's Python dict per entry and the frame made from those dicts (~2x cheaper on 10k
entries).

A fast path only: it answers None, and the caller parses the file with the standard library,
whenever pyarrow's reading could differ from it:

- anything the JSON-lines fast path steps aside for (`_jsonlines_arrow`: tokens only pyarrow
  reads, numbers it reads otherwise, a key twice, text that is not UTF-8, a history value that
  is not a number), a document that does not open with `{` (a BOM, whitespace), more than one
  object, or values nested deeper than `_MAX_DEPTH` (pyarrow reads any depth; the standard
  library refuses ~1000 levels, fewer the deeper its caller's stack);
- a `null` anywhere but as the value of a top-level key: pyarrow reads a key set to null as a
  key left out, and which keys a history entry holds decides what it is (a summary) and the
  order of the columns;
- a history that is not a list of objects, with no point entry (the exact path says why), or
  with a summary before a point entry (the columns come in order of first appearance among the
  point entries; pyarrow's come in order of first appearance among all entries);
- a `trial_name` (the run's name: the exact path decodes it).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa
from lossforensics.ingest._jsonlines_arrow import number_frame, read_table

_OPEN = b"{"
_MAX_DEPTH = 64  # levels of arrays and objects the standard library parses from any caller


def history_frame(text: bytes, summary_keys: frozenset[str]) -> pd.DataFrame | None:
    """The frame of the point entries of `log_history` in `text`, a whole trainer_state.json
    (an entry holding any of `summary_keys` is the summary); None where it could differ from
    `flat_frame` of the entries the standard library parses."""
    if not text.startswith(_OPEN):
        return None
    table = read_table(text, documents=True)
    if table is None or table.num_rows != 1 or "log_history" not in table.column_names:
        return None
    if _depth(table.schema) > _MAX_DEPTH:
        return None
    top_nulls = sum(column.null_count for column in table.columns)
    nulls = text.count(b"null") if b"u" in text else 0  # no u (one memchr): no null to count
    if nulls != top_nulls:  # a null inside a value, or the word in a string
        return None
    if "trial_name" in table.column_names and table.column("trial_name").null_count == 0:
        return None
    history = table.column("log_history")
    kind = history.type
    if not pa.types.is_list(kind) or not pa.types.is_struct(kind.value_type):
        return None
    entries = history.combine_chunks().flatten()
    try:
        names = [field.name for field in entries.type]
    except ValueError:  # a key that is not UTF-8
        return None
    fields = entries.flatten()
    summary = np.zeros(len(entries), dtype=bool)
    for name, field in zip(names, fields, strict=True):
        if name in summary_keys:
            summary |= field.is_valid().to_numpy(zero_copy_only=False)
    points = int(np.argmax(summary)) if summary.any() else len(entries)
    if points == 0 or not summary[points:].all():
        return None
    logged = {
        name: part
        for name, field in zip(names, fields, strict=True)
        if (part := field.slice(0, points)).null_count < points  # a key of some point entry
    }
    if not logged:
        return None
    return number_frame(logged, text)


def _depth(schema: pa.Schema) -> int:
    """The deepest nesting of arrays and objects in the document's values (the top-level object
    is level 1), from the types pyarrow gave them; iterative: it may be thousands deep."""
    deepest, todo = 1, [(field.type, 2) for field in schema]
    while todo:
        kind, level = todo.pop()
        if pa.types.is_nested(kind):
            deepest = max(deepest, level)
            todo.extend((kind.field(i).type, level + 1) for i in range(kind.num_fields))
    return deepest
