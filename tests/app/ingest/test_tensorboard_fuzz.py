"""Properties of the TensorBoard reader: random events read back exactly; random bytes and mangled
event files never escape as anything but a LossForensicsError; a cut file gives a prefix; a
million points in, a million out."""

from __future__ import annotations

import math
import struct
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lossforensics.classifiers.errors import LossForensicsError
from lossforensics.ingest import tensorboard
from lossforensics.ingest._tb_walk import record_starts
from tensorboard.compat.proto import event_pb2

from tests.app.ingest.tb_event_writers import (
    DT_DOUBLE,
    DT_FLOAT,
    fast_scalar_file,
    file_version_event,
    frame_records,
    tf2_event,
    timestamped_name,
    torch_run,
)

FUZZ = settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)

tags = st.text(st.characters(codec="utf-8", exclude_categories=["Cs"]), min_size=0, max_size=40)
steps = st.integers(-(2**63), 2**63 - 1)
floats32 = st.floats(width=32, allow_nan=True, allow_infinity=True)
walls = st.floats(0, 2e9, allow_nan=False)


@st.composite
def events(draw: st.DrawFn) -> tuple[event_pb2.Event, list[tuple[str, int, float, float]]]:
    """An Event with 1-3 values, simple or TF2 tensor, and the points it should read as."""
    step, wall = draw(steps), draw(walls)
    event = event_pb2.Event(step=step, wall_time=wall)
    expected = []
    for _ in range(draw(st.integers(1, 3))):
        tag = draw(tags)
        kind = draw(st.sampled_from(["simple", "f32", "f64", "f32_val"]))
        if kind == "simple":
            value = draw(floats32)
            event.summary.value.add(tag=tag, simple_value=value)
        else:
            value = draw(
                st.floats(allow_nan=True, allow_infinity=True, width=64 if kind == "f64" else 32)
            )
            t = tf2_event(
                tag,
                step,
                value,
                dtype=DT_DOUBLE if kind == "f64" else DT_FLOAT,
                encoding="val" if kind == "f32_val" else "content",
            )
            event.summary.value.append(t.summary.value[0])
        expected.append((tag, step, value, wall if wall else math.nan))
    return event, expected


def same(a: float, b: float) -> bool:
    return (math.isnan(a) and math.isnan(b)) or a == b


@FUZZ
@given(st.lists(events(), min_size=0, max_size=30))
def test_random_events_read_back_exactly(tmp_path: Path, evs: list) -> None:
    path = tmp_path / timestamped_name(1)
    path.write_bytes(
        frame_records([file_version_event()] + [e.SerializeToString() for e, _ in evs])
    )
    frame = tensorboard.read(path).frame.sort_values("seq")
    expected = [p for _, points in evs for p in points]
    got = list(zip(frame["metric"], frame["step"], frame["value"], frame["wall_time"], strict=True))
    assert len(got) == len(expected)
    for (tag, step, value, wall), (etag, estep, evalue, ewall) in zip(got, expected, strict=True):
        assert (tag, step) == (etag, estep)
        assert same(value, evalue) and same(wall, ewall)


def only_typed_errors(path: Path) -> object:
    try:
        return tensorboard.read(path)
    except LossForensicsError as exc:
        assert exc.file, "the error must name the file"
        return exc


@FUZZ
@given(st.binary(min_size=0, max_size=2048))
def test_random_bytes_never_escape_untyped(tmp_path: Path, data: bytes) -> None:
    path = tmp_path / timestamped_name(1)
    path.write_bytes(data)
    only_typed_errors(path)
    tensorboard.sniff(path)


@pytest.fixture(scope="module")
def sample_files(
    tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest
) -> list[bytes]:
    """A torch SummaryWriter file, a TF2 tensor file, and the small published ones if present."""
    root = tmp_path_factory.mktemp("mangle")
    torch_file = torch_run(
        root / "torch",
        {"loss": [(s, 1 / (s + 1)) for s in range(60)], "lr": [(s, 0.1) for s in range(0, 60, 10)]},
    )
    tf2 = root / timestamped_name(2)
    tf2.write_bytes(
        frame_records(
            [file_version_event()]
            + [tf2_event("epoch_loss", s, 0.5 / (s + 1)).SerializeToString() for s in range(40)]
        )
    )
    out = [torch_file.read_bytes(), tf2.read_bytes()]
    real = Path(__file__).resolve().parents[3].parent / "shared" / "real_runs"
    for rel in ("tb_keras_imdb_overfit/validation", "yolov5_lego_healthy"):
        for f in sorted((real / rel).glob("*tfevents*")):
            if f.stat().st_size < 200_000:
                out.append(f.read_bytes())
    return out


@FUZZ
@given(st.data())
def test_mangled_event_files_never_escape_untyped(
    tmp_path: Path, sample_files: list[bytes], data: st.DataObject
) -> None:
    original = sample_files[data.draw(st.integers(0, len(sample_files) - 1), label="file")]
    mangled = bytearray(original[: data.draw(st.integers(0, len(original)))])
    for _ in range(data.draw(st.integers(0, 6))):
        if mangled:
            mangled[data.draw(st.integers(0, len(mangled) - 1))] ^= data.draw(st.integers(1, 255))
    path = tmp_path / timestamped_name(3)
    path.write_bytes(bytes(mangled))
    only_typed_errors(path)


@FUZZ
@given(st.data())
def test_a_cut_file_reads_as_a_prefix(
    tmp_path: Path, sample_files: list[bytes], data: st.DataObject
) -> None:
    original = sample_files[data.draw(st.integers(0, len(sample_files) - 1), label="file")]
    whole_path = tmp_path / "whole" / timestamped_name(4)
    whole_path.parent.mkdir(exist_ok=True)
    whole_path.write_bytes(original)
    whole = tensorboard.read(whole_path).frame
    cut = tmp_path / "cut" / timestamped_name(4)
    cut.parent.mkdir(exist_ok=True)
    cut.write_bytes(original[: data.draw(st.integers(1, len(original)))])
    result = only_typed_errors(cut)
    if isinstance(result, LossForensicsError):
        return
    part = result.frame
    n = len(part)
    assert n <= len(whole)
    for column in ("metric", "step", "wall_time"):
        assert part[column].tolist() == whole[column].iloc[:n].tolist()
    np.testing.assert_array_equal(part["value"].to_numpy(), whole["value"].iloc[:n].to_numpy())
    assert len([w for w in result.warnings if w.byte is not None]) <= 1  # the cut, if any


def naive_starts(raw: bytes) -> list[int]:
    starts, pos = [], 0
    while pos + 16 <= len(raw):
        nxt = pos + 16 + struct.unpack_from("<Q", raw, pos)[0]
        if nxt > len(raw):
            break
        starts.append(pos)
        pos = nxt
    return starts


@FUZZ
@given(
    pattern=st.lists(st.integers(0, 40), min_size=1, max_size=12),
    repeats=st.integers(1, 400),
    noise=st.lists(st.integers(0, 5000), max_size=8),
    cut=st.integers(0, 50),
)
def test_speculative_walk_finds_the_same_records_as_a_plain_loop(
    pattern: list[int], repeats: int, noise: list[int], cut: int
) -> None:
    """Periodic lengths (tags logged in turn) broken by odd records at random places, and a
    cut tail: the vectorised guesses must land exactly where the record-by-record loop does."""
    lengths = pattern * repeats
    for i, at in enumerate(noise):
        lengths.insert(at % (len(lengths) + 1), 100 + i)
    raw = frame_records(bytes([k % 251]) * n for k, n in enumerate(lengths))
    raw = raw[: max(0, len(raw) - cut)]
    got = record_starts(raw, np.frombuffer(raw, dtype=np.uint8))
    assert got.tolist() == naive_starts(raw)


@pytest.mark.slow
def test_a_million_points_in_a_million_out(tmp_path: Path) -> None:
    names = [f"train/loss_{k}" for k in range(5)] + [f"val/acc_{k}" for k in range(5)]
    path = tmp_path / timestamped_name(1700000000)
    values = fast_scalar_file(path, names, steps=100_000)
    result = tensorboard.read(path)
    frame = result.frame
    assert result.warnings == []
    assert len(frame) == 1_000_000
    np.testing.assert_array_equal(frame["value"].to_numpy(), values.astype(np.float64))
    assert frame["step"].to_numpy().tolist()[:20] == [0] * 10 + [1] * 10
    assert (frame.groupby("metric", observed=True).size() == 100_000).all()
    assert np.array_equal(frame["step"].to_numpy(), np.repeat(np.arange(100_000), 10))
