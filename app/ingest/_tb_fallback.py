"""The slow, exact path: records the numpy wire walker rejected, parsed by the compiled protobuf
runtime (tensorboard's event_pb2). In practice these are records whose checksum holds but whose
bytes are not a valid Event; each one that still does not parse becomes a warning with its byte
offset. tensorboard is imported only when such a record exists."""

from __future__ import annotations

import math
import struct
from typing import Any

import numpy as np
from lossforensics.ingest.base import ReadWarning

_SCALAR_PLUGINS = {"scalars", ""}
_FORMATS = {1: ("<f", 4), 2: ("<d", 8), 19: ("<e", 2)}  # DT_FLOAT, DT_DOUBLE, DT_HALF
_DT_BFLOAT16 = 14
_MAX_LISTED = 5  # undecodable records listed one by one before the rest are counted

Point = tuple[int, str, int, float, float]  # (order key, tag, step, value, wall_time)


def decode_records(
    buf: np.ndarray, data: np.ndarray, size: np.ndarray, file: str
) -> tuple[list[Point], list[ReadWarning]]:
    """Scalar points of the given records, ordered by record then value; warnings for the
    records that are not Events."""
    try:
        from google.protobuf.message import DecodeError
        from tensorboard.compat.proto import event_pb2
    except ImportError:
        return [], [
            ReadWarning(
                f"{len(data)} record(s) need the protobuf decoder and tensorboard "
                "is not installed: skipped",
                file=file,
                byte=int(data[0]) - 12 if len(data) else None,
            )
        ]
    points: list[Point] = []
    failed: list[int] = []
    for start, length in zip(data.tolist(), size.tolist(), strict=True):
        try:
            event = event_pb2.Event.FromString(buf[start : start + length].tobytes())
        except (DecodeError, RuntimeError, ValueError):
            failed.append(start - 12)
            continue
        wall = event.wall_time or math.nan
        for k, value in enumerate(event.summary.value):
            number = _scalar(value)
            if number is not None:
                points.append((start + k, value.tag, event.step, number, wall))
    warnings = [
        ReadWarning("record is not a valid Event: skipped", file=file, byte=at)
        for at in failed[:_MAX_LISTED]
    ]
    if len(failed) > _MAX_LISTED:
        warnings.append(
            ReadWarning(
                f"{len(failed) - _MAX_LISTED} more records that are not valid Events skipped",
                file=file,
                byte=failed[_MAX_LISTED],
            )
        )
    return points, warnings


def _scalar(value: Any) -> float | None:  # a Summary.Value (generated protobuf, no stubs)
    kind = value.WhichOneof("value")
    if kind == "simple_value":
        return float(value.simple_value)
    if kind != "tensor" or value.metadata.plugin_data.plugin_name not in _SCALAR_PLUGINS:
        return None
    return _tensor_scalar(value.tensor)


def _tensor_scalar(tensor: Any) -> float | None:  # a TensorProto
    """The one value of a rank-0 float/double/half/bfloat16 TensorProto, else None."""
    if len(tensor.tensor_shape.dim):
        return None
    sources = [
        s
        for s in (tensor.tensor_content, tensor.float_val, tensor.double_val, tensor.half_val)
        if len(s)
    ]
    if len(sources) != 1:
        return None
    if tensor.dtype == _DT_BFLOAT16:
        bits = (
            tensor.tensor_content[:2]
            if tensor.tensor_content
            else struct.pack("<H", tensor.half_val[0] & 0xFFFF)
            if len(tensor.half_val) == 1
            else b""
        )
        return struct.unpack("<f", b"\0\0" + bits)[0] if len(bits) == 2 else None
    fmt = _FORMATS.get(tensor.dtype)
    if fmt is None:
        return None
    if tensor.tensor_content:
        content = tensor.tensor_content
        return float(struct.unpack(fmt[0], content)[0]) if len(content) == fmt[1] else None
    vals = {1: tensor.float_val, 2: tensor.double_val, 19: tensor.half_val}[tensor.dtype]
    if len(vals) != 1:
        return None
    if tensor.dtype == 19:
        return float(struct.unpack("<e", struct.pack("<H", vals[0] & 0xFFFF))[0])
    return float(vals[0])
