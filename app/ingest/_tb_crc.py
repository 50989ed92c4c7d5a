"""CRC32C (Castagnoli) as TFRecord framing uses it, for many records at once.

A TFRecord stores `masked_crc32c(length bytes)` and `masked_crc32c(data)`. Checking a million
records one C call at a time costs a Python iteration each; instead, records of one length are
checked together. CRC is linear over GF(2), so the CRC of an L-byte message is a constant (the
register after L zero bytes) XOR one table lookup per byte position, where the table for a
position already includes the effect of the zero bytes after it. The messages of one length are
read as columns of 8-byte words (one gather per word, not per byte); a byte that is the same in
every message (the field tags, the layout, the high bytes of the wall time) adds one constant,
and the bytes that vary are looked up two at a time in a 65,536-entry table for that pair of
positions. A column of N messages costs about L/8 gathers and a few lookups, no Python per
record. Lengths seen rarely, and very short or long records (graphs, images) go to the `crc32c`
package (C, hardware-accelerated) one by one.
"""

from __future__ import annotations

import mmap
from functools import lru_cache

import crc32c as _crc32c
import numpy as np

_POLY = 0x82F63B78
_MASK_DELTA = 0xA282EAD8
_MIN_VECTOR_LEN = 8  # one 8-byte word at least
_MAX_VECTOR_LEN = 256  # longer records: one C call each is cheaper than L/8 word columns
_MIN_VECTOR_GROUP = 16  # fewer records of one length: C calls
_CHUNK_RECORDS = 1 << 16  # bounds the scratch columns of one step


def _byte_table() -> np.ndarray:
    table = np.arange(256, dtype=np.uint32)
    for _ in range(8):
        table = np.where(table & 1, (table >> 1) ^ np.uint32(_POLY), table >> 1).astype(np.uint32)
    return table


_TABLE = _byte_table()


@lru_cache(maxsize=64)
def _position_tables(length: int) -> tuple[np.ndarray, np.uint32]:
    """Flat (length*256,) table: entry j*256+b is the contribution of byte b at position j of a
    `length`-byte message; and the constant part (init register run through `length` zeros,
    final XOR applied)."""
    tables = np.empty((length, 256), dtype=np.uint32)
    tables[length - 1] = _TABLE
    for j in range(length - 2, -1, -1):
        nxt = tables[j + 1]
        tables[j] = _TABLE[nxt & 0xFF] ^ (nxt >> 8)
    reg = 0xFFFFFFFF
    for _ in range(length):
        reg = int(_TABLE[reg & 0xFF]) ^ (reg >> 8)
    return tables.ravel(), np.uint32(reg ^ 0xFFFFFFFF)


def mask(crc: np.ndarray) -> np.ndarray:
    """TFRecord's masking of a CRC: rotate right by 15 bits and add a constant (mod 2**32)."""
    crc = crc.astype(np.uint32)
    return (((crc >> 15) | (crc << 17)) + np.uint32(_MASK_DELTA)).astype(np.uint32)


def masked_crc_one(data: bytes | memoryview) -> int:
    """Masked CRC32C of one buffer, in C."""
    crc = _crc32c.crc32c(data)
    return ((((crc >> 15) | (crc << 17)) & 0xFFFFFFFF) + _MASK_DELTA) & 0xFFFFFFFF


@lru_cache(maxsize=64)
def _pair_table(length: int, position: int) -> np.ndarray:
    """(65536,) table: entry b0 | b1 << 8 is the contribution of bytes b0, b1 at `position` and
    `position + 1` of a `length`-byte message (256 KB: built only for pairs that vary)."""
    tables = _position_tables(length)[0].reshape(length, 256)
    both = np.arange(1 << 16, dtype=np.uint32)
    return tables[position][both & 0xFF] ^ tables[position + 1][both >> 8]


def crc_fixed_length(buf: np.ndarray, starts: np.ndarray, length: int) -> np.ndarray:
    """CRC32C of the `length` bytes (8 or more) at each of `starts` in `buf` (uint8),
    vectorised."""
    flat, constant = _position_tables(length)
    tables = flat.reshape(length, 256)
    # every message's bytes in one gather: a `length`-byte record at every byte offset (numpy
    # copies a void item with one memcpy; the per-item cost, not the bytes, dominates)
    messages = np.ndarray((len(buf) - length + 1,), dtype=f"V{length}", buffer=buf, strides=(1,))
    out = np.empty(len(starts), dtype=np.uint32)
    for a in range(0, len(starts), _CHUNK_RECORDS):
        block = messages[starts[a : a + _CHUNK_RECORDS]]
        acc = np.full(len(block), constant, dtype=np.uint32)
        fixed = 0
        covered = 0  # message bytes already looked up (the last word overlaps the one before)
        while covered < length:
            at = min(covered, length - 8)
            word = _column(block, at, "<u8")
            varies = int(np.bitwise_or.reduce(word ^ word[0]))
            first = int(word[0])
            for k in range(covered - at, 8):
                if not (varies >> (8 * k)) & 0xFF:
                    fixed ^= int(tables[at + k][(first >> (8 * k)) & 0xFF])
                elif k % 2 == 0 and k < 7 and (varies >> (8 * k + 8)) & 0xFF:
                    acc ^= _pair_table(length, at + k)[_column(block, at + k, "<u2")]
                elif k % 2 == 1 and (varies >> (8 * k - 8)) & 0xFF and k - 1 >= covered - at:
                    continue  # looked up with the byte before it, as a pair
                else:
                    acc ^= tables[at + k][_column(block, at + k, "u1")]
            covered = at + 8
        out[a : a + _CHUNK_RECORDS] = acc ^ np.uint32(fixed)
    return out


def _column(block: np.ndarray, offset: int, dtype: str) -> np.ndarray:
    """The number at `offset` of every item of a void array, as a strided view (no copy)."""
    return np.ndarray(
        (len(block),), dtype=dtype, buffer=block, offset=offset, strides=(block.itemsize,)
    )


def masked_crcs(
    buf: np.ndarray, raw: bytes | memoryview | mmap.mmap, starts: np.ndarray, lengths: np.ndarray
) -> np.ndarray:
    """Masked CRC32C of each (start, length) span: grouped by length, vectorised where a length
    is common and short, one C call otherwise."""
    out = np.empty(len(starts), dtype=np.uint32)
    if not len(starts):
        return out
    # spans grouped by length, in order within a group; a stable sort of 16-bit keys is a
    # radix sort, ~5x faster than np.unique's sort of the 64-bit lengths
    short = lengths.max() < 1 << 16 and lengths.min() >= 0
    order = np.argsort(lengths.astype(np.uint16) if short else lengths, kind="stable")
    ordered = lengths[order]
    firsts = np.flatnonzero(np.r_[True, ordered[1:] != ordered[:-1]])
    uniq, counts = ordered[firsts], np.diff(np.r_[firsts, len(order)])
    by_length = np.split(order, firsts[1:])
    view = memoryview(raw)
    for length, count, members in zip(uniq.tolist(), counts.tolist(), by_length, strict=True):
        if _MIN_VECTOR_LEN <= length <= _MAX_VECTOR_LEN and count >= _MIN_VECTOR_GROUP:
            out[members] = mask(crc_fixed_length(buf, starts[members], length))
        else:
            out[members] = [masked_crc_one(view[s : s + length]) for s in starts[members].tolist()]
    return out
