"""Events in the exact layout a writer uses for one scalar, decoded without walking the wire.

Almost every record of a training log is one scalar, and writers serialise it the same way:

    09 <wall_time f8> [10 <step varint>] 2a <n1> 0a <n2> 0a <n3> <tag> <value>

where <value> is PyTorch's `15 <simple_value f4>` (PyTorch, tensorboardX, Lightning, HF),
Keras' rank-0 float tensor `42 0a 08 01 12 00 22 04 <f4>` or a float tensor holding one
`float_val` (`42 08 08 01 2a 04 <f4>`), the tensors optionally followed by the `scalars` plugin
metadata. With the record's length known, every byte that is not payload is determined
by the length and the step varint's length, so a record is checked against that expectation
instead of parsed. The PyTorch layout is checked and decoded from four 8-byte words read at
each record (`_words`); the records it rejects are checked byte by byte against both layouts;
what fails both goes to the generic wire walk.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from lossforensics.ingest._tb_wire import gather_fixed, read_varints

# Value.tensor (field 8, 10 bytes) = {dtype: DT_FLOAT, tensor_shape: {}, tensor_content: 4 bytes}
_KERAS_TENSOR = bytes([0x42, 0x0A, 0x08, 0x01, 0x12, 0x00, 0x22, 0x04])
# Value.tensor (field 8, 8 bytes) = {dtype: DT_FLOAT, float_val: [one packed float]}
_FLOAT_VAL_TENSOR = bytes([0x42, 0x08, 0x08, 0x01, 0x2A, 0x04])
# Value.metadata (field 9) = {plugin_data: {plugin_name: "scalars"}}
_SCALARS_META = bytes([0x4A, 0x0B, 0x0A, 0x09, 0x0A, 0x07]) + b"scalars"
_HEAD = 24  # bytes read from the start of each record: up to the header after a 7-byte step
_MIN_SIZE = 20  # 09 <8> 2a n 0a n 0a n <tag> 15 <4>: 20 bytes with a 1-byte tag
_HEADER_MASK = np.uint64((1 << 48) - 1)
_MAX_STEP_BYTES = 7  # a longer step varint (or a negative step) takes the byte-wise check


@dataclass
class ScalarRecords:
    """Per record: whether it is in a one-scalar layout (`ok`) and, where it is, the byte
    offset of its Value (`key`, its order in the file), its tag's span, step, value, wall time
    and whether the value is a tensor (its tag's plugin then decides, see `_tb_decode`)."""

    ok: np.ndarray
    key: np.ndarray
    tag_pos: np.ndarray
    tag_size: np.ndarray
    step: np.ndarray
    value: np.ndarray
    wall: np.ndarray
    tensor: np.ndarray

    def points(self) -> tuple[np.ndarray, ...]:
        """(key, tag_pos, tag_size, step, value, wall) of the records that are ok."""
        ok = self.ok
        if ok.all():
            return self.key, self.tag_pos, self.tag_size, self.step, self.value, self.wall
        return tuple(
            a[ok] for a in (self.key, self.tag_pos, self.tag_size, self.step, self.value, self.wall)
        )

    @staticmethod
    def empty(n: int) -> ScalarRecords:
        """`n` records, none of them ok (yet)."""
        zeros = np.zeros(n, dtype=np.int64)
        return ScalarRecords(
            np.zeros(n, dtype=bool),
            zeros,
            zeros.copy(),
            zeros.copy(),
            zeros.copy(),
            np.zeros(n),
            np.zeros(n),
            np.zeros(n, dtype=bool),
        )

    def update(self, rows: np.ndarray, other: ScalarRecords) -> None:
        """Take `other` (computed for the records `rows`) where it is ok."""
        rows = rows[other.ok]
        for name in ("key", "tag_pos", "tag_size", "step", "value", "wall", "tensor"):
            getattr(self, name)[rows] = getattr(other, name)[other.ok]
        self.ok[rows] = True


def scalar_layout(buf: np.ndarray, data: np.ndarray, size: np.ndarray) -> ScalarRecords:
    """The records (data offsets and sizes in `buf`) in a one-scalar layout, decoded."""
    found = _words(buf, data, size)
    rest = np.flatnonzero(~found.ok)
    if rest.size:
        found.update(rest, _bytes(buf, data[rest], size[rest]))
    return found


def _words(buf: np.ndarray, data: np.ndarray, size: np.ndarray) -> ScalarRecords:
    """PyTorch's layout, from two reads per record: its first 24 bytes (the `09`, the wall
    time, the step field and the header after it) and its last 8 (`15` and the value)."""
    n = len(data)
    big = size >= _MIN_SIZE  # every byte read below lies inside such a record (+ its CRC)
    if len(buf) < 2 * _MIN_SIZE or not big.any():
        return ScalarRecords.empty(n)
    at = data if big.all() else np.where(big, data, 0)
    length = np.where(big, size, _MIN_SIZE)
    # numpy copies a void item with one memcpy: the per-item cost, not the bytes, dominates
    head = np.ndarray((len(buf) - _HEAD + 1,), dtype=f"V{_HEAD}", buffer=buf, strides=(1,))[at]
    ok = big & (_column(head, 0, "u1") == 0x09)
    wall = _column(head, 1, "<f8").copy()
    step_word = _column(head, 9, "<u8")
    has_step = (step_word & np.uint64(0xFF)) == 0x10
    # step varint: bytes 1.. of step_word; its length is 1 + the run of continuation bits
    step = np.zeros(n, dtype=np.uint64)
    step_bytes = np.zeros(n, dtype=np.int64)
    going = has_step.copy()
    for k in range(1, _MAX_STEP_BYTES + 1):
        byte = (step_word >> np.uint64(8 * k)) & np.uint64(0xFF)
        step |= ((byte & np.uint64(0x7F)) << np.uint64(7 * (k - 1))) * going
        step_bytes += going
        going &= byte >= 0x80
        if not going.any():
            break
    ok &= ~going  # a step varint longer than _MAX_STEP_BYTES
    header = np.where(has_step, 10 + step_bytes, 9)
    n1 = length - header - 2
    n3 = n1 - 9  # n2 = n1 - 2 (Value in Summary), n3 = n2 - 2 - 5 (tag in Value)
    ok &= (n1 < 0x80) & (n3 >= 0)
    expected = (
        np.uint64(0x2A)
        | (n1.astype(np.uint64) << np.uint64(8))
        | np.uint64(0x0A << 16)
        | ((n1 - 2).astype(np.uint64) << np.uint64(24))
        | np.uint64(0x0A << 32)
        | (n3.astype(np.uint64) << np.uint64(40))
    )
    # the 8 bytes at `header` (9..17): the rest of step_word, then bytes 17.. (numpy shifts
    # of 64 bits or more give 0)
    skip = (header - 9).astype(np.uint64) * np.uint64(8)
    after = _column(head, 16, "<u8") >> np.uint64(8)
    found = (step_word >> skip) | (after << (np.uint64(64) - skip))
    ok &= (found & _HEADER_MASK) == expected
    words = np.ndarray((len(buf) - 7,), dtype="V8", buffer=buf, strides=(1,))
    tail = words[at + length - 8].view("<u8")
    ok &= ((tail >> np.uint64(24)) & np.uint64(0xFF)) == 0x15
    value = (tail >> np.uint64(32)).astype(np.uint32).view(np.float32).astype(np.float64)
    key = data + header + 4
    return ScalarRecords(
        ok, key, key + 2, n3, step.view(np.int64), value, wall, np.zeros(n, dtype=bool)
    )


def _column(items: np.ndarray, offset: int, dtype: str) -> np.ndarray:
    """The number at `offset` of every item of a void array, as a strided view (no copy)."""
    return np.ndarray(
        (len(items),), dtype=dtype, buffer=items, offset=offset, strides=(items.itemsize,)
    )


def _bytes(buf: np.ndarray, data: np.ndarray, size: np.ndarray) -> ScalarRecords:
    """Check every record against the exact bytes protobuf writes for a one-scalar Event,

        09 <wall_time f8> [10 <step varint>] 2a <n> 0a <n> 0a <n> <tag> <value>

    where <value> is one of the layouts in the module docstring, with each length ending
    exactly where the record ends; decode the ones that match."""
    last = len(buf) - 1
    end = data + size

    def at(p: np.ndarray) -> np.ndarray:
        return buf[np.clip(p, 0, last)]

    def varint(p: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        v, after, ok = read_varints(buf, p, end)
        return np.minimum(v, np.uint64(1 << 40)).astype(np.int64), after, ok

    ok = (size >= 20) & (at(data) == 0x09)
    p = data + 9
    step = np.zeros(len(data), dtype=np.int64)
    stepped = np.flatnonzero(at(p) == 0x10)
    if stepped.size:
        v, after, v_ok = read_varints(buf, p[stepped] + 1, end[stepped])
        step[stepped] = v.view(np.int64)
        p[stepped] = after
        ok[stepped] &= v_ok
    ok &= at(p) == 0x2A
    n, p, n_ok = varint(p + 1)
    ok &= n_ok & (p + n == end) & (at(p) == 0x0A)
    n, key, n_ok = varint(p + 1)
    ok &= n_ok & (key + n == end) & (at(key) == 0x0A)
    tag_size, tag_pos, n_ok = varint(key + 1)
    q = tag_pos + tag_size
    ok &= n_ok
    simple = ok & (q + 5 == end) & (at(q) == 0x15)
    is_tensor = np.zeros(len(data), dtype=bool)
    value_at = q + 1
    maybe = np.flatnonzero(ok & ~simple)
    if maybe.size:
        qm, em = q[maybe], end[maybe]
        for prefix in (_KERAS_TENSOR, _FLOAT_VAL_TENSOR):
            after = qm + len(prefix) + 4
            tensor = _bytes_at(buf, qm, prefix) & (
                (after == em)
                | ((after + len(_SCALARS_META) == em) & _bytes_at(buf, after, _SCALARS_META))
            )
            simple[maybe[tensor]] = True
            is_tensor[maybe[tensor]] = True
            value_at[maybe[tensor]] = qm[tensor] + len(prefix)
    ok &= simple
    value = gather_fixed(buf, np.clip(value_at, 0, last - 3), "<f4").astype(np.float64)
    wall = gather_fixed(buf, np.clip(data + 1, 0, last - 7), "<f8")
    return ScalarRecords(ok, key, tag_pos, tag_size, step, value, wall, is_tensor)


def _bytes_at(buf: np.ndarray, pos: np.ndarray, expected: bytes) -> np.ndarray:
    """Whether buf holds `expected` at each of `pos` (positions past the end compare False)."""
    match = pos + len(expected) <= len(buf)
    safe = np.where(match, pos, 0)
    for k, byte in enumerate(expected):
        match &= buf[safe + k] == byte
    return match
