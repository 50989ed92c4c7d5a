"""The one sequential step of reading an event file: where each record starts.

Record i+1 starts at start[i] + 16 + length[i], so the walk cannot be a single vectorised
operation. But training logs are repetitive: the same tags are written in the same order, so the
record lengths repeat with a short period. The walk therefore alternates

1. a plain loop over a few hundred records (struct reads), which also learns the period of the
   latest lengths, and
2. a speculation: assume the next records repeat that period, compute all their offsets with one
   cumulative sum, and read the length actually stored at each predicted offset in one gather.
   The predictions up to the first mismatch are exactly what the loop would have found (each
   verified length yields the next offset), so they are accepted; the loop resumes at the
   mismatch.

A regular file is walked in a few dozen vectorised steps; an irregular one costs the plain loop
plus a small failed-guess overhead. Lengths are trusted here and checked afterwards (`_tb_framing`).
"""

from __future__ import annotations

import mmap
import struct
from collections.abc import Callable

import numpy as np
from lossforensics.ingest._tb_wire import gather_fixed

OVERHEAD = 16  # 8-byte length, 4-byte length CRC, 4-byte data CRC
_LEARN = 256  # records walked by the loop before each guess
_MAX_PERIOD = 64
_FIRST_GUESS = 1 << 12
_MAX_GUESS = 1 << 17


def record_starts(raw: bytes | mmap.mmap, buf: np.ndarray) -> np.ndarray:
    """Offsets of consecutive whole records in `raw` (stops where a length would run past the
    end of the file)."""
    total = len(raw)
    unpack = struct.Struct("<Q").unpack_from
    parts: list[np.ndarray] = []
    pos = 0
    guess = _FIRST_GUESS
    while True:
        starts, lengths, pos, done = _loop(raw, unpack, pos, total)
        parts.append(starts)
        if done:
            break
        period = _period(lengths)
        if period is None:
            continue
        accepted, pos = _speculate(buf, pos, total, lengths[-period:], guess)
        parts.append(accepted)
        guess = min(guess * 2, _MAX_GUESS) if accepted.size == guess else _FIRST_GUESS
    return np.concatenate(parts) if parts else np.zeros(0, dtype=np.int64)


def _loop(
    raw: bytes | mmap.mmap,
    unpack: Callable[[bytes | mmap.mmap, int], tuple[int, ...]],
    pos: int,
    total: int,
) -> tuple[np.ndarray, np.ndarray, int, bool]:
    """Walk up to _LEARN records from `pos`: (starts, lengths, next position, reached the end)."""
    starts: list[int] = []
    lengths: list[int] = []
    last = total - OVERHEAD
    while len(starts) < _LEARN:
        if pos > last:
            return np.array(starts, dtype=np.int64), np.array(lengths, dtype=np.int64), pos, True
        length = unpack(raw, pos)[0]
        nxt = pos + OVERHEAD + length
        if nxt > total:
            return np.array(starts, dtype=np.int64), np.array(lengths, dtype=np.int64), pos, True
        starts.append(pos)
        lengths.append(length)
        pos = nxt
    return np.array(starts, dtype=np.int64), np.array(lengths, dtype=np.int64), pos, False


def _period(lengths: np.ndarray) -> int | None:
    """Smallest p such that the lengths walked so far repeat with period p (all of them: a
    shorter check is fooled by neighbouring tags of equal length), if any."""
    for p in range(1, min(_MAX_PERIOD, len(lengths) // 2) + 1):
        if np.array_equal(lengths[p:], lengths[:-p]):
            return p
    return None


def _speculate(
    buf: np.ndarray, pos: int, total: int, pattern: np.ndarray, count: int
) -> tuple[np.ndarray, int]:
    """Predict `count` records from `pos` repeating `pattern`; keep the verified prefix."""
    reps = -(-count // len(pattern))
    lengths = np.tile(pattern, reps)[:count]
    ends = pos + np.cumsum(lengths + OVERHEAD)
    starts = ends - lengths - OVERHEAD
    fits = ends <= total
    stored = gather_fixed(buf, np.minimum(starts, max(total - 8, 0)), "<u8")
    good = fits & (stored == lengths.astype(np.uint64))
    k = int(np.argmin(good)) if not good.all() else count
    if k == 0:
        return starts[:0], pos
    return starts[:k], int(ends[k - 1])
