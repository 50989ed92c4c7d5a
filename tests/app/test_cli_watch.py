"""`lossforensics watch`: keeps running on a healthy growing log, exits 1 within seconds of the
first NaN lines another process appends; each finding printed once; plain lines off a TTY."""

from __future__ import annotations

import io
import json
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
from lossforensics.commands.watch import Watch
from lossforensics.ingest.follow import Follower
from rich.console import Console


def _lines(start: int, stop: int, nan_from: int | None = None) -> str:
    out = []
    for s in range(start, stop):
        bad = nan_from is not None and s >= nan_from
        loss = float("nan") if bad else 2 * np.exp(-s / 60) + 0.3 + 0.01 * np.sin(s)
        out.append(json.dumps({"step": s, "loss": loss, "lr": 1e-3}))
    return "\n".join(out) + "\n"


def _append(path: Path, text: str) -> None:
    with path.open("a") as fh:
        fh.write(text)


def test_watch_loop_prints_each_finding_once_and_stops_on_fail_on(tmp_path: Path) -> None:
    path = tmp_path / "train.jsonl"
    path.write_text(_lines(0, 100))
    out = io.StringIO()
    console = Console(file=out, force_terminal=False, soft_wrap=True)
    w = Watch(Follower(path), console=console, fail_on=frozenset({"nan"}))
    grown = iter([_lines(100, 150), _lines(150, 200), _lines(200, 210, nan_from=200)] + [""] * 5)
    ticks = []

    def sleep(_: float) -> None:
        ticks.append(len(out.getvalue()))
        _append(path, next(grown))

    assert w.run(interval=0.0, sleep=sleep) == 1
    assert len(ticks) == 3  # healthy ticks went by silently; the NaN stopped it at once
    text = out.getvalue()
    assert ticks[-1] == 0, text
    assert text.count(" nan (0.") == 1 and "first check:" in text and "stopping:" in text


def test_watch_exits_0_after_idle_exit_without_points(tmp_path: Path) -> None:
    path = tmp_path / "train.jsonl"
    path.write_text(_lines(0, 50))
    now = [0.0]
    w = Watch(Follower(path), console=Console(file=io.StringIO()), clock=lambda: now[0])

    def sleep(dt: float) -> None:
        now[0] += 1.0

    assert w.run(interval=1.0, idle_exit=5.0, sleep=sleep) == 0
    assert [r.points for r in w.runs.values()] == [100]


def test_watch_command_on_a_file_another_process_appends_to(tmp_path: Path) -> None:
    path = tmp_path / "train.jsonl"
    path.write_text(_lines(0, 50))
    writer = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys, time\n"
            "from tests.app.test_cli_watch import _append, _lines\n"
            "p = sys.argv[1]\n"
            "for i in range(50, 150, 10):\n"
            "    _append(__import__('pathlib').Path(p), _lines(i, i + 10)); time.sleep(0.2)\n",
            str(path),
        ],
        cwd=Path(__file__).resolve().parents[2],
    )
    watch = subprocess.Popen(
        [sys.executable, "-m", "lossforensics.cli", "watch", str(path), "--fail-on", "nan"]
        + ["--interval", "0.2"],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        assert writer.wait(timeout=60) == 0
        time.sleep(1.0)
        assert watch.poll() is None, "watch stopped on a healthy log"
        _append(path, _lines(150, 155, nan_from=150))
        nan_at = time.monotonic()
        out, _ = watch.communicate(timeout=30)
        assert watch.returncode == 1, out
        assert time.monotonic() - nan_at < 15
        assert " nan (" in out and "stopping:" in out
    finally:
        for proc in (watch, writer):
            if proc.poll() is None:
                proc.kill()


def _flat_lines(start: int, stop: int) -> str:
    """A loss that fell in its first 30 steps and then stayed flat: a plateau."""
    s = np.arange(start, stop)
    loss = 2 * np.exp(-s / 10) + 0.5 + 0.01 * np.sin(s)
    return "".join(
        json.dumps({"step": int(i), "loss": float(v)}) + "\n" for i, v in zip(s, loss, strict=True)
    )


def test_watch_says_a_course_label_once_it_persists_or_at_the_end(tmp_path: Path) -> None:
    path = tmp_path / "train.jsonl"
    path.write_text(_flat_lines(0, 400))
    out = io.StringIO()
    now = [0.0]
    console = Console(file=out, force_terminal=False, soft_wrap=True)
    w = Watch(Follower(path), console=console, fail_on=frozenset({"plateau"}), clock=lambda: now[0])
    w.tick()
    (live,) = w.runs.values()
    assert live.diagnosis is not None
    assert "plateau" in live.diagnosis.labels and out.getvalue() == ""  # found, not said yet
    _append(path, _flat_lines(400, 450))
    w.tick()
    assert out.getvalue() == "" and not w.failed  # grown by 12%: still not
    _append(path, _flat_lines(450, 500))
    w.tick()  # grown by 25% while it held: said, once
    assert out.getvalue().count(" plateau (0.") == 1 and w.failed

    ended = tmp_path / "ended.jsonl"
    ended.write_text(_flat_lines(0, 400))
    out = io.StringIO()
    console = Console(file=out, force_terminal=False, soft_wrap=True)
    w = Watch(
        Follower(ended), console=console, fail_on=frozenset({"plateau"}), clock=lambda: now[0]
    )

    def sleep(_: float) -> None:
        now[0] += 1.0

    assert w.run(interval=1.0, idle_exit=3.0, sleep=sleep) == 1  # the end says what it holds
    assert out.getvalue().count(" plateau (0.") == 1 and "stopping:" in out.getvalue()
