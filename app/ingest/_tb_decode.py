"""Scalar points out of the Event records of one file, decoded with numpy.

The Event tree read here (field numbers from tensorboard's event.proto / summary.proto):

    Event        1 wall_time (double)  2 step (int64)  5 summary
    Summary      1 value (repeated)
    Value        1 tag  2 simple_value (float)  8 tensor  9 metadata
    TensorProto  1 dtype  2 tensor_shape  4 tensor_content  5 float_val  6 double_val  13 half_val
    Metadata     1 plugin_data -> 1 plugin_name

A point is a Value holding a `simple_value` (PyTorch, tensorboardX, Lightning, HF, YOLOv5), or a
rank-0 float/double/half/bfloat16 tensor (TF2 / Keras), unless its tag's metadata names a plugin
other than `scalars` (hparams, text, histograms...). Images, histograms, audio, graphs, non-scalar
tensors are skipped. Records in the exact add_scalar layout are decoded in one pass; for the rest
each level of the tree is one `scan` over all messages of that level; records that do not parse
there go to the protobuf runtime (`_tb_fallback`), which reports the ones it cannot read.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from lossforensics.ingest._tb_fallback import decode_records
from lossforensics.ingest._tb_framing import Records
from lossforensics.ingest._tb_names import factorize_spans
from lossforensics.ingest._tb_scalar_layout import scalar_layout
from lossforensics.ingest._tb_wire import FieldTable, gather_fixed, last_value, read_varints, scan
from lossforensics.ingest.base import ReadWarning

_DT_FLOAT, _DT_DOUBLE, _DT_BFLOAT16, _DT_HALF = 1, 2, 14, 19
_SCALAR_PLUGINS = {"scalars", ""}
_CHUNK_RECORDS = 1 << 16


@dataclass
class FilePoints:
    """Points of one file in file order: tag codes index `tags`."""

    tag: np.ndarray
    step: np.ndarray
    value: np.ndarray
    wall_time: np.ndarray
    tags: list[str]
    warnings: list[ReadWarning] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.step)


def decode(buf: np.ndarray, records: Records, file: str) -> FilePoints:
    """All scalar points of the records, chunk by chunk (bounded scratch memory)."""
    parts = [
        _decode_chunk(
            buf, records.data[a : a + _CHUNK_RECORDS], records.size[a : a + _CHUNK_RECORDS], file
        )
        for a in range(0, len(records.data), _CHUNK_RECORDS)
    ]
    return _merge(parts)


@dataclass
class _Chunk:
    key: np.ndarray  # file byte offset of each point's Value: its order in the file
    tag: np.ndarray
    step: np.ndarray
    value: np.ndarray
    wall_time: np.ndarray
    tags: list[str]
    warnings: list[ReadWarning]
    from_tensor: np.ndarray  # the point is a tensor summary: its tag's plugin decides
    plugins: dict[str, str]  # tag -> plugin named by the first metadata seen for it


def _decode_chunk(buf: np.ndarray, data: np.ndarray, size: np.ndarray, file: str) -> _Chunk:
    """Records in a one-scalar layout are decoded in one pass (`_tb_scalar_layout`); the
    rest (TF2 tensors, several values, other events) by the generic walk; points are merged back
    into file order by the byte offset of their Value."""
    fast = scalar_layout(buf, data, size)
    rest = np.flatnonzero(~fast.ok)
    if not rest.size:  # every record in a one-scalar layout (a PyTorch log): nothing to walk
        key, tag_pos, tag_size, step, value, wall = fast.points()
        codes, tags = factorize_spans(buf, tag_pos, tag_size)
        return _Chunk(key, codes, step, value, wall, tags, [], fast.tensor, {})
    generic, from_tensor, plugins, bad = _generic(buf, data[rest], size[rest])
    key, tag_pos, tag_size, step, value, wall = (
        np.concatenate([f, g]) if len(g) else f for f, g in zip(fast.points(), generic, strict=True)
    )
    fast_tensor = fast.tensor if fast.ok.all() else fast.tensor[fast.ok]
    from_tensor = np.concatenate([fast_tensor, from_tensor]) if len(from_tensor) else fast_tensor
    if len(generic[0]):
        order = np.argsort(key, kind="stable")
        key, tag_pos, tag_size, step, value, wall, from_tensor = (
            c[order] for c in (key, tag_pos, tag_size, step, value, wall, from_tensor)
        )
    codes, tags = factorize_spans(buf, tag_pos, tag_size)
    chunk = _Chunk(key, codes, step, value, wall, tags, [], from_tensor, plugins)
    if bad.size:
        chunk = _with_fallback(buf, chunk, data[rest[bad]], size[rest[bad]], file)
    return chunk


def _generic(
    buf: np.ndarray, data: np.ndarray, size: np.ndarray
) -> tuple[tuple[np.ndarray, ...], np.ndarray, dict[str, str], np.ndarray]:
    """Points of any Event layout, by walking each level of the tree. Returns the points (key,
    tag_pos, tag_size, step, value, wall), which of them are tensors, the plugin each tensor
    tag's metadata names, and the indices of the records that did not parse."""
    n = len(data)
    events = scan(buf, data, data + size)
    wall = _event_doubles(buf, events, n)
    step = last_value(n, *_varint_field(events, 2), fill=np.int64(0))
    summaries = events.select(5, 2)
    s_rec = events.msg[summaries]
    s_pos = events.pos[summaries]
    summary = scan(buf, s_pos, s_pos + events.size[summaries])
    rows = summary.select(1, 2)
    v_rec = s_rec[summary.msg[rows]]
    v_pos = summary.pos[rows]
    v_size = summary.size[rows]
    order = np.argsort(v_pos, kind="stable") if _unsorted(v_pos) else slice(None)
    v_rec, v_pos, v_size = v_rec[order], v_pos[order], v_size[order]
    values = scan(buf, v_pos, v_pos + v_size)
    is_point, point_value, t_bad, from_tensor = _value_numbers(buf, values, len(v_pos))
    tag_pos, tag_size = _tag_spans(values, len(v_pos))
    plugins = _tag_plugins(buf, values, tag_pos, tag_size, from_tensor)

    bad_rec = np.zeros(n, dtype=bool)
    bad_rec[events.bad] = True
    bad_rec[s_rec[summary.bad]] = True
    bad_rec[v_rec[values.bad | t_bad]] = True
    keep = is_point & ~bad_rec[v_rec]
    points = (
        v_pos[keep],
        tag_pos[keep],
        tag_size[keep],
        step[v_rec[keep]],
        point_value[keep],
        wall[v_rec[keep]],
    )
    return points, from_tensor[keep], plugins, np.flatnonzero(bad_rec)


def _unsorted(a: np.ndarray) -> bool:
    return a.size > 1 and not bool(np.all(a[1:] > a[:-1]))


def _event_doubles(buf: np.ndarray, events: FieldTable, n: int) -> np.ndarray:
    rows = events.select(1, 1)
    return last_value(
        n, events.msg[rows], gather_fixed(buf, events.pos[rows], "<f8"), fill=np.float64(np.nan)
    )


def _varint_field(table: FieldTable, number: int) -> tuple[np.ndarray, np.ndarray]:
    rows = table.select(number, 0)
    return table.msg[rows], table.value[rows].view(np.int64)


def _tag_spans(values: FieldTable, n: int) -> tuple[np.ndarray, np.ndarray]:
    rows = values.select(1, 2)
    pos = last_value(n, values.msg[rows], values.pos[rows], fill=np.int64(0))
    size = last_value(n, values.msg[rows], values.size[rows], fill=np.int64(0))
    return pos, size


def _value_numbers(
    buf: np.ndarray, values: FieldTable, n: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(is a scalar point, its value, its tensor did not parse, it holds a tensor) per Value."""
    out = np.full(n, np.nan)
    simple = values.select(2, 5)
    has_simple = np.zeros(n, dtype=bool)
    has_simple[values.msg[simple]] = True
    out[values.msg[simple]] = gather_fixed(buf, values.pos[simple], "<f4")
    rows = values.select(8, 2)
    rows = rows[~has_simple[values.msg[rows]]]
    t_msg = values.msg[rows]
    tensors = scan(buf, values.pos[rows], values.pos[rows] + values.size[rows])
    ok, number = _tensor_scalars(buf, tensors, len(rows))
    is_point = has_simple.copy()
    is_point[t_msg[ok]] = True
    out[t_msg[ok]] = number[ok]
    t_bad = np.zeros(n, dtype=bool)
    t_bad[t_msg[tensors.bad]] = True
    from_tensor = np.zeros(n, dtype=bool)
    from_tensor[t_msg] = True
    return is_point, out, t_bad, from_tensor


def _tensor_scalars(buf: np.ndarray, t: FieldTable, n: int) -> tuple[np.ndarray, np.ndarray]:
    """(is a rank-0 float tensor with exactly one value, the value) for each TensorProto."""
    dtype = last_value(n, *_varint_field(t, 1), fill=np.int64(0))
    shape_rows = t.select(2, 2)
    ranked = np.zeros(n, dtype=bool)
    ranked[t.msg[shape_rows[t.size[shape_rows] > 0]]] = True
    content = t.select(4, 2)
    floats = np.concatenate([t.select(5, 2), t.select(5, 5)])
    doubles = np.concatenate([t.select(6, 2), t.select(6, 1)])
    halves = np.concatenate([t.select(13, 2), t.select(13, 0)])
    sources = sum(
        np.bincount(t.msg[rows], minlength=n) for rows in (content, floats, doubles, halves)
    )
    number = np.full(n, np.nan)
    decoded = np.zeros(n, dtype=bool)
    for rows, code, width, fmt in (
        (content, _DT_FLOAT, 4, "<f4"),
        (content, _DT_DOUBLE, 8, "<f8"),
        (content, _DT_HALF, 2, "<f2"),
        (content, _DT_BFLOAT16, 2, "bf16"),
        (floats, _DT_FLOAT, 4, "<f4"),
        (doubles, _DT_DOUBLE, 8, "<f8"),
    ):
        sel = rows[(dtype[t.msg[rows]] == code) & (t.size[rows] == width)]
        number[t.msg[sel]] = _as_float(buf, t.pos[sel], fmt)
        decoded[t.msg[sel]] = True
    halves = halves[np.isin(dtype[t.msg[halves]], (_DT_HALF, _DT_BFLOAT16))]
    bits = _half_bits(buf, t, halves)
    fits = bits < (1 << 16)
    halves, bits = halves[fits], bits[fits].astype(np.uint16)
    is_bf16 = dtype[t.msg[halves]] == _DT_BFLOAT16
    number[t.msg[halves]] = np.where(
        is_bf16,
        (bits.astype(np.uint32) << 16).view(np.float32),
        bits.view(np.float16).astype(np.float32),
    )
    decoded[t.msg[halves]] = True
    return decoded & (sources == 1) & ~ranked, number


def _half_bits(buf: np.ndarray, t: FieldTable, rows: np.ndarray) -> np.ndarray:
    """half_val holds each 16-bit pattern as an int32 varint, packed (wire 2) or not (wire 0).
    A packed field must hold exactly one varint; anything else comes back out of range."""
    bits = t.value[rows].copy()
    packed = t.wire[rows] == 2
    if packed.any():
        p = t.pos[rows[packed]]
        end = p + t.size[rows[packed]]
        v, after, ok = read_varints(buf, p, end)
        bits[packed] = np.where(ok & (after == end), v, np.uint64(1 << 20))
    return bits


def _as_float(buf: np.ndarray, pos: np.ndarray, fmt: str) -> np.ndarray:
    if fmt == "bf16":
        bits = gather_fixed(buf, pos, "<u2").astype(np.uint32) << 16
        return bits.view(np.float32).astype(np.float64)
    return gather_fixed(buf, pos, fmt).astype(np.float64)


def _tag_plugins(
    buf: np.ndarray,
    values: FieldTable,
    tag_pos: np.ndarray,
    tag_size: np.ndarray,
    from_tensor: np.ndarray,
) -> dict[str, str]:
    """The plugin named by the first metadata of each tensor tag (TF writes a tag's metadata
    with its first value only, so the verdict is applied per tag, per file, in `_merge`)."""
    rows = values.select(9, 2)
    rows = rows[from_tensor[values.msg[rows]]]
    if not rows.size:
        return {}
    codes, tags = factorize_spans(buf, tag_pos[values.msg[rows]], tag_size[values.msg[rows]])
    _, first = np.unique(codes, return_index=True)
    rows = rows[first]
    meta = scan(buf, values.pos[rows], values.pos[rows] + values.size[rows])
    plugin_rows = meta.select(1, 2)
    plugin = scan(buf, meta.pos[plugin_rows], meta.pos[plugin_rows] + meta.size[plugin_rows])
    name_rows = plugin.select(1, 2)
    names = dict.fromkeys((tags[c] for c in codes[first].tolist()), "")
    owner = meta.msg[plugin_rows][plugin.msg[name_rows]]
    for i, p, size in zip(
        owner.tolist(), plugin.pos[name_rows].tolist(), plugin.size[name_rows].tolist(), strict=True
    ):
        names[tags[codes[first[i]]]] = buf[p : p + size].tobytes().decode("utf-8", "replace")
    return names


def _with_fallback(
    buf: np.ndarray, chunk: _Chunk, data: np.ndarray, size: np.ndarray, file: str
) -> _Chunk:
    """Add the points the protobuf runtime finds in the records the wire walker rejected."""
    points, warnings = decode_records(buf, data, size, file)
    if not points:
        chunk.warnings.extend(warnings)
        return chunk
    keys, tags, steps, vals, walls = (np.asarray(c) for c in zip(*points, strict=True))
    names = list(chunk.tags)
    index = {t: i for i, t in enumerate(names)}
    codes = np.array([index.setdefault(t, len(index)) for t in tags.tolist()], dtype=np.int32)
    names.extend(list(index)[len(names) :])
    key = np.concatenate([chunk.key, keys.astype(np.int64)])
    order = np.argsort(key, kind="stable")
    return _Chunk(
        key[order],
        np.concatenate([chunk.tag, codes])[order],
        np.concatenate([chunk.step, steps.astype(np.int64)])[order],
        np.concatenate([chunk.value, vals.astype(np.float64)])[order],
        np.concatenate([chunk.wall_time, walls.astype(np.float64)])[order],
        names,
        chunk.warnings + warnings,
        np.concatenate([chunk.from_tensor, np.zeros(len(keys), dtype=bool)])[order],
        chunk.plugins,
    )


def _merge(parts: list[_Chunk]) -> FilePoints:
    """One FilePoints from the chunks, tag codes renumbered into one name list; tensor points of
    a tag whose metadata (anywhere in the file) names a plugin other than `scalars` dropped."""
    index: dict[str, int] = {}
    plugins: dict[str, str] = {}
    codes = []
    for part in parts:
        lookup = np.array([index.setdefault(t, len(index)) for t in part.tags], dtype=np.int32)
        codes.append(lookup[part.tag] if part.tag.size else part.tag.astype(np.int32))
        for name, plugin in part.plugins.items():
            plugins.setdefault(name, plugin)

    def cat(arrays: list[np.ndarray], dtype: type) -> np.ndarray:
        return np.concatenate(arrays) if arrays else np.zeros(0, dtype=dtype)

    tag = cat(codes, np.int32)
    tags = list(index)
    keep = slice(None)
    foreign = np.array([plugins.get(t, "") not in _SCALAR_PLUGINS for t in tags], dtype=bool)
    if foreign.any():
        keep = ~(cat([p.from_tensor for p in parts], bool) & foreign[tag])
    return FilePoints(
        tag=tag[keep],
        step=cat([p.step for p in parts], np.int64)[keep],
        value=cat([p.value for p in parts], np.float64)[keep],
        wall_time=cat([p.wall_time for p in parts], np.float64)[keep],
        tags=tags,
        warnings=[w for p in parts for w in p.warnings],
    )
