"""audit(isolate=...): each source read in a limited worker; a hostile file fails alone with
the limit named, the rest are audited."""

from __future__ import annotations

from lossforensics.audit.audit import audit
from lossforensics.isolate import WorkerLimits

from tests.app.api import hostile_inputs as h

MiB = 1024 * 1024


def test_a_file_past_the_memory_limit_fails_alone_naming_it(tmp_path):
    root = tmp_path / "runs"
    for name in ("a", "b"):
        (root / name).mkdir(parents=True)
        h.jsonl_run(root / name / "metrics.jsonl", 300)
    (root / "huge").mkdir()
    h.jsonl_run(root / "huge" / "metrics.jsonl", 2_500_000)  # ~60 MB: needs far more than 320 MiB
    limits = WorkerLimits(
        memory_bytes=320 * MiB, cpu_seconds=300, wall_seconds=300, output_bytes=64 * MiB
    )
    summary = audit(root, jobs=2, isolate=limits)
    by_name = {r.name: r for r in summary.runs}
    assert set(by_name) == {"a", "b", "huge"}, by_name
    failed = by_name["huge"]
    assert failed.error is not None and failed.error["code"] == "too_large", failed.error
    assert "memory limit" in failed.error["message"]
    assert all(by_name[n].error is None and by_name[n].diagnosis for n in ("a", "b"))


def test_small_runs_fit_a_limit_just_above_what_they_keep_resident(tmp_path):
    """A worker settles at ~200 MiB resident after its first task (readers, classifiers), but
    that task maps ~170 MiB of address space for ~90 MiB resident: the address-space cap allows
    for it, so a 280 MiB limit audits small runs rather than refusing them."""
    for name in ("a", "b", "c"):
        (tmp_path / name).mkdir()
        h.jsonl_run(tmp_path / name / "metrics.jsonl", 300)
    limits = WorkerLimits(
        memory_bytes=280 * MiB, cpu_seconds=300, wall_seconds=300, output_bytes=64 * MiB
    )
    summary = audit(tmp_path, jobs=2, isolate=limits)
    assert [r.error for r in summary.runs] == [None, None, None]
    assert all(r.diagnosis is not None for r in summary.runs)
