"""TensorBoard reader on files written by the real writers: values, steps, tags, layout, errors."""

from __future__ import annotations

import math
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from lossforensics.classifiers.errors import CorruptInputError, NoLogsFoundError, UnknownFormatError
from lossforensics.classifiers.frame import validate_frame
from lossforensics.ingest import tensorboard

from tests.app.ingest.tb_event_writers import (
    DT_BFLOAT16,
    DT_DOUBLE,
    DT_FLOAT,
    DT_HALF,
    DT_INT32,
    fast_scalar_payload,
    file_version_event,
    frame_records,
    scalar_event,
    tf2_event,
    timestamped_name,
    torch_run,
    write_events,
)


def series(frame: pd.DataFrame, metric: str) -> pd.DataFrame:
    return frame[frame["metric"] == metric].sort_values("seq")


def f32(x: float) -> float:
    return float(np.float32(x))


# --- PyTorch SummaryWriter ---------------------------------------------------------------------


@pytest.fixture(scope="module")
def torch_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    directory = tmp_path_factory.mktemp("torch") / "resnet-lr0.1"
    loss = [(s, 2.0 / (s + 1)) for s in range(0, 500, 5)]
    loss[40] = (loss[40][0], math.nan)
    loss[41] = (loss[41][0], math.inf)
    return torch_run(
        directory,
        {
            "train/loss": loss,
            "train/lr": [(s, 0.1) for s in range(0, 500, 50)],
            "val/loss": [(s, 1.5 - s / 1000) for s in range(0, 500, 100)],
        },
    )


def test_torch_simple_values_read_exactly(torch_file: Path) -> None:
    result = tensorboard.read(torch_file)
    frame = validate_frame(result.frame)
    assert result.format == "tensorboard" and result.files == [str(torch_file)]
    assert result.warnings == []
    assert set(frame["run"]) == {"resnet-lr0.1"}
    loss = series(frame, "train/loss")
    assert loss["step"].tolist() == list(range(0, 500, 5))
    expected = [f32(2.0 / (s + 1)) for s in range(0, 500, 5)]
    expected[40], expected[41] = math.nan, math.inf
    np.testing.assert_array_equal(loss["value"].to_numpy(), np.array(expected))
    assert set(series(frame, "train/lr")["value"]) == {f32(0.1)}
    assert len(series(frame, "val/loss")) == 5
    roles = dict(zip(frame["metric"], frame["role"], strict=True))
    assert roles == {"train/loss": "train_loss", "train/lr": "lr", "val/loss": "val_loss"}
    # wall_time as logged (walltime=1.7e9 + loop index); seq is the file order
    assert loss["wall_time"].iloc[3] == pytest.approx(1.7e9 + 3)
    assert frame["seq"].is_monotonic_increasing and frame["seq"].is_unique


def test_same_points_as_tbparse(torch_file: Path) -> None:
    tbparse = pytest.importorskip("tbparse")
    ours = tensorboard.read(torch_file).frame
    ref = tbparse.SummaryReader(str(torch_file)).scalars
    key = ["tag", "step"]
    a = (
        pd.DataFrame(
            {"tag": ours["metric"].astype(str), "step": ours["step"], "value": ours["value"]}
        )
        .sort_values(key)
        .reset_index(drop=True)
    )
    b = ref[["tag", "step", "value"]].astype({"tag": str}).sort_values(key).reset_index(drop=True)
    assert a["tag"].tolist() == b["tag"].tolist()
    assert a["step"].tolist() == b["step"].astype("int64").tolist()
    np.testing.assert_array_equal(a["value"].to_numpy(), b["value"].to_numpy(dtype=float))


def test_roles_override(torch_file: Path) -> None:
    frame = tensorboard.read(torch_file, roles={"val/*": "other"}).frame
    assert set(frame.loc[frame["metric"] == "val/loss", "role"]) == {"other"}


def test_ultralytics_metrics_beside_val_losses_are_validation_scores(tmp_path: Path) -> None:
    # YOLOv5/v8 write results.csv and the same results to TensorBoard: `metrics/*` (precision,
    # recall, mAP) are computed on the validation set, as the CSV reader reads them
    epochs = [(e, 0.1 - 0.01 * e) for e in range(5)]
    torch_run(
        tmp_path,
        {"train/box_loss": epochs, "val/box_loss": epochs, "metrics/mAP_0.5": epochs},
    )
    roles = tensorboard.read(tmp_path).frame.groupby("metric", observed=True)["role"].first()
    assert roles["metrics/mAP_0.5"] == "val_score" and roles["val/box_loss"] == "val_loss"
    # near miss: without validation losses beside them, `metrics/*` keep their inferred role
    other = tmp_path / "other"
    torch_run(other, {"train/loss": epochs, "metrics/accuracy": epochs})
    roles = tensorboard.read(other).frame.groupby("metric", observed=True)["role"].first()
    assert roles["metrics/accuracy"] == "train_score"


# --- TF2 tensor summaries ----------------------------------------------------------------------


def test_tf2_scalar_tensors_every_encoding(tmp_path: Path) -> None:
    cases = [
        ("content_f32", DT_FLOAT, "content", 0.3),
        ("float_val", DT_FLOAT, "val", 0.25),
        ("content_f64", DT_DOUBLE, "content", 0.123456789012345),
        ("double_val", DT_DOUBLE, "val", -2.5e-7),
        ("content_f16", DT_HALF, "content", 0.5),
        ("half_val", DT_HALF, "val", 1.25),
        ("bf16_content", DT_BFLOAT16, "content", 3.0),
        ("bf16_val", DT_BFLOAT16, "val", -0.5),
    ]
    events = [
        tf2_event(tag, step, value, dtype=dtype, encoding=enc)
        for step in range(3)
        for tag, dtype, enc, value in cases
    ]
    write_events(tmp_path / "run", events)
    frame = tensorboard.read(tmp_path / "run").frame
    for tag, dtype, _, value in cases:
        got = series(frame, tag)
        assert got["step"].tolist() == [0, 1, 2], tag
        want = value if dtype == DT_DOUBLE else f32(value)
        assert got["value"].tolist() == [want] * 3, tag


def test_tf2_skips_what_is_not_a_scalar(tmp_path: Path) -> None:
    events = [
        tf2_event("epoch_loss", 1, 0.5),
        tf2_event("vector", 1, 0.5, shape=(2,)),  # rank 1: not a scalar
        tf2_event("count", 1, 3, dtype=DT_INT32),  # integer dtype: not a loss curve
        tf2_event("_hparams_/session_start_info", 1, 0.0, plugin="hparams"),
        tf2_event("layer/kernel/histogram", 1, 0.1, shape=(3, 2), plugin="histograms"),
        tf2_event("no_metadata", 1, 0.75, plugin=None),
    ]
    image = tf2_event("image", 1, 0.0)
    image.summary.value[0].ClearField("tensor")
    image.summary.value[0].image.encoded_image_string = b"\x89PNG..."
    write_events(tmp_path / "run", [*events, image])
    frame = tensorboard.read(tmp_path / "run").frame
    assert sorted(frame["metric"]) == ["epoch_loss", "no_metadata"]


def test_tf2_plugin_named_once_per_tag(tmp_path: Path) -> None:
    """TF writes a tag's metadata with its first value only: later values of a `scalars` tag
    count, later values of an `hparams` tag do not."""
    events = [
        tf2_event("loss", s, 1.0 / (s + 1), plugin="scalars" if s == 0 else None) for s in range(4)
    ]
    events += [tf2_event("hp", s, 0.0, plugin="hparams" if s == 0 else None) for s in range(2)]
    write_events(tmp_path / "run", events)
    frame = tensorboard.read(tmp_path / "run").frame
    assert series(frame, "loss")["step"].tolist() == [0, 1, 2, 3]
    assert "hp" not in set(frame["metric"])


def test_plugin_verdict_holds_across_decode_chunks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Records are decoded in chunks; a tag's metadata seen in the first chunk still decides
    for its values in later chunks."""
    from lossforensics.ingest import _tb_decode

    monkeypatch.setattr(_tb_decode, "_CHUNK_RECORDS", 2)
    events = [tf2_event("hp", s, 0.0, plugin="hparams" if s == 0 else None) for s in range(5)]
    events += [tf2_event("loss", s, 1.0, plugin="scalars" if s == 0 else None) for s in range(5)]
    events += [tf2_event("hp", 9, 0.0, plugin=None, encoding="val")]  # not the Keras byte layout
    write_events(tmp_path / "run", events)
    frame = tensorboard.read(tmp_path / "run").frame
    assert frame["metric"].tolist() == ["loss"] * 5


def test_multi_value_summaries_keep_order(tmp_path: Path) -> None:
    event = tf2_event("a", 7, 1.0)
    event.summary.value.add(tag="b", simple_value=2.0)
    event.summary.value.add(tag="c", simple_value=3.0)
    write_events(tmp_path / "run", [event, tf2_event("a", 8, 4.0)])
    frame = tensorboard.read(tmp_path / "run").frame.sort_values("seq")
    assert frame["metric"].tolist() == ["a", "b", "c", "a"]
    assert frame["value"].tolist() == [1.0, 2.0, 3.0, 4.0]
    assert frame["step"].tolist() == [7, 7, 7, 8]


# --- layout: Keras splits, nested runs, restarts -----------------------------------------------


def keras_run(root: Path, name: str = "imdb") -> Path:
    run = root / name
    write_events(run / "train", [tf2_event("epoch_loss", e, 1.0 / (e + 1)) for e in range(5)])
    write_events(
        run / "validation",
        [tf2_event("epoch_loss", e, 0.5 + 0.01 * e) for e in range(5)]
        + [tf2_event("evaluation_loss_vs_iterations", 100 * e, 0.5) for e in range(5)],
    )
    return run


def test_keras_train_validation_dirs_are_one_run(tmp_path: Path) -> None:
    run = keras_run(tmp_path)
    result = tensorboard.read(run)
    frame = result.frame
    assert set(frame["run"]) == {"imdb"}
    roles = dict(zip(frame["metric"], frame["role"], strict=True))
    assert roles == {
        "train/epoch_loss": "train_loss",
        "validation/epoch_loss": "val_loss",
        "validation/evaluation_loss_vs_iterations": "val_loss",
    }
    assert len(result.files) == 2


def test_folder_of_runs_names_each_by_relative_path(tmp_path: Path) -> None:
    keras_run(tmp_path / "sweep", "lr_0.1")
    torch_run(tmp_path / "sweep" / "group b" / "seed1", {"loss": [(0, 1.0), (1, 0.5)]})
    frame = tensorboard.read(tmp_path / "sweep").frame
    assert sorted(set(frame["run"])) == ["group b/seed1", "lr_0.1"]
    prefixed = tensorboard.read(tmp_path / "sweep", run="exp").frame
    assert sorted(set(prefixed["run"])) == ["exp/group b/seed1", "exp/lr_0.1"]
    single = tensorboard.read(tmp_path / "sweep" / "lr_0.1", run="mine").frame
    assert set(single["run"]) == {"mine"}


def test_a_split_file_alone_keeps_its_split(tmp_path: Path) -> None:
    run = keras_run(tmp_path)
    (val_file,) = (run / "validation").glob("*tfevents*")
    frame = tensorboard.read(val_file).frame
    assert set(frame["run"]) == {"imdb"}
    assert set(frame.loc[frame["metric"] == "validation/epoch_loss", "role"]) == {"val_loss"}


def test_restart_files_read_in_timestamp_order_every_point_kept(tmp_path: Path) -> None:
    run = tmp_path / "run"
    run.mkdir()
    first = [scalar_event("loss", s, 1.0 / (s + 1), 100.0 + s) for s in range(0, 10)]
    resumed = [scalar_event("loss", s, 0.5, 200.0 + s) for s in range(5, 12)]  # steps repeat
    # name order ('a' < 'b') disagrees with timestamp order: the timestamp wins
    (run / (timestamped_name(1700000200, host="a"))).write_bytes(frame_records(resumed))
    (run / (timestamped_name(1700000100, host="b"))).write_bytes(frame_records(first))
    frame = tensorboard.read(run).frame.sort_values("seq")
    assert frame["step"].tolist() == list(range(10)) + list(range(5, 12))
    assert frame["wall_time"].is_monotonic_increasing


def test_step_zero_and_extreme_steps(tmp_path: Path) -> None:
    steps = [0, 1, 127, 128, 2**31, 2**62, -5]
    write_events(tmp_path / "r", [tf2_event("x", s, 1.0) for s in steps])
    assert tensorboard.read(tmp_path / "r").frame["step"].tolist() == steps


# --- bad input ---------------------------------------------------------------------------------


def records_file(tmp_path: Path, n: int = 20) -> tuple[Path, list[int]]:
    """An event file of n scalar records (after a file_version record) and each record's
    byte offset."""
    payloads = [file_version_event()] + [
        scalar_event("loss", s, float(s), 1e9 + s) for s in range(n)
    ]
    offsets, pos = [], 0
    for p in payloads:
        offsets.append(pos)
        pos += len(p) + 16
    path = tmp_path / timestamped_name(1700000000)
    path.write_bytes(frame_records(payloads))
    return path, offsets[1:]


def test_truncated_last_record_keeps_points_before(tmp_path: Path) -> None:
    path, offsets = records_file(tmp_path)
    data = path.read_bytes()
    path.write_bytes(data[: offsets[-1] + 10])
    result = tensorboard.read(path)
    assert result.frame["step"].tolist() == list(range(19))
    (warning,) = result.warnings
    assert warning.byte == offsets[-1] and warning.file == str(path)
    assert "truncated" in warning.message


def test_data_checksum_failure_skips_that_record_only(tmp_path: Path) -> None:
    path, offsets = records_file(tmp_path)
    data = bytearray(path.read_bytes())
    data[offsets[7] + 20] ^= 0xFF  # inside record 7's payload
    path.write_bytes(bytes(data))
    result = tensorboard.read(path)
    assert result.frame["step"].tolist() == [s for s in range(20) if s != 7]
    (warning,) = result.warnings
    assert warning.byte == offsets[7] and "checksum" in warning.message


def test_length_checksum_failure_stops_at_the_broken_frame(tmp_path: Path) -> None:
    path, offsets = records_file(tmp_path)
    data = bytearray(path.read_bytes())
    data[offsets[12]] ^= 0x01  # the length of record 12
    path.write_bytes(bytes(data))
    result = tensorboard.read(path)
    assert result.frame["step"].tolist() == list(range(12))
    assert [w.byte for w in result.warnings] == [offsets[12]]


def test_valid_checksum_but_not_an_event_is_a_warning(tmp_path: Path) -> None:
    payloads = [
        scalar_event("loss", 1, 1.0, 1e9),
        b"\xff\xff\xff",
        scalar_event("loss", 2, 2.0, 1e9),
    ]
    path = tmp_path / timestamped_name(1)
    path.write_bytes(frame_records(payloads))
    result = tensorboard.read(path)
    assert result.frame["step"].tolist() == [1, 2]
    (warning,) = result.warnings
    assert warning.byte == len(payloads[0]) + 16 and "not a valid Event" in warning.message


def test_protobuf_fallback_reads_what_the_fast_path_rejects(tmp_path: Path) -> None:
    """An unknown group field (wire types 3/4) is legal protobuf the numpy walker does not
    handle: the record goes to the protobuf runtime and its point is kept, in order."""
    odd = scalar_event("loss", 2, 2.0, 1e9) + b"\x9b\x06\x9c\x06"
    path = tmp_path / timestamped_name(1)
    path.write_bytes(
        frame_records([scalar_event("loss", 1, 1.0, 1e9), odd, scalar_event("loss", 3, 3.0, 1e9)])
    )
    result = tensorboard.read(path)
    assert result.frame.sort_values("seq")["step"].tolist() == [1, 2, 3]
    assert result.warnings == []


def test_empty_and_metadata_only_files_give_no_points_and_say_so(tmp_path: Path) -> None:
    empty = tmp_path / "a" / timestamped_name(1)
    empty.parent.mkdir()
    empty.touch()
    result = tensorboard.read(empty)
    assert len(result.frame) == 0
    assert any(w.byte == 0 and "empty" in w.message for w in result.warnings)
    only_version = tmp_path / "b" / timestamped_name(2)
    only_version.parent.mkdir()
    only_version.write_bytes(frame_records([file_version_event()]))
    assert len(tensorboard.read(only_version).frame) == 0


def test_not_an_event_file_names_the_file(tmp_path: Path) -> None:
    text = tmp_path / "notes.txt"
    text.write_text("step,loss\n1,0.5\n2,0.4\n")
    with pytest.raises(UnknownFormatError) as err:
        tensorboard.read(text)
    assert err.value.file == str(text)


def test_git_lfs_pointer_is_named_as_such(tmp_path: Path) -> None:
    pointer = tmp_path / "runs" / timestamped_name(1)
    pointer.parent.mkdir()
    pointer.write_text("version https://git-lfs.github.com/spec/v1\noid sha256:abc\nsize 40\n")
    with pytest.raises(UnknownFormatError, match="git-LFS"):
        tensorboard.read(pointer)
    with pytest.raises(UnknownFormatError):  # a directory with nothing readable
        tensorboard.read(pointer.parent)


def test_unreadable_file_beside_good_ones_is_a_warning(tmp_path: Path) -> None:
    (tmp_path / "run").mkdir()
    path, _ = records_file(tmp_path / "run")
    bogus = path.parent / timestamped_name(5, host="bogus")
    bogus.write_bytes(b"this is not a record at all")
    result = tensorboard.read(path.parent)
    assert len(result.frame) == 20
    assert [w.file for w in result.warnings] == [str(bogus)]


def test_directory_without_event_files(tmp_path: Path) -> None:
    (tmp_path / "metrics.csv").write_text("a,b\n")
    with pytest.raises(NoLogsFoundError):
        tensorboard.read(tmp_path)
    with pytest.raises(NoLogsFoundError):
        tensorboard.read(tmp_path / "missing")


def test_unreadable_path_is_a_typed_error(tmp_path: Path) -> None:
    path, _ = records_file(tmp_path)
    path.chmod(0)
    try:
        try:
            path.open("rb").close()
        except PermissionError:
            with pytest.raises(CorruptInputError):
                tensorboard.read(path)
        else:
            pytest.skip("file permissions are not enforced for this user (root)")
    finally:
        path.chmod(0o644)


def test_sniff(tmp_path: Path, torch_file: Path) -> None:
    assert tensorboard.sniff(torch_file)
    assert tensorboard.sniff(torch_file.parent)
    text = tmp_path / "x.txt"
    text.write_text("hello world, not a record")
    empty = tmp_path / "empty"
    empty.touch()
    assert not tensorboard.sniff(text)
    assert not tensorboard.sniff(empty)
    assert not tensorboard.sniff(tmp_path)
    assert not tensorboard.sniff(tmp_path / "missing")


def test_fast_writer_matches_protobuf_bytes() -> None:
    """The hand-framed payloads used for the million-point test are what protobuf writes."""
    for step in (0, 1, 300, 2**40):
        assert fast_scalar_payload(b"train/loss", step, 0.25, 1.7e9 + 0.5) == scalar_event(
            "train/loss", step, 0.25, 1.7e9 + 0.5
        )


def test_copied_run_reads_the_same(tmp_path: Path, torch_file: Path) -> None:
    copy = tmp_path / "copy"
    shutil.copytree(torch_file.parent, copy)
    a = tensorboard.read(torch_file.parent).frame.drop(columns="run")
    b = tensorboard.read(copy).frame.drop(columns="run")
    pd.testing.assert_frame_equal(a, b)
