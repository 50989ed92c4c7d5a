"""RunStore: the runs of every project, metadata in SQL, frames in Parquet, written atomically.

A write is: every frame to its final name (temp + fsync + rename), then one transaction inserting
every row. A crash before the commit leaves orphan files and no rows (cleaned at the next start);
after it, the whole run. A live run grows by appended parts (`append_points`): the part first,
then the transaction that raises the run's committed point count over it. A delete removes the
row first, then the files. Every read is scoped to a project: another project's run is simply
not found.
"""

from __future__ import annotations

import builtins
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import pandas as pd
import sqlalchemy as sa
from lossforensics.classifiers.diagnosis import Diagnosis
from lossforensics.classifiers.errors import NotFoundError
from lossforensics.store.engine import WRITE, make_engine
from lossforensics.store.frames import FrameFiles
from lossforensics.store.parts import PartsMovedError
from lossforensics.store.parts import remove as remove_parts
from lossforensics.store.records import NewRun, RunPage, RunRecord, labels_of
from lossforensics.store.tables import metadata, run_labels, runs

_READ_TRIES = 8  # reads of a grown run that parts moved under (each retry follows a commit)
_SUMMARY_COLS = list(runs.c)  # the diagnosis body too: a listing shows findings and last step


class OriginTakenError(Exception):
    """A run of this origin was stored in the project by a concurrent writer (the unique
    (project, origin) key): the caller looks it up with `find_origin`."""


class StaleSeriesError(Exception):
    """The run's stored series no longer has the points the caller grew it from (another
    process appended first): nothing was written; read the run again and retry."""


class RunStore:
    """Runs scoped by project. Thread-safe: every call takes its own pooled connection."""

    def __init__(
        self, engine: sa.Engine, frames: FrameFiles, *, clock: Callable[[], float] = time.time
    ) -> None:
        self.engine = engine
        self.frames = frames
        self.clock = clock
        metadata.create_all(engine)

    @classmethod
    def open(cls, data_dir: Path, database_url: str | None = None, **kw: Any) -> RunStore:
        data_dir = Path(data_dir)
        data_dir.mkdir(parents=True, exist_ok=True)
        url = database_url or f"sqlite:///{(data_dir / 'lossforensics.db').resolve()}"
        return cls(make_engine(url), FrameFiles(data_dir / "frames"), **kw)

    def close(self) -> None:
        self.engine.dispose()

    def ping(self) -> None:
        with self.engine.connect() as conn:
            conn.execute(sa.text("SELECT 1"))

    # -- writes -------------------------------------------------------------------------------

    def add(self, project: str, new_runs: Sequence[NewRun]) -> list[RunRecord]:
        """Store every run or none of them; OriginTakenError (nothing stored) when another
        writer stored a run of the same origin in this project first."""
        now = self.clock()
        records, written = [], []
        try:
            for new in new_runs:
                run_id = uuid.uuid4().hex
                self.frames.write(run_id, new.frame)
                written.append(run_id)
                records.append(self._record(run_id, project, new, now))
            with self.engine.connect().execution_options(**WRITE) as conn, conn.begin():
                for rec in records:
                    conn.execute(runs.insert().values(self._row(rec)))
                    conn.execute(
                        run_labels.insert(),
                        [{"run_id": rec.id, "label": lab} for lab in rec.labels],
                    )
        except sa.exc.IntegrityError as exc:
            for run_id in written:
                self.frames.delete(run_id)
            if any(rec.origin for rec in records):  # the only unique key a new row can repeat
                raise OriginTakenError(project) from exc
            raise
        except BaseException:
            for run_id in written:
                self.frames.delete(run_id)
            raise
        return records

    def replace_diagnosis(self, project: str, run_id: str, diagnosis: Diagnosis) -> RunRecord:
        """Swap a stored run's diagnosis (after the classifiers changed), in one transaction."""
        record = self.get(project, run_id)
        diagnosis.id = None
        body = diagnosis.to_dict()
        labels = labels_of(diagnosis)
        now = self.clock()
        with self.engine.connect().execution_options(**WRITE) as conn, conn.begin():
            res = conn.execute(
                runs.update()
                .where(runs.c.id == run_id, runs.c.project == project)
                .values(diagnosis=body, verdict=diagnosis.verdict, diagnosed_at=now)
            )
            if res.rowcount == 0:
                raise NotFoundError(f"no run {run_id!r}")
            conn.execute(run_labels.delete().where(run_labels.c.run_id == run_id))
            conn.execute(run_labels.insert(), [{"run_id": run_id, "label": lab} for lab in labels])
        return RunRecord(
            **{
                **record.__dict__,
                "diagnosis": body,
                "verdict": diagnosis.verdict,
                "labels": labels,
                "diagnosed_at": now,
            }
        )

    def append_points(
        self,
        project: str,
        run_id: str,
        batch: pd.DataFrame,
        diagnosis: Diagnosis,
        *,
        expect_points: int,
    ) -> RunRecord:
        """Append `batch` to a grown run's series (one Parquet part, app/store/parts.py: the cost
        follows the batch, not the run) and store its new diagnosis; the record's `points` (and
        so its last step) follow. One write transaction that holds the run's row (SQLite: the
        database's write lock; PostgreSQL: FOR UPDATE), so appends from several processes are
        serialised: StaleSeriesError, nothing written, when the stored run no longer has
        `expect_points` points. The part is on disk before the commit; until the commit the
        count does not cover it, so readers do not see it, and a part whose commit never came is
        removed by the next append."""
        diagnosis.id = None
        body = diagnosis.to_dict()
        labels = labels_of(diagnosis)
        now = self.clock()
        where = (runs.c.id == run_id, runs.c.project == project)
        with self.engine.connect().execution_options(**WRITE) as conn, conn.begin():
            row = conn.execute(sa.select(runs).where(*where).with_for_update()).mappings().first()
            if row is None:
                raise NotFoundError(f"no run {run_id!r}")
            if int(row["points"]) != expect_points:
                raise StaleSeriesError(run_id)
            try:
                plan = self.frames.append(run_id, expect_points, batch) if len(batch) else None
            except PartsMovedError:  # its parts are not (yet) visible here: read again
                raise StaleSeriesError(run_id) from None
            values = {
                "diagnosis": body,
                "verdict": diagnosis.verdict,
                "diagnosed_at": now,
                "points": expect_points + len(batch),
            }
            conn.execute(runs.update().where(*where).values(**values))
            conn.execute(run_labels.delete().where(run_labels.c.run_id == run_id))
            if labels:
                conn.execute(
                    run_labels.insert(), [{"run_id": run_id, "label": lab} for lab in labels]
                )
        if plan is not None:
            remove_parts(plan.leftovers)  # merged into the new part, or never committed
        return self._from_row({**row, **values}, labels)

    def delete(self, project: str, run_id: str) -> None:
        with self.engine.connect().execution_options(**WRITE) as conn, conn.begin():
            conn.execute(
                run_labels.delete().where(
                    run_labels.c.run_id.in_(
                        sa.select(runs.c.id).where(runs.c.id == run_id, runs.c.project == project)
                    )
                )
            )
            res = conn.execute(runs.delete().where(runs.c.id == run_id, runs.c.project == project))
            if res.rowcount == 0:
                raise NotFoundError(f"no run {run_id!r}")
        self.frames.delete(run_id)

    def clean_orphans(self, *, grace_seconds: float = 0.0) -> int:
        """Remove frame files whose transaction never committed; returns how many."""
        with self.engine.connect() as conn:
            known = set(conn.execute(sa.select(runs.c.id)).scalars())
        return self.frames.clean_orphans(known, grace_seconds=grace_seconds)

    # -- reads --------------------------------------------------------------------------------

    def get(self, project: str, run_id: str) -> RunRecord:
        with self.engine.connect() as conn:
            row = (
                conn.execute(sa.select(runs).where(runs.c.id == run_id, runs.c.project == project))
                .mappings()
                .first()
            )
            if row is None:
                raise NotFoundError(f"no run {run_id!r}")
            return self._from_row(row, self._labels(conn, [run_id])[run_id])

    def frame(self, project: str, run_id: str) -> pd.DataFrame:
        return self.snapshot(project, run_id)[1]

    def snapshot(self, project: str, run_id: str) -> tuple[RunRecord, pd.DataFrame]:
        """The run's record and its points as of that record: a grown run's parts joined up to
        its committed count, read again when a merge or an append moved them meanwhile."""
        for attempt in range(_READ_TRIES):
            record = self.get(project, run_id)
            try:
                return record, self.frames.read(run_id, record.points)
            except PartsMovedError:
                if attempt == _READ_TRIES - 1:
                    raise
        raise AssertionError("unreachable")

    def list(
        self,
        project: str,
        *,
        label: str | None = None,
        name: str | None = None,
        limit: int = 50,
        offset: int = 0,
    ) -> RunPage:
        """Newest first; a listed record's `summary()` leaves the diagnosis body out."""
        cond = [runs.c.project == project]
        if label:
            cond.append(
                runs.c.id.in_(sa.select(run_labels.c.run_id).where(run_labels.c.label == label))
            )
        if name:
            cond.append(runs.c.name == name)
        with self.engine.connect() as conn:
            total = conn.execute(
                sa.select(sa.func.count()).select_from(runs).where(*cond)
            ).scalar_one()
            rows = (
                conn.execute(
                    sa.select(*_SUMMARY_COLS)
                    .where(*cond)
                    .order_by(runs.c.created_at.desc(), runs.c.id.desc())
                    .limit(limit)
                    .offset(offset)
                )
                .mappings()
                .all()
            )
            labels = self._labels(conn, [r["id"] for r in rows])
        items = [self._from_row(r, labels[r["id"]]) for r in rows]
        return RunPage(items=items, total=int(total), limit=limit, offset=offset)

    def find_origin(self, project: str, origin: str) -> RunRecord | None:
        """The run stored from this origin (a sample's name, an upload's content hash)."""
        with self.engine.connect() as conn:
            run_id = conn.execute(
                sa.select(runs.c.id).where(runs.c.project == project, runs.c.origin == origin)
            ).scalar()
        return None if run_id is None else self.get(project, run_id)

    def has_origin(self, project: str, origin: str) -> bool:
        with self.engine.connect() as conn:
            return (
                conn.execute(
                    sa.select(runs.c.id).where(runs.c.project == project, runs.c.origin == origin)
                ).first()
                is not None
            )

    def iter_ids(self) -> Iterator[tuple[str, str]]:
        """(project, run id) of every stored run, oldest first."""
        with self.engine.connect() as conn:
            rows = conn.execute(
                sa.select(runs.c.project, runs.c.id).order_by(runs.c.created_at, runs.c.id)
            ).all()
        yield from ((p, i) for p, i in rows)

    # -- rows ---------------------------------------------------------------------------------

    @staticmethod
    def _labels(conn: sa.Connection, ids: builtins.list[str]) -> dict[str, builtins.list[str]]:
        out: dict[str, builtins.list[str]] = {i: [] for i in ids}
        if ids:
            for run_id, label in conn.execute(
                sa.select(run_labels.c.run_id, run_labels.c.label)
                .where(run_labels.c.run_id.in_(ids))
                .order_by(run_labels.c.label)
            ):
                out[run_id].append(label)
        return out

    @staticmethod
    def _record(run_id: str, project: str, new: NewRun, now: float) -> RunRecord:
        diagnosis = Diagnosis.from_dict(new.diagnosis.to_dict())
        diagnosis.id = None
        return RunRecord(
            id=run_id,
            project=project,
            name=new.name,
            created_at=now,
            diagnosed_at=now,
            format=new.format,
            files=list(new.files),
            points=len(new.frame),
            verdict=diagnosis.verdict,
            labels=labels_of(diagnosis),
            diagnosis=diagnosis.to_dict(),
            origin=new.origin,
        )

    @staticmethod
    def _row(rec: RunRecord) -> dict[str, Any]:
        row = dict(rec.__dict__)
        row.pop("labels")
        return row

    @staticmethod
    def _from_row(row: Any, labels: builtins.list[str]) -> RunRecord:
        return RunRecord(
            id=row["id"],
            project=row["project"],
            name=row["name"],
            created_at=float(row["created_at"]),
            diagnosed_at=float(row["diagnosed_at"]),
            format=row["format"],
            files=list(row["files"] or []),
            points=int(row["points"]),
            verdict=row["verdict"],
            labels=labels,
            diagnosis=dict(row.get("diagnosis") or {}),
            origin=row["origin"],
        )
