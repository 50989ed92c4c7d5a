"""Event files for the TensorBoard reader tests, written the way the real writers write them.

- `torch_run`: PyTorch's SummaryWriter (simple_value scalars).
- `tf2_event`: a TF2 / Keras tensor summary built with tensorboard's own protobufs (tensor_pb2,
  summary_pb2), written by tensorboard's EventFileWriter (`write_events`).
- `frame_records` / `fast_scalar_file`: TFRecord framing with the crc32c C package, for files too
  big for the pure-Python writers (a million points in a few seconds) and for hand-made payloads.
"""

from __future__ import annotations

import struct
from collections.abc import Iterable, Sequence
from pathlib import Path

import crc32c
import numpy as np
from tensorboard.compat.proto import event_pb2, summary_pb2, tensor_pb2, tensor_shape_pb2

DT_FLOAT, DT_DOUBLE, DT_INT32, DT_STRING, DT_BFLOAT16, DT_HALF = 1, 2, 3, 7, 14, 19


def masked_crc(data: bytes) -> int:
    crc = crc32c.crc32c(data)
    return ((((crc >> 15) | (crc << 17)) & 0xFFFFFFFF) + 0xA282EAD8) & 0xFFFFFFFF


def frame_records(payloads: Iterable[bytes]) -> bytes:
    """TFRecord framing: length, masked CRC of it, data, masked CRC of it."""
    out = bytearray()
    for data in payloads:
        header = struct.pack("<Q", len(data))
        out += header + struct.pack("<I", masked_crc(header)) + data
        out += struct.pack("<I", masked_crc(data))
    return bytes(out)


def file_version_event(wall_time: float = 1.7e9) -> bytes:
    return event_pb2.Event(wall_time=wall_time, file_version="brain.Event:2").SerializeToString()


def scalar_event(tag: str, step: int, value: float, wall_time: float) -> bytes:
    event = event_pb2.Event(step=step, wall_time=wall_time)
    event.summary.value.add(tag=tag, simple_value=value)
    return event.SerializeToString()


def tf2_event(
    tag: str,
    step: int,
    value: float,
    wall_time: float = 1.7e9,
    *,
    dtype: int = DT_FLOAT,
    encoding: str = "content",
    shape: Sequence[int] = (),
    plugin: str | None = "scalars",
) -> event_pb2.Event:
    """A Keras-style tensor summary: rank-0 tensor + `scalars` plugin metadata."""
    tensor = tensor_pb2.TensorProto(
        dtype=dtype,
        tensor_shape=tensor_shape_pb2.TensorShapeProto(
            dim=[tensor_shape_pb2.TensorShapeProto.Dim(size=s) for s in shape]
        ),
    )
    count = int(np.prod(shape)) if shape else 1
    values = np.full(count, value)
    np_type = {DT_FLOAT: "<f4", DT_DOUBLE: "<f8", DT_HALF: "<f2"}.get(dtype)
    if dtype == DT_BFLOAT16:
        bits = (np.asarray(values, "<f4").view("<u4") >> 16).astype("<u2")
        if encoding == "content":
            tensor.tensor_content = bits.tobytes()
        else:
            tensor.half_val.extend(bits.tolist())
    elif encoding == "content":
        tensor.tensor_content = values.astype(np_type).tobytes()
    elif dtype == DT_FLOAT:
        tensor.float_val.extend(values.tolist())
    elif dtype == DT_DOUBLE:
        tensor.double_val.extend(values.tolist())
    elif dtype == DT_HALF:
        tensor.half_val.extend(values.astype("<f2").view("<u2").tolist())
    metadata = None
    if plugin is not None:
        metadata = summary_pb2.SummaryMetadata(
            plugin_data=summary_pb2.SummaryMetadata.PluginData(plugin_name=plugin)
        )
    event = event_pb2.Event(step=step, wall_time=wall_time)
    value_pb = event.summary.value.add(tag=tag, tensor=tensor)
    if metadata is not None:
        value_pb.metadata.CopyFrom(metadata)
    return event


def write_events(directory: Path, events: Iterable[event_pb2.Event], suffix: str = "") -> Path:
    """Write events with tensorboard's own EventFileWriter (the writer TF2-era tools share)."""
    from tensorboard.summary.writer.event_file_writer import EventFileWriter

    directory.mkdir(parents=True, exist_ok=True)
    writer = EventFileWriter(str(directory), filename_suffix=suffix)
    for event in events:
        writer.add_event(event)
    writer.close()
    return _newest_event_file(directory)


def _newest_event_file(directory: Path) -> Path:
    return max(directory.glob("*tfevents*"), key=lambda p: p.stat().st_mtime_ns)


def torch_run(directory: Path, series: dict[str, Sequence[tuple[int, float]]]) -> Path:
    """Write `{tag: [(step, value), ...]}` with torch.utils.tensorboard.SummaryWriter,
    interleaving tags step by step as a training loop does. Returns the event file."""
    from torch.utils.tensorboard import SummaryWriter

    writer = SummaryWriter(str(directory))
    longest = max(len(points) for points in series.values())
    for i in range(longest):
        for tag, points in series.items():
            if i < len(points):
                step, value = points[i]
                writer.add_scalar(tag, value, step, walltime=1.7e9 + i)
    writer.close()
    return _newest_event_file(directory)


def _varint(n: int) -> bytes:
    out = bytearray()
    n &= (1 << 64) - 1
    while True:
        byte = n & 0x7F
        n >>= 7
        if n:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def fast_scalar_payload(tag: bytes, step: int, value: float, wall_time: float) -> bytes:
    """The exact bytes protobuf writes for Event(wall_time, step, summary{value{tag,
    simple_value}}) (checked against event_pb2 in the tests), without a protobuf object."""
    val = b"\x0a" + _varint(len(tag)) + tag + b"\x15" + struct.pack("<f", value)
    summary = b"\x0a" + _varint(len(val)) + val
    step_field = b"\x10" + _varint(step) if step else b""
    return (
        b"\x09"
        + struct.pack("<d", wall_time)
        + step_field
        + b"\x2a"
        + _varint(len(summary))
        + summary
    )


def fast_scalar_file(
    path: Path, tags: Sequence[str], steps: int, start_time: float = 1.7e9
) -> np.ndarray:
    """Write len(tags) * steps simple_value points (tag-interleaved) in the byte layout of
    `fast_scalar_payload`, with the per-tag and per-step pieces built once; returns the values
    (float32-exact) in file order."""
    rng = np.random.default_rng(0)
    n = steps * len(tags)
    values = rng.normal(size=n).astype(np.float32)
    value_bytes = values.astype("<f4").tobytes()
    wall_bytes = (start_time + np.arange(n) * 1e-3).astype("<f8").tobytes()
    step_fields = [b"\x10" + _varint(s) if s else b"" for s in range(steps)]
    prefixes = []
    for tag in tags:
        encoded = tag.encode()
        val_len = 1 + len(_varint(len(encoded))) + len(encoded) + 5
        summary_len = 1 + len(_varint(val_len)) + val_len
        prefixes.append(
            b"\x2a"
            + _varint(summary_len)
            + b"\x0a"
            + _varint(val_len)
            + b"\x0a"
            + _varint(len(encoded))
            + encoded
            + b"\x15"
        )
    header_crcs: dict[int, bytes] = {}
    out = bytearray(frame_records([file_version_event(start_time)]))
    pack_len = struct.Struct("<Q").pack
    pack_crc = struct.Struct("<I").pack
    n_tags = len(tags)
    for i in range(n):
        payload = b"".join(
            (
                b"\x09",
                wall_bytes[8 * i : 8 * i + 8],
                step_fields[i // n_tags],
                prefixes[i % n_tags],
                value_bytes[4 * i : 4 * i + 4],
            )
        )
        size = len(payload)
        header = header_crcs.get(size)
        if header is None:
            length = pack_len(size)
            header = header_crcs[size] = length + pack_crc(masked_crc(length))
        out += header
        out += payload
        out += pack_crc(masked_crc(payload))
    path.write_bytes(bytes(out))
    return values


def timestamped_name(stamp: int, host: str = "host", counter: int = 0) -> str:
    return f"events.out.tfevents.{stamp}.{host}.{1234}.{counter}"
