"""Discovery (the audit's folder walk) and ingest (load_run's detection) name the same format
for every file: both ask one sniffer, the registered readers' own `sniff` functions."""

from __future__ import annotations

from pathlib import Path

import pytest
from lossforensics.classifiers.errors import InputError
from lossforensics.discover import discover_runs
from lossforensics.ingest.detect import detect_format

REPO = Path(__file__).resolve().parents[2]
FILES = sorted(p for p in (REPO / "sample_runs").rglob("*") if p.is_file())


def _ingest_format(path: Path) -> str | None:
    try:
        return detect_format(path)
    except InputError:
        return None


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(REPO / "sample_runs")))
def test_discovery_and_ingest_agree_on_each_sample_file(path: Path):
    found = discover_runs(path).sources
    assert [s.format for s in found] == [f for f in [_ingest_format(path)] if f is not None]


def test_the_samples_hold_files_of_several_formats():
    formats = {_ingest_format(p) for p in FILES} - {None}
    assert len(formats) >= 5
