"""A run written in two formats in one folder (a TensorBoard file and a JSONL/CSV of the same
run) is audited once, in the format ingest reads, the other noted."""

from __future__ import annotations

import io
import json
from pathlib import Path

from lossforensics.audit.audit import AuditOptions, audit_folder
from lossforensics.discover import discover_runs
from rich.console import Console

from tests.app.api import logs
from tests.app.audit.conftest import write_jsonl_run


def _twice(root: Path) -> Path:
    run = root / "exp1"
    logs.write_tfevents(run, tag="train/loss", n=120)
    with open(run / "metrics.jsonl", "w") as fh:
        for s in range(120):
            fh.write(json.dumps({"step": s, "train/loss": 2.0 / (s + 1)}) + "\n")
    write_jsonl_run(root / "exp2", 1e-3, 0)  # a run written once
    return root


def test_discovery_lists_the_run_once_and_notes_the_other_format(tmp_path: Path) -> None:
    found = discover_runs(_twice(tmp_path)).sources
    assert [(s.name, s.format) for s in found] == [("exp1", "tensorboard"), ("exp2", "jsonl")]
    assert found[0].also == (str(tmp_path / "exp1" / "metrics.jsonl"),)
    assert found[1].also == ()


def test_audit_reports_it_once_with_the_other_noted(tmp_path: Path) -> None:
    root = _twice(tmp_path / "sweep")
    out = tmp_path / "audit.json"
    code = audit_folder(
        root,
        AuditOptions(format="json", out=out, jobs=1),
        console=Console(file=io.StringIO()),
        err_console=Console(file=io.StringIO()),
    )
    assert code in (0, 1)
    runs = json.loads(out.read_text())
    assert [r["run"] for r in runs] == ["exp1", "exp2"]
    assert runs[0]["source"]["format"] == "tensorboard"
    assert runs[0]["also"] == [str(root / "exp1" / "metrics.jsonl")]
    html = tmp_path / "audit.html"
    audit_folder(
        root,
        AuditOptions(format="html", out=html, jobs=1),
        console=Console(file=io.StringIO()),
        err_console=Console(file=io.StringIO()),
    )
    assert "also written as metrics.jsonl, not read" in html.read_text()
