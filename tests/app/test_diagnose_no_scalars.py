"""`lossforensics diagnose` on a log with no readable scalars fails (exit 2) and says what it
found, instead of printing nothing and exiting 0."""

from __future__ import annotations

import struct

import crc32c
from lossforensics.cli import main


def _record(data: bytes) -> bytes:
    def masked(b: bytes) -> int:
        c = crc32c.crc32c(b)
        return (((c >> 15) | (c << 17)) + 0xA282EAD8) & 0xFFFFFFFF

    head = struct.pack("<Q", len(data))
    return head + struct.pack("<I", masked(head)) + data + struct.pack("<I", masked(data))


def test_tensorboard_file_without_scalars_exits_nonzero_saying_what_it_found(tmp_path, capsys):
    event = b"\x09" + struct.pack("<d", 1.0) + b"\x1a\x0dbrain.Event:2"  # file_version only
    path = tmp_path / "events.out.tfevents.1.host"
    path.write_bytes(_record(event))
    assert main(["diagnose", str(path)]) == 2
    err = capsys.readouterr().err
    assert "no readable scalars" in err and "tensorboard" in err
