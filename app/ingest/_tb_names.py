"""Turn a million (offset, length) byte spans into codes + distinct strings without a Python
object per span: a tag repeats on every point of its series, so only the distinct ones are
decoded. Spans are grouped by length, hashed 8 bytes at a time, factorised on the hash, and every
span is then compared byte for byte with its group's first member, so a hash collision can never
merge two names (it falls back to an exact sort)."""

from __future__ import annotations

import numpy as np
import pandas as pd

_PRIME = np.uint64(0x100000001B3)
_CHUNK_BYTES = 1 << 23


def factorize_spans(buf: np.ndarray, pos: np.ndarray, size: np.ndarray
                    ) -> tuple[np.ndarray, list[str]]:
    """Codes (int32, one per span) and the distinct strings they index (UTF-8, invalid bytes
    replaced), in order of first appearance within each length."""
    codes = np.empty(len(pos), dtype=np.int32)
    names: list[str] = []
    if not len(pos):
        return codes, names
    lengths, inverse, counts = np.unique(size, return_inverse=True, return_counts=True)
    groups = np.split(np.argsort(inverse, kind="stable"), np.cumsum(counts)[:-1])
    for length, members in zip(lengths.tolist(), groups, strict=True):
        local, distinct = _factorize_fixed(buf, pos[members], int(length))
        codes[members] = local + len(names)
        names.extend(d.decode("utf-8", "replace") for d in distinct)
    return codes, names


def _factorize_fixed(buf: np.ndarray, pos: np.ndarray, length: int
                     ) -> tuple[np.ndarray, list[bytes]]:
    if length == 0:
        return np.zeros(len(pos), dtype=np.int32), [b""]
    hashes = np.empty(len(pos), dtype=np.uint64)
    width = -(-length // 8) * 8
    columns = np.arange(length, dtype=np.intp)
    step = max(1, _CHUNK_BYTES // width)
    for a in range(0, len(pos), step):
        block = np.zeros((len(pos[a:a + step]), width), dtype=np.uint8)
        block[:, :length] = buf[pos[a:a + step, None] + columns]
        words = block.view("<u8")
        h = np.full(len(block), np.uint64(0xCBF29CE484222325))
        for w in range(words.shape[1]):
            h = (h ^ words[:, w]) * _PRIME
        hashes[a:a + step] = h ^ np.uint64(length)
    codes, _ = pd.factorize(hashes)
    first = np.empty(codes.max() + 1, dtype=np.int64)
    first[codes[::-1]] = np.arange(len(codes) - 1, -1, -1)
    reps = buf[pos[first][:, None] + columns]
    for a in range(0, len(pos), step):
        block = buf[pos[a:a + step, None] + columns]
        if not np.array_equal(block, reps[codes[a:a + step]]):
            return _factorize_exact(buf, pos, length)
    return codes.astype(np.int32), [r.tobytes() for r in reps]


def _factorize_exact(buf: np.ndarray, pos: np.ndarray, length: int
                     ) -> tuple[np.ndarray, list[bytes]]:
    block = np.ascontiguousarray(buf[pos[:, None] + np.arange(length, dtype=np.intp)])
    distinct, codes = np.unique(block.view(f"V{length}").ravel(), return_inverse=True)
    return codes.astype(np.int32), [d.tobytes() for d in distinct]
