"""Tag spans to codes + names: the same answer as a dict, whatever the lengths and prefixes."""

from __future__ import annotations

import numpy as np
import pytest
from lossforensics.ingest import _tb_names
from lossforensics.ingest._tb_names import factorize_spans


def reference(buf: bytes, pos: list[int], size: list[int]) -> tuple[list[int], list[str]]:
    index: dict[str, int] = {}
    codes = [
        index.setdefault(buf[p : p + n].decode("utf-8", "replace"), len(index))
        for p, n in zip(pos, size, strict=True)
    ]
    return codes, list(index)


@pytest.mark.parametrize("longest", [1, 7, 8, 9, 16, 63, 64, 65, 200])
def test_matches_a_dict(longest: int) -> None:
    rng = np.random.default_rng(longest)
    names = [b"train/loss", b"train/loss_", b"val/loss", b"", "\u00e9t\u00e9".encode(), b"\xff\xfe"]
    names += [b"x" * longest, b"x" * (longest - 1) + b"y", b"p" * 40 + b"q"]
    picks = rng.integers(0, len(names), 500)
    parts, pos, size, at = [], [], [], 0
    for i in picks.tolist():
        filler = bytes(rng.integers(0, 256, 3, dtype=np.uint8))
        parts.append(filler + names[i])
        pos.append(at + 3)
        size.append(len(names[i]))
        at += 3 + len(names[i])
    parts.append(b"\x00" * 4)  # bytes after the last span, as a record's value and CRC
    raw = b"".join(parts)
    buf = np.frombuffer(raw, dtype=np.uint8)
    codes, got = factorize_spans(buf, np.array(pos), np.array(size))
    want_codes, want = reference(raw, pos, size)
    assert got == want and codes.tolist() == want_codes


def test_a_hash_collision_falls_back_to_the_exact_path(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_tb_names, "_MIX", np.uint64(0))  # every key = the last word: collides
    raw = b"abcdefgh12345678" + b"zzzzzzzz12345678" + b"\x00" * 8
    buf = np.frombuffer(raw, dtype=np.uint8)
    codes, names = factorize_spans(buf, np.array([0, 16, 0]), np.array([16, 16, 16]))
    assert names == ["abcdefgh12345678", "zzzzzzzz12345678"] and codes.tolist() == [0, 1, 0]
