"""RunStore on SQLite and PostgreSQL: scoping, filtering, paging, atomicity, re-diagnosis."""

from __future__ import annotations

import pandas as pd
import pytest
import sqlalchemy as sa
from lossforensics.classifiers.diagnose import diagnose_all
from lossforensics.classifiers.diagnosis import Diagnosis
from lossforensics.classifiers.errors import NotFoundError
from lossforensics.store import RunStore
from lossforensics.store.runs import OriginTakenError, StaleSeriesError
from lossforensics.store.tables import runs

from tests.app.store.conftest import frame_of, new_run


def test_add_get_frame_round_trip(store: RunStore):
    (rec,) = store.add("p", [new_run("alpha")])
    got = store.get("p", rec.id)
    assert got == rec
    assert got.diagnosis_obj().id == rec.id
    frame = store.frame("p", rec.id)
    pd.testing.assert_frame_equal(frame, new_run("alpha").frame, check_dtype=False)
    assert str(frame["role"].dtype) == "category" and frame["step"].dtype == "int64"


def test_other_project_sees_nothing(store: RunStore):
    (rec,) = store.add("a", [new_run()])
    with pytest.raises(NotFoundError):
        store.get("b", rec.id)
    with pytest.raises(NotFoundError):
        store.frame("b", rec.id)
    with pytest.raises(NotFoundError):
        store.delete("b", rec.id)
    assert store.list("b").total == 0 and store.list("a").total == 1


def test_list_filters_by_label_newest_first_and_pages(store: RunStore):
    recs = [store.add("p", [new_run(f"r{i}", overfit=i % 2 == 0)])[0] for i in range(5)]
    over = store.list("p", label="overfit")
    assert [r.id for r in over.items] == [recs[4].id, recs[2].id, recs[0].id]
    # a listing carries each run's diagnosis: the runs table shows its findings and last step
    assert over.total == 3 and over.items[0].diagnosis == recs[4].diagnosis
    healthy = store.list("p", label="healthy")
    assert {r.id for r in healthy.items} == {recs[1].id, recs[3].id}
    page = store.list("p", limit=2, offset=2)
    assert page.total == 5 and [r.id for r in page.items] == [recs[2].id, recs[1].id]
    assert [r.id for r in store.list("p", name="r3").items] == [recs[3].id]


def test_several_runs_in_one_add_share_one_transaction(store: RunStore):
    bad = new_run("b")
    bad = type(bad)(**{**bad.__dict__, "name": None})  # NOT NULL violation in the 2nd row
    with pytest.raises(sa.exc.IntegrityError):
        store.add("p", [new_run("a"), bad])
    assert store.list("p").total == 0
    assert store.frames.ids() == set()  # the first run's written frame was removed


def test_delete_removes_row_labels_and_file(store: RunStore):
    (rec,) = store.add("p", [new_run(overfit=True)])
    store.delete("p", rec.id)
    assert store.list("p", label="overfit").total == 0
    assert not store.frames.path(rec.id).exists()


def test_replace_diagnosis_updates_verdict_and_labels(store: RunStore):
    (rec,) = store.add("p", [new_run(overfit=True)])
    healthy = Diagnosis(run=rec.name, verdict="healthy")
    new = store.replace_diagnosis("p", rec.id, healthy)
    assert new.verdict == "healthy" and new.labels == ["healthy"]
    assert new.diagnosed_at > rec.diagnosed_at
    assert store.get("p", rec.id) == new
    assert store.list("p", label="overfit").total == 0


def test_append_points_updates_points_frame_and_diagnosis_over_the_expected_points(
    store: RunStore,
):
    (rec,) = store.add("p", [new_run()])
    longer = frame_of(rec.name, overfit=True, n=400)
    (diag,) = diagnose_all(longer)
    more = longer.iloc[rec.points :].reset_index(drop=True)  # rows 600.. of the longer run
    with pytest.raises(StaleSeriesError):  # another writer grew it: nothing written
        store.append_points("p", rec.id, more, diag, expect_points=rec.points - 1)
    assert store.get("p", rec.id) == rec and len(store.frame("p", rec.id)) == rec.points
    grown = store.append_points("p", rec.id, more, diag, expect_points=rec.points)
    assert grown.points == 800 and grown.summary()["last_step"] == 399
    assert grown.labels == ["overfit"] and store.get("p", rec.id) == grown
    assert len(store.frame("p", rec.id)) == 800
    with pytest.raises(NotFoundError):
        store.append_points("other", rec.id, more, diag, expect_points=800)


def test_origin_makes_loading_idempotent(store: RunStore):
    store.add("p", [new_run(origin="sample:x")])
    assert store.has_origin("p", "sample:x") and not store.has_origin("q", "sample:x")
    with pytest.raises(OriginTakenError):  # nothing stored twice; the caller looks it up
        store.add("p", [new_run(origin="sample:x")])
    assert store.list("p").total == 1


def test_orphan_frames_are_cleaned_at_start(store: RunStore):
    (rec,) = store.add("p", [new_run()])
    orphan = store.frames.write("f" * 32, new_run().frame)  # a write whose commit never came
    tmp = store.frames.root / ".x.tmp"
    tmp.write_bytes(b"half")
    assert store.clean_orphans() == 2
    assert not orphan.exists() and not tmp.exists() and store.frames.path(rec.id).exists()


def test_orphan_grace_keeps_fresh_files(store: RunStore):
    orphan = store.frames.write("e" * 32, new_run().frame)
    assert store.clean_orphans(grace_seconds=3600) == 0 and orphan.exists()


def test_runs_survive_reopening(tmp_path):
    s = RunStore.open(tmp_path / "d")
    (rec,) = s.add("p", [new_run()])
    s.close()
    s2 = RunStore.open(tmp_path / "d")
    assert s2.get("p", rec.id) == rec
    with s2.engine.connect() as conn:
        assert conn.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
        assert conn.execute(sa.select(sa.func.count()).select_from(runs)).scalar() == 1
    s2.close()
