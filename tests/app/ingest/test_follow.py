"""Follower: a growing log read a piece at a time gives the points a full read gives.

Each format is grown in steps, with a record or line cut mid-write at the end of some steps;
the points of every poll, put together, must equal `load_run` of the finished file, and a cut
record is never a warning."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
from lossforensics.classifiers.diagnose import diagnose
from lossforensics.classifiers.incremental import IncrementalDiagnosis
from lossforensics.ingest import load_run
from lossforensics.ingest.follow import Follower

from tests.app.ingest.tb_event_writers import file_version_event, frame_records, scalar_event

COLS = ["metric", "step", "value"]


def _points(frame: pd.DataFrame) -> pd.DataFrame:
    out = frame[COLS].astype({"metric": str}).sort_values(COLS, kind="stable")
    return out.reset_index(drop=True)


def _grow(path: Path, pieces: list[bytes], follower: Follower) -> list[pd.DataFrame]:
    got = []
    for piece in pieces:
        with path.open("ab") as fh:
            fh.write(piece)
        batch = follower.poll()
        assert not any("truncated" in str(w) for w in batch.warnings)
        got.append(batch.frame)
    return got


def _cut(data: bytes, parts: int) -> list[bytes]:
    """Pieces of `data` cut at arbitrary bytes (mid-line, mid-record)."""
    cuts = np.linspace(0, len(data), parts + 1).astype(int) + 7
    cuts[0], cuts[-1] = 0, len(data)
    return [data[a:b] for a, b in zip(cuts[:-1], cuts[1:], strict=True)]


def _check(path: Path, got: list[pd.DataFrame]) -> None:
    frames = [f for f in got if len(f)]
    assert len(frames) > 1, "the file should have been read in several pieces"
    together = pd.concat(frames, ignore_index=True)
    assert_same = _points(together).equals(_points(load_run(path).frame))
    assert assert_same
    roles = dict(zip(together["metric"].astype(str), together["role"].astype(str), strict=False))
    full_roles = load_run(path).frame.drop_duplicates("metric")
    for metric, role in zip(full_roles["metric"], full_roles["role"].astype(str), strict=True):
        assert roles[metric] == role


def _jsonl(n: int, nan_at: int | None = None) -> bytes:
    lines = []
    for s in range(n):
        loss = float("nan") if s == nan_at else 2 * np.exp(-s / 40) + 0.3
        lines.append(json.dumps({"step": s, "loss": loss, "lr": 1e-3}))
    return ("\n".join(lines) + "\n").encode()


def test_jsonl_grown_with_cut_lines(tmp_path: Path) -> None:
    path = tmp_path / "metrics.jsonl"
    path.touch()
    follower = Follower(path)
    _check(path, _grow(path, _cut(_jsonl(200), 9), follower))


def test_keras_csv_appended_under_its_header(tmp_path: Path) -> None:
    path = tmp_path / "training.log"
    rows = ["epoch,loss,val_loss"] + [
        f"{e},{2 / (e + 1):.5f},{2.2 / (e + 1):.5f}" for e in range(60)
    ]
    path.touch()
    follower = Follower(path)
    _check(path, _grow(path, _cut(("\n".join(rows) + "\n").encode(), 6), follower))


def test_tensorboard_file_grown_record_by_record(tmp_path: Path) -> None:
    path = tmp_path / "events.out.tfevents.1700000000.host"
    payloads = [file_version_event()] + [
        scalar_event(tag, s, 1.0 / (s + 1), 1.7e9 + s)
        for s in range(150)
        for tag in ("train/loss", "lr")
    ]
    path.touch()
    follower = Follower(tmp_path)
    _check(path, _grow(path, _cut(frame_records(payloads), 8), follower))


def test_hf_trainer_state_rewritten_and_new_checkpoints(tmp_path: Path) -> None:
    history = [{"step": s, "loss": 2.0 / (s + 1), "learning_rate": 1e-4} for s in range(1, 120)]
    follower = Follower(tmp_path)
    got = []
    for upto, checkpoint in ((40, 40), (80, 80), (119, 119)):
        folder = tmp_path / f"checkpoint-{checkpoint}"
        folder.mkdir()
        state = {"global_step": upto, "log_history": history[:upto]}
        (folder / "trainer_state.json").write_text(json.dumps(state))
        got.append(follower.poll().frame)
    assert [len(f) for f in got] == [80, 80, 78]  # each point once, though every copy repeats
    last = tmp_path / "checkpoint-119" / "trainer_state.json"
    _check(last, got)
    # a half-written rewrite is not an error: its points come at the next poll
    shutil.copy(last, tmp_path / "trainer_state.json")
    (tmp_path / "checkpoint-200").mkdir()
    half = tmp_path / "checkpoint-200" / "trainer_state.json"
    half.write_text(last.read_text()[:-40])
    assert len(follower.poll()) == 0


def test_new_files_in_a_folder_join_in(tmp_path: Path) -> None:
    follower = Follower(tmp_path)
    (tmp_path / "a.jsonl").write_bytes(_jsonl(30))
    first = follower.poll()
    (tmp_path / "b.jsonl").write_bytes(_jsonl(20))
    second = follower.poll()
    assert set(first.frame["run"]) == {"a"} and set(second.frame["run"]) == {"b"}
    assert len(first) == 60 and len(second) == 40


def test_follow_then_incremental_equals_a_full_diagnosis(tmp_path: Path) -> None:
    path = tmp_path / "metrics.jsonl"
    path.touch()
    follower = Follower(path)
    live = IncrementalDiagnosis("metrics")
    for piece in _cut(_jsonl(300, nan_at=250), 5):
        with path.open("ab") as fh:
            fh.write(piece)
        live.add_frame(follower.poll().frame)
        live.tick()
    assert (
        live.tick().diagnosis.to_dict()["findings"]
        == (diagnose(load_run(path).frame).to_dict()["findings"])
    )


def _resumed_jsonl() -> bytes:
    """A run logged to step 150, resumed from step 100 (the counter goes back) with a fresh
    optimizer (the loss jumps, then settles) and run to 200; a val loss every 25 steps."""
    lines = []
    for i, s in enumerate([*range(150), *range(100, 200)]):
        jump = 0.0 if i < 150 else 1.5 * np.exp(-(s - 100) / 15)
        row = {"step": s, "loss": 2 * np.exp(-s / 40) + 0.3 + jump}
        if s % 25 == 0:
            row["val_loss"] = 2 * np.exp(-s / 50) + 0.4
        lines.append(json.dumps(row))
    return ("\n".join(lines) + "\n").encode()


def test_segments_continue_across_polls_as_in_the_whole_file(tmp_path: Path) -> None:
    # cut so that the resume falls inside a piece, at a piece's seam, and in the first piece
    data = _resumed_jsonl()
    seam = data.index(b'{"step": 100, "loss"', data.index(b'{"step": 149'))
    for pieces in (_cut(data, 3), _cut(data, 7), [data[:seam], data[seam:]], [data]):
        path = tmp_path / f"run{len(pieces)}.jsonl"
        path.touch()
        follower = Follower(path)
        got = [f.sort_values("seq") for f in _grow(path, pieces, follower) if len(f)]
        together = pd.concat(got, ignore_index=True)  # each piece numbers its rows from 0
        full = load_run(path).frame.sort_values("seq", kind="stable")
        assert together["segment"].tolist() == full["segment"].tolist()
        assert together["segment"].max() == 1


def test_a_resumed_run_followed_then_diagnosed_equals_a_full_diagnosis(tmp_path: Path) -> None:
    path = tmp_path / "metrics.jsonl"
    path.touch()
    follower = Follower(path)
    live = IncrementalDiagnosis("metrics")
    for piece in _cut(_resumed_jsonl(), 6):
        with path.open("ab") as fh:
            fh.write(piece)
        live.add_frame(follower.poll().frame)
        live.tick()
    full = diagnose(load_run(path).frame).to_dict()["findings"]
    assert "resume_discontinuity" in [f["label"] for f in full]
    assert live.tick().diagnosis.to_dict()["findings"] == full
