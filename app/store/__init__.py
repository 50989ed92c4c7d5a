"""Stored runs: metadata and diagnoses in SQL (SQLite by default, PostgreSQL by URL), each run's
frame in one Parquet file under the data dir. See runs.py for the atomicity rules."""

from lossforensics.store.records import NewRun, RunPage, RunRecord
from lossforensics.store.runs import OriginTakenError, RunStore

__all__ = ["NewRun", "OriginTakenError", "RunPage", "RunRecord", "RunStore"]
