"""A grown run's points as appended Parquet parts, on SQLite and PostgreSQL: every batch read
back in order, the chain kept short by merges, a part whose commit never came ignored then
removed, readers never see a torn run while appends merge under them, delete and orphan
cleaning take the parts too."""

from __future__ import annotations

import threading
import time

import numpy as np
import pandas as pd
import pytest
from lossforensics.classifiers.diagnosis import Diagnosis
from lossforensics.classifiers.frame import empty_frame, make_frame
from lossforensics.classifiers.incremental import IncrementalDiagnosis
from lossforensics.store import NewRun, RunStore
from lossforensics.store.frames import read_frame_file
from lossforensics.store.parts import MAX_PARTS, append_lock, list_parts

EMPTY: Diagnosis = IncrementalDiagnosis("live").tick().diagnosis


def _batch(first: int, n: int) -> pd.DataFrame:
    steps = np.arange(first, first + n) // 2
    metrics = np.array(["loss", "lr"] * (n // 2), dtype=object)
    return make_frame("live", metrics, steps, np.linspace(2, 1, n), seq=np.arange(first, first + n))


def _live_run(store: RunStore) -> str:
    (rec,) = store.add("p", [NewRun("live", empty_frame(), EMPTY, format="live")])
    return rec.id


def test_appended_batches_read_back_in_order_with_a_short_chain(store: RunStore):
    run_id = _live_run(store)
    for i in range(100):
        store.append_points("p", run_id, _batch(i * 40, 40), EMPTY, expect_points=i * 40)
    frame = store.frame("p", run_id)
    assert len(frame) == 4000 and store.get("p", run_id).points == 4000
    assert (frame["seq"].to_numpy() == np.arange(4000)).all()
    assert frame["metric"].tolist()[:4] == ["loss", "lr", "loss", "lr"]
    assert str(frame["role"].iloc[0]) == "train_loss"
    parts = list_parts(store.frames.parts_dir(run_id))
    assert len(parts) <= 8 < MAX_PARTS  # about log2(100) parts, merged ones removed
    by_path = read_frame_file(store.frames.path(run_id))  # a render process's read
    pd.testing.assert_frame_equal(by_path, frame)


def test_a_part_whose_commit_never_came_is_ignored_then_removed(store: RunStore):
    run_id = _live_run(store)
    store.append_points("p", run_id, _batch(0, 10), EMPTY, expect_points=0)
    plan = store.frames.append(run_id, 10, _batch(10, 30))  # written, never committed
    assert len(store.frame("p", run_id)) == 10  # the count does not cover it
    store.append_points("p", run_id, _batch(10, 20), EMPTY, expect_points=10)
    assert not plan.written.exists()
    frame = store.frame("p", run_id)
    assert len(frame) == 30 and (frame["seq"].to_numpy() == np.arange(30)).all()


def test_a_grown_uploaded_run_keeps_its_file_and_reads_the_parts_after_it(store: RunStore):
    frame = make_frame("up", ["loss"] * 50, np.arange(50), np.linspace(2, 1, 50))
    (rec,) = store.add("p", [NewRun("up", frame, EMPTY, format="jsonl")])
    store.append_points("p", rec.id, _batch(50, 10), EMPTY, expect_points=50)
    got = store.frame("p", rec.id)
    assert len(got) == 60 and got["metric"].tolist()[-2:] == ["loss", "lr"]


def test_a_run_stored_before_the_segment_column_grows_with_the_current_schema(store: RunStore):
    frame = make_frame("old", ["loss"] * 50, np.arange(50), np.linspace(2, 1, 50))
    (rec,) = store.add("p", [NewRun("old", frame, EMPTY, format="jsonl")])
    frame.drop(columns="segment").to_parquet(store.frames.path(rec.id), index=False)
    store.append_points("p", rec.id, _batch(50, 10), EMPTY, expect_points=50)
    got = store.frame("p", rec.id)
    assert len(got) == 60 and (got["segment"].to_numpy() == 0).all()


def test_readers_never_see_a_torn_run_while_appends_merge(store: RunStore):
    run_id = _live_run(store)
    stop, seen, errors = threading.Event(), [], []

    def read() -> None:
        while not stop.is_set():
            try:
                record, frame = store.snapshot("p", run_id)
                assert len(frame) == record.points
                assert (frame["seq"].to_numpy() == np.arange(record.points)).all()
                seen.append(record.points)
            except Exception as exc:  # noqa: BLE001 - reported below
                errors.append(exc)

    reader = threading.Thread(target=read)
    reader.start()
    try:
        for i in range(60):
            store.append_points("p", run_id, _batch(i * 20, 20), EMPTY, expect_points=i * 20)
    finally:
        stop.set()
        reader.join()
    assert not errors and seen and seen == sorted(seen)


def test_delete_and_orphan_cleaning_take_the_parts(store: RunStore):
    run_id = _live_run(store)
    store.append_points("p", run_id, _batch(0, 10), EMPTY, expect_points=0)
    assert store.frames.parts_dir(run_id).exists()
    store.delete("p", run_id)
    assert not store.frames.parts_dir(run_id).exists()
    orphan = store.frames.parts_dir("f" * 32)
    orphan.mkdir()
    (orphan / "000000000000-000000000010.parquet").write_bytes(b"")
    kept = _live_run(store)
    store.append_points("p", kept, _batch(0, 10), EMPTY, expect_points=0)
    cut_short = store.frames.parts_dir(kept) / ".000000000010-000000000020.parquet.ab12cd34.tmp"
    cut_short.write_bytes(b"half a part")
    assert store.clean_orphans() == 2 and not orphan.exists() and not cut_short.exists()
    assert len(store.frame("p", kept)) == 10


@pytest.mark.parametrize("n", [0])
def test_an_empty_batch_writes_no_part(store: RunStore, n: int):
    run_id = _live_run(store)
    store.append_points("p", run_id, _batch(0, n), EMPTY, expect_points=0)
    assert list_parts(store.frames.parts_dir(run_id)) == []
    assert store.get("p", run_id).points == 0


def test_the_append_lock_lets_one_holder_in_at_a_time(tmp_path):
    folder = tmp_path / "run.parts"
    order: list[str] = []
    held = threading.Event()

    def other() -> None:
        held.wait()
        with append_lock(folder):
            order.append("other")

    thread = threading.Thread(target=other)
    thread.start()
    with append_lock(folder):
        held.set()
        time.sleep(0.3)  # the other thread is waiting on the lock meanwhile
        order.append("first")
    thread.join()
    assert order == ["first", "other"]
    assert list_parts(folder) == []  # the lock file is not a part


def test_a_render_process_draws_a_grown_run_from_all_its_points(store: RunStore):
    from lossforensics.report.jobs import _load

    run_id = _live_run(store)
    for i in range(3):
        store.append_points("p", run_id, _batch(i * 40, 40), EMPTY, expect_points=i * 40)
    record = store.get("p", run_id)
    frame, found = _load(str(store.frames.path(run_id)), record.diagnosis, run_id, record.points)
    assert len(frame) == record.points == 120 and found.id == run_id
