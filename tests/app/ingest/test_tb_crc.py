"""The vectorised CRC32C of TFRecord framing agrees with the C implementation on every length
and on every mix of bytes shared by all messages and bytes that vary."""

from __future__ import annotations

import crc32c
import numpy as np
import pytest
from lossforensics.ingest._tb_crc import crc_fixed_length, masked_crc_one, masked_crcs


def expected(buf: np.ndarray, starts: np.ndarray, length: int) -> np.ndarray:
    return np.array(
        [crc32c.crc32c(buf[s : s + length].tobytes()) for s in starts.tolist()], dtype=np.uint32
    )


@pytest.mark.parametrize("length", [8, 9, 11, 15, 16, 17, 23, 38, 64, 100, 255])
def test_random_bytes(length: int) -> None:
    rng = np.random.default_rng(length)
    buf = rng.integers(0, 256, 20_000, dtype=np.uint8)
    starts = rng.integers(0, len(buf) - length, 300)
    np.testing.assert_array_equal(
        crc_fixed_length(buf, starts, length), expected(buf, starts, length)
    )


@pytest.mark.parametrize("length", range(8, 48))
def test_shared_and_varying_bytes(length: int) -> None:
    """Messages that differ only in some positions (a log's records: same tags, new values)."""
    rng = np.random.default_rng(1000 + length)
    for _ in range(4):
        messages = np.tile(rng.integers(0, 256, length, dtype=np.uint8), (200, 1))
        varying = rng.random(length) < rng.random()
        messages[:, varying] = rng.integers(0, 256, (200, int(varying.sum())), dtype=np.uint8)
        buf = messages.ravel().copy()
        starts = np.arange(200) * length
        np.testing.assert_array_equal(
            crc_fixed_length(buf, starts, length), expected(buf, starts, length)
        )


def test_masked_crcs_mixes_lengths() -> None:
    rng = np.random.default_rng(7)
    buf = rng.integers(0, 256, 50_000, dtype=np.uint8)
    lengths = rng.choice([3, 12, 12, 37, 300], 500)
    starts = rng.integers(0, len(buf) - 300, 500)
    want = [masked_crc_one(buf[s : s + n].tobytes()) for s, n in zip(starts, lengths, strict=True)]
    assert masked_crcs(buf, buf.tobytes(), starts, lengths).tolist() == want
