"""The HTML report (self-contained, sortable, capped plots) and the pluggable executors: a
process pool, a Dask cluster, in-process; the progress bar on a terminal."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import pytest
from lossforensics.audit import executor
from lossforensics.audit.audit import AuditOptions, audit_folder
from lossforensics.audit.executor import (
    MAX_BATCH,
    TASKS_PER_JOB,
    batch_size,
    open_executor,
    run_audit,
)
from lossforensics.discover import discover_runs
from rich.console import Console


def _audit(folder: Path, **kw) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = audit_folder(
        folder,
        AuditOptions(**kw),
        console=Console(file=out, width=200),
        err_console=Console(file=err, width=200),
    )
    return code, out.getvalue(), err.getvalue()


def test_html_report_is_self_contained_with_capped_plots(sweep: Path, tmp_path: Path) -> None:
    target = tmp_path / "audit.html"
    code, _, _ = _audit(sweep, format="html", out=target, max_plots=4, jobs=2)
    assert code == 0
    page = target.read_text()
    assert page.startswith("<!doctype html>")
    assert len(re.findall(r'src="data:image/png;base64,', page)) == 4  # the 4 most severe
    assert not re.search(r'(src|href)="(https?:)?//', page)  # nothing fetched from outside
    assert 'id="runs"' in page and "addEventListener" in page  # the sortable table
    assert "all runs with lr &gt;= 0.01 exploded (6/6); none below (0/12)" in page
    assert re.search(r"<td>nan</td><td class=\"num\">6</td>", page)  # label counts
    assert "Dominant causes" in page
    # the plotted runs are the most severe ones, in table order
    rows = re.findall(r"<tr>\s*<td>([^<]+)<div", page)
    assert rows[0].startswith("sweep/lr-0.0")
    first_img = page.index("data:image/png")
    assert page.index(rows[0]) < first_img < page.index(rows[4])


def test_html_without_plots(sweep: Path) -> None:
    code, out, _ = _audit(sweep, format="html", max_plots=0, jobs=1)
    assert code == 0 and "data:image/png" not in out and "<table" in out


def test_pool_and_inline_agree(sweep: Path) -> None:
    _, serial, _ = _audit(sweep, format="json", jobs=1)
    _, pooled, _ = _audit(sweep, format="json", jobs=2)
    assert json.loads(serial) == json.loads(pooled)


def test_pool_batches_sources_and_agrees_with_inline(sweep: Path, monkeypatch) -> None:
    assert batch_size(1000, 2) == MAX_BATCH  # a big folder: full batches
    assert batch_size(100, 2) == 100 // (TASKS_PER_JOB * 2)  # still TASKS_PER_JOB tasks a worker
    assert batch_size(3, 2) == 1
    sources = discover_runs(sweep).sources
    with open_executor(1) as ex:
        inline = [r.to_dict() for r in run_audit(sources, ex)]
    monkeypatch.setattr(executor, "batch_size", lambda sources, jobs: 4)
    with open_executor(2) as ex:
        pooled = [r.to_dict() for r in run_audit(sources, ex)]
    assert pooled == inline


@pytest.mark.slow
def test_dask_cluster_runs_the_same_audit(sweep: Path) -> None:
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(
        n_workers=1, threads_per_worker=2, processes=False, dashboard_address=None
    ) as cluster:
        code, out, _ = _audit(sweep, format="json", dask=cluster.scheduler_address)
    _, serial, _ = _audit(sweep, format="json", jobs=1)
    assert code == 0
    assert json.loads(out) == json.loads(serial)


def test_unreachable_dask_scheduler_is_a_typed_error(sweep: Path) -> None:
    pytest.importorskip("distributed")
    from lossforensics.classifiers.errors import InputError

    with (
        pytest.raises(InputError, match="Dask scheduler"),
        open_executor(dask="tcp://127.0.0.1:9", dask_timeout=1),
    ):
        pass


def test_progress_bar_on_a_terminal(sweep: Path) -> None:
    buf = io.StringIO()
    console = Console(file=buf, force_terminal=True, width=100)
    sources = discover_runs(sweep).sources
    with open_executor(1) as ex:
        runs = run_audit(sources, ex, console=console)
    assert len(runs) == 19
    assert "auditing 19 sources (19 runs so far)" in buf.getvalue() and "100%" in buf.getvalue()


def test_progress_counts_the_runs_a_source_holds(tmp_path: Path) -> None:
    # one W&B export holding three runs: one source, three runs audited
    rows = ['"Step","a - train/loss","b - train/loss","c - train/loss"']
    rows += [f'"{s}","{2.0 / (1 + s)}","{2.1 / (1 + s)}","{2.2 / (1 + s)}"' for s in range(40)]
    (tmp_path / "export").mkdir()
    (tmp_path / "export" / "wandb_export.csv").write_text("\n".join(rows) + "\n")
    buf = io.StringIO()
    console = Console(file=buf, force_terminal=False, width=100)
    with open_executor(1) as ex:
        runs = run_audit(discover_runs(tmp_path).sources, ex, console=console)
    assert len(runs) == 3
    assert "audited 1/1 sources (3 runs)" in buf.getvalue()
