"""TFRecord framing of an event file: find each record, check both checksums, say what was lost.

A record is `uint64 length | masked crc32c(length) | data | masked crc32c(data)`, little endian.
The walk over lengths is the one sequential step (each offset depends on the previous length;
`_tb_walk` makes it mostly vectorised). The checksums are then checked for all records at once.

What goes wrong in the wild and what we do:
- the file ends inside a record (a live run, a copy in progress): keep the records before, warn
  with the byte offset of the cut record;
- a length checksum fails: the framing cannot be trusted from there on; keep the records before,
  warn with the offset (TensorBoard stops there too);
- a data checksum fails: skip that record, warn with its offset, keep the rest.
"""

from __future__ import annotations

import mmap
import struct
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
from lossforensics.classifiers.errors import CorruptInputError
from lossforensics.ingest._tb_crc import masked_crc_one, masked_crcs
from lossforensics.ingest._tb_walk import record_starts
from lossforensics.ingest._tb_wire import gather_fixed
from lossforensics.ingest.base import ReadWarning

HEADER = 12  # uint64 length + uint32 masked crc of it
FOOTER = 4  # uint32 masked crc of the data
_MAX_LISTED = 5  # checksum failures listed one by one before the rest are counted


@dataclass(frozen=True)
class Records:
    """Offsets of the readable records of one file: `start[i]` is where record i begins (its
    header) and `data[i]`/`size[i]` the span of its serialized Event."""

    start: np.ndarray
    data: np.ndarray
    size: np.ndarray


@contextmanager
def file_bytes(path: Path) -> Iterator[bytes | mmap.mmap]:
    """The file's bytes, memory-mapped (pages stay file-backed, not heap) or read when it cannot
    be mapped. Errors from the OS become CorruptInputError naming the file."""
    try:
        with path.open("rb") as fh:
            try:
                mapped = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)
            except (ValueError, OSError):  # empty file, pipe, special file
                yield fh.read()
                return
            try:
                yield mapped
            finally:
                try:
                    mapped.close()
                except BufferError:  # a view is still referenced (an exception traceback)
                    pass
    except OSError as exc:
        raise CorruptInputError(
            f"cannot read event file: {exc.strerror or exc}", file=str(path)
        ) from None


def first_record_frames(head: bytes) -> bool:
    """True when `head` starts with a TFRecord header whose length checksum holds."""
    if len(head) < HEADER:
        return False
    length, crc = struct.unpack_from("<QI", head, 0)
    return masked_crc_one(head[:8]) == crc and length < (1 << 40)


def walk(raw: bytes | mmap.mmap, file: str) -> tuple[Records, list[ReadWarning]]:
    """Frame every record of `raw`; returns the records whose checksums hold and the warnings."""
    total = len(raw)
    buf = np.frombuffer(raw, dtype=np.uint8) if total else np.zeros(0, dtype=np.uint8)
    try:
        return _check(raw, buf, record_starts(raw, buf), total, file)
    finally:
        del buf


def _check(
    raw: bytes | mmap.mmap, buf: np.ndarray, starts: np.ndarray, total: int, file: str
) -> tuple[Records, list[ReadWarning]]:
    warnings: list[ReadWarning] = []
    # each record's 12-byte header in one gather: its length and the length's checksum
    headers = np.ndarray((max(len(buf) - HEADER + 1, 0),), f"V{HEADER}", buf, strides=(1,))[starts]
    lengths = _field(headers, 0, "<u8").astype(np.int64)
    end = int(starts[-1]) + HEADER + FOOTER + int(lengths[-1]) if starts.size else 0
    header_ok = _length_crcs(lengths) == _field(headers, 8, "<u4")
    broken = np.flatnonzero(~header_ok)
    if broken.size:
        at = int(starts[broken[0]])
        warnings.append(
            ReadWarning(
                f"record length checksum mismatch: framing lost, {total - at} bytes from here on "
                "not read",
                file=file,
                byte=at,
            )
        )
        starts = starts[: broken[0]]
        lengths = lengths[: broken[0]]
    elif end < total:
        warnings.append(_tail_warning(raw, end, total, file))
    size = lengths
    data = starts + HEADER
    data_ok = masked_crcs(buf, raw, data, size) == _u32_at(buf, data + size)
    failed = np.flatnonzero(~data_ok)
    for i in failed[:_MAX_LISTED].tolist():
        warnings.append(
            ReadWarning(
                "record data checksum mismatch: record skipped", file=file, byte=int(starts[i])
            )
        )
    if failed.size > _MAX_LISTED:
        warnings.append(
            ReadWarning(
                f"{failed.size - _MAX_LISTED} more records with a data checksum mismatch skipped",
                file=file,
                byte=int(starts[failed[_MAX_LISTED]]),
            )
        )
    keep = np.flatnonzero(data_ok) if failed.size else slice(None)
    return Records(starts[keep], data[keep], size[keep]), warnings


def _length_crcs(lengths: np.ndarray) -> np.ndarray:
    """Masked CRC of each 8-byte length field: a file has few distinct record lengths, so one C
    call per distinct length, then a lookup."""
    codes, distinct = pd.factorize(lengths)
    crcs = np.array([masked_crc_one(struct.pack("<Q", int(n))) for n in distinct], dtype=np.uint32)
    return crcs[codes] if len(crcs) else np.zeros(0, dtype=np.uint32)


def _tail_warning(raw: bytes | mmap.mmap, at: int, total: int, file: str) -> ReadWarning:
    left = total - at
    if left >= HEADER and not first_record_frames(bytes(raw[at : at + HEADER])):
        return ReadWarning(
            f"unreadable record header, last {left} bytes not read", file=file, byte=at
        )
    return ReadWarning(
        f"truncated last record ({left} bytes; file still being written?): not read",
        file=file,
        byte=at,
    )


def _field(items: np.ndarray, offset: int, dtype: str) -> np.ndarray:
    """The number at `offset` of every item of a void array, as a strided view."""
    return np.ndarray(
        (len(items),), dtype=dtype, buffer=items, offset=offset, strides=(items.itemsize,)
    )


def _u32_at(buf: np.ndarray, pos: np.ndarray) -> np.ndarray:
    return gather_fixed(buf, pos, "<u4")
