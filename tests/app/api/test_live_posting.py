"""`Monitor(post=URL)` and `watch --post URL` against a real service: every point arrives in the
live run of the same name, and the service's diagnosis of it matches the local one."""

from __future__ import annotations

import io
import json
import math
from pathlib import Path

from lossforensics.classifiers.diagnosis import Diagnosis
from lossforensics.client import Client
from lossforensics.commands.watch import Watch, poster
from lossforensics.ingest.follow import Follower
from lossforensics.integrations import Monitor
from rich.console import Console

from tests.app.api._server import Server


def _loss(step: int) -> float:
    return 2 * math.exp(-step / 40) + 0.3 + 0.02 * math.sin(step)


def _stored(c: Client, name: str) -> tuple[str, Diagnosis]:
    (run_id,) = c.runs(name=name)["id"].tolist()
    return run_id, c.diagnosis(run_id)


def _same(local: Diagnosis | None, remote: Diagnosis) -> None:
    assert local is not None
    assert remote.verdict == local.verdict
    assert [(f.label, f.span) for f in remote.findings] == [
        (f.label, f.span) for f in local.findings
    ]


def test_monitor_posts_its_points_to_a_live_run(server: Server) -> None:
    monitor = Monitor("posted-monitor", post=server.url, warn=False)
    for step in range(300):
        loss = _loss(step) if step < 290 else float("nan")
        monitor.log(step, loss=loss, lr=1e-3)
    local = monitor.close()
    with Client(server.url) as c:
        run_id, remote = _stored(c, "posted-monitor")
        series = c.series(run_id)
    assert len(series) == monitor.live.points == 600
    assert int(series["value"].isna().sum()) == 10  # the NaN losses arrive as evidence
    assert local is not None and "nan" in local.labels
    _same(local, remote)


def _lines(start: int, stop: int) -> str:
    return "".join(
        json.dumps({"step": s, "loss": _loss(s), "lr": 1e-3}) + "\n" for s in range(start, stop)
    )


def test_watch_posts_what_grew_to_a_live_run(server: Server, tmp_path: Path) -> None:
    path = tmp_path / "watched-run.jsonl"
    path.write_text(_lines(0, 100))
    w = Watch(Follower(path), console=Console(file=io.StringIO()), post=poster(server.url))
    w.tick()
    for start in (100, 150):
        with path.open("a") as fh:
            fh.write(_lines(start, start + 50))
        w.tick()
    (name,) = w.runs
    live = w.runs[name]
    with Client(server.url) as c:
        run_id, remote = _stored(c, name)
        series = c.series(run_id)
    assert len(series) == live.points == 400
    assert sorted(series.loc[series["metric"] == "loss", "step"]) == list(range(200))
    _same(live.diagnosis, remote)
