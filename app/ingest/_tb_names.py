"""Turn a million (offset, length) byte spans into codes + distinct strings without a Python
object per span: a tag repeats on every point of its series, so only the distinct ones are
decoded.

Spans of up to 64 bytes (almost every tag) are read as a few 8-byte words each (one gather per
span), hashed together with their length into one integer and factorized by pandas' hash table;
each code is then checked word by word against its first span, so a hash collision can only
send the spans to the slower exact path, never merge two tags. Longer spans (or a collision) are
gathered into one contiguous buffer, wrapped as an Arrow binary array (offsets + data, no copy)
and dictionary-encoded by Arrow's hash table in C++."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa

_MAX_WORDS = 8  # spans up to 64 bytes go by words
_BYTE_MASKS = np.array([(1 << (8 * k)) - 1 for k in range(8)] + [2**64 - 1], dtype=np.uint64)
_MIX = np.uint64(0x9E3779B97F4A7C15)
_CHUNK_BYTES = 1 << 23  # bounds the gather index (8 bytes per tag byte)
_CHUNK_SPANS = 1 << 20


def factorize_spans(
    buf: np.ndarray, pos: np.ndarray, size: np.ndarray
) -> tuple[np.ndarray, list[str]]:
    """Codes (int32, one per span) and the distinct strings they index (UTF-8, invalid bytes
    replaced), in order of first appearance."""
    by_words = _by_words(buf, pos, size)
    if by_words is not None:
        codes, first = by_words
        return codes, [
            buf[p : p + n].tobytes().decode("utf-8", "replace")
            for p, n in zip(pos[first].tolist(), size[first].tolist(), strict=True)
        ]
    codes = np.empty(len(pos), dtype=np.int32)
    index: dict[bytes, int] = {}
    a = 0
    while a < len(pos):
        b = _chunk_end(size, a)
        local, distinct = _encode(buf, pos[a:b], size[a:b])
        lookup = np.array([index.setdefault(d, len(index)) for d in distinct], dtype=np.int32)
        codes[a:b] = lookup[local] if len(lookup) else local
        a = b
    return codes, [d.decode("utf-8", "replace") for d in index]


def _by_words(
    buf: np.ndarray, pos: np.ndarray, size: np.ndarray
) -> tuple[np.ndarray, np.ndarray] | None:
    """(codes, index of each code's first span), or None when the spans do not qualify or two
    distinct spans hashed alike."""
    if not len(pos) or size.max() > 8 * _MAX_WORDS or size.min() < 0 or pos.min() < 0:
        return None
    width = 8 * max(1, -(-int(size.max()) // 8))
    if int(pos.max()) + width > len(buf):
        return None
    spans = np.ndarray((len(buf) - width + 1,), dtype=f"V{width}", buffer=buf, strides=(1,))[pos]
    words = [
        np.ndarray((len(pos),), dtype="<u8", buffer=spans, offset=at, strides=(width,))
        & _BYTE_MASKS[np.clip(size - at, 0, 8)]
        for at in range(0, width, 8)
    ]
    key = size.astype(np.uint64)
    for word in words:
        key = (key * _MIX) ^ word
    codes, distinct = pd.factorize(key)
    first = np.empty(len(distinct), dtype=np.int64)
    first[codes[::-1]] = np.arange(len(codes) - 1, -1, -1)
    for column in (size, *words):
        if not np.array_equal(column[first][codes], column):
            return None
    return codes.astype(np.int32), first


def _chunk_end(size: np.ndarray, a: int) -> int:
    """End of a run of spans from `a` holding about _CHUNK_BYTES bytes (at least one span)."""
    total = np.cumsum(size[a : a + _CHUNK_SPANS])
    return a + max(1, int(np.searchsorted(total, _CHUNK_BYTES)))


def _encode(buf: np.ndarray, pos: np.ndarray, size: np.ndarray) -> tuple[np.ndarray, list[bytes]]:
    offsets = np.zeros(len(pos) + 1, dtype=np.int64)
    np.cumsum(size, out=offsets[1:])
    total = int(offsets[-1])
    index = np.repeat(pos - offsets[:-1], size) + np.arange(total, dtype=np.int64)
    data = buf[index]
    array = pa.LargeBinaryArray.from_buffers(
        pa.large_binary(), len(pos), [None, pa.py_buffer(offsets), pa.py_buffer(data)]
    )
    encoded = array.dictionary_encode()
    codes = encoded.indices.to_numpy(zero_copy_only=False).astype(np.int32)
    return codes, encoded.dictionary.to_pylist()
