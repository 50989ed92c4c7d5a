"""Issue #14's attacks against a real `lossforensics serve`: status, time and peak memory of the
server's process tree (parsing workers included), as one table; then the cost of isolation on a
10k-point upload (two servers, isolate on and off, started together and sent the same upload in
turn, so both see the same machine load; medians), and a reader worker's start-up (what it
imports at start against also importing the classifiers, as it once did).

    PYTHONPATH=. .venv/bin/python benchmarks/hostile.py [--repeats 15] [--json out.json]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks import figures  # noqa: E402
from tests.app.api import hostile_inputs as h  # noqa: E402
from tests.app.api._server import Server  # noqa: E402
from tests.app.api.test_hostile import ENV, PeakMemory  # noqa: E402


def _post(c: httpx.Client, paths: list[Path], url: str = "/v1/runs", **kw) -> httpx.Response:
    files = [("file", (kw.pop("name", None) or p.name, p.read_bytes())) for p in paths]
    return c.post(url, files=files, **kw)


def attacks(tmp: Path, srv: Server) -> list[tuple[str, Callable]]:
    wide = h.wide_csv(tmp / "wide.csv")
    parts = h.many_archives(tmp / "parts", count=10, member_bytes=500_000)
    export = h.wandb_export(tmp / "wandb_export.csv")
    small = h.jsonl_run(tmp / "small.jsonl", 500)
    bomb = h.npz_bomb(tmp / "history.npz")
    evil = {"origin": "http://evil.example"}
    return [
        ("recursive-VIEW mlflow.db", lambda c: _post(c, [h.recursive_view_db(tmp / "mlflow.db")])),
        ("1000-column CSV, 20k rows", lambda c: _post(c, [wide])),
        ("alias-bomb meta.yaml", lambda c: _post(c, [h.alias_bomb_meta_yaml(tmp / "m.zip")])),
        ("10 archives over the budget", lambda c: _post(c, parts)),
        (".npz of 400 MB zeros in 400 KB", lambda c: _post(c, [bomb])),
        ("W&B export, 700 runs", lambda c: _post(c, [export], url="/v1/diagnose")),
        ("foreign Host", lambda c: c.get("/v1/runs", headers={"host": "rebind.example"})),
        ("cross-site POST", lambda c: _post(c, [small], headers=evil)),
        ("file name of 406 bytes", lambda c: _post(c, [small], name="é" * 200 + ".jsonl")),
    ]


def run_table(tmp: Path) -> None:
    srv = Server(tmp / "data", env=ENV).start(timeout=180)
    try:
        with httpx.Client(base_url=srv.url, timeout=600) as c:
            _post(c, [h.jsonl_run(tmp / "warm.jsonl", 100)])  # workers warm
            print(f"{'attack':32} {'status':>6} {'seconds':>8} {'peak MiB':>9}  detail")
            for name, fn in attacks(tmp, srv):
                _one_attack(srv, c, name, fn)
    finally:
        srv.stop()
        log = srv.output().splitlines()
        errors = [i for i, ln in enumerate(log) if "Error" in ln or "error" in ln]
        if errors:  # the whole of the first traceback, and the last lines that name an error
            print("server log:", *log[max(0, errors[0] - 30) : errors[0] + 5], sep="\n  ")
            print("  ...", *(log[i] for i in errors[-8:]), sep="\n  ")


def _one_attack(srv: Server, c: httpx.Client, name: str, fn: Callable) -> None:
    start = time.monotonic()
    with PeakMemory(srv.proc.pid) as mem:
        try:
            resp: httpx.Response | None = fn(c)
        except httpx.HTTPError as exc:  # no answer at all: the table says so
            resp, detail = None, f"no answer: {type(exc).__name__}: {exc}"
    took = time.monotonic() - start
    if resp is not None:
        detail = resp.json().get("detail", "") if resp.status_code >= 400 else ""
        if resp.status_code < 400 and "diagnoses" in resp.text:
            detail = f"{len(resp.json()['diagnoses'])} runs read"
    try:
        health: int | str = c.get("/healthz").status_code
    except httpx.HTTPError as exc:
        health = type(exc).__name__
    figures.record(figures.Figure("hostile", f"{name}: peak tree memory", mem.peak / 2**20, "MiB"))
    figures.record(figures.Figure("hostile", f"{name}: answer", took, "s"))
    status = "-" if resp is None else resp.status_code
    print(
        f"{name:32} {status:>6} {took:>8.2f} {mem.peak / 2**20:>9.0f}  "
        f"{detail[:70]} (healthz {health})"
    )


def overhead(tmp: Path, repeats: int) -> None:
    path = h.jsonl_run(tmp / "run10k.jsonl", 10_000)
    servers = {
        isolate: Server(tmp / f"data-{isolate}", env={**ENV, "LOSSFORENSICS_ISOLATE": isolate})
        for isolate in ("true", "false")
    }
    samples: dict[str, list[float]] = {k: [] for k in servers}
    try:
        for srv in servers.values():
            srv.start(timeout=180)
        clients = {k: httpx.Client(base_url=srv.url, timeout=600) for k, srv in servers.items()}
        for c in clients.values():
            for _ in range(3):
                assert _post(c, [path], url="/v1/diagnose").status_code == 200  # warm-up
        for _ in range(repeats):
            for key, c in clients.items():  # in turn: the same load on both
                start = time.perf_counter()
                assert _post(c, [path], url="/v1/diagnose").status_code == 200
                samples[key].append(time.perf_counter() - start)
        for c in clients.values():
            c.close()
    finally:
        for srv in servers.values():
            srv.stop()
    on, off = (statistics.median(samples[k]) for k in ("true", "false"))
    figures.record(
        figures.Figure(
            "hostile",
            "10k-point upload, isolated (median)",
            on * 1000,
            "ms",
            reference=off * 1000,
            reference_name="in a server thread (LOSSFORENSICS_ISOLATE=false), same run",
            ratio_name="isolated / in-thread",
            ratio=on / off,
        )
    )
    print(
        f"\n10k-point upload, median of {repeats}, in turn: isolated {on * 1000:.0f} ms, "
        f"in-thread {off * 1000:.0f} ms, overhead {(on - off) * 1000:+.0f} ms ({on / off:.2f}x)"
    )


LEAN = "import lossforensics.isolate, lossforensics.ingest"
FULL = LEAN + ", lossforensics.classifiers.diagnose, pyarrow"


def startup(repeats: int) -> None:
    """A reader worker's imports at start, now (readers only) and as it once was (classifiers
    and pyarrow too, then a warm-up diagnosis: the latter left out here), in fresh processes."""
    times = {}
    for name, code in (("lean", LEAN), ("full", FULL)):
        runs = []
        for _ in range(repeats):
            start = time.perf_counter()
            subprocess.run([sys.executable, "-c", code], check=True)
            runs.append(time.perf_counter() - start)
        times[name] = statistics.median(runs)
    figures.record(
        figures.Figure(
            "hostile",
            "reader worker imports at start",
            times["lean"],
            "s",
            reference=times["full"],
            reference_name="also importing the classifiers and pyarrow (the old start)",
            ratio_name="lean / old",
            ratio=times["lean"] / times["full"],
        )
    )
    print(
        f"reader worker start-up imports, median of {repeats}: {times['lean']:.2f} s "
        f"(readers only) against {times['full']:.2f} s (with the classifiers)"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--repeats", type=int, default=15)
    ap.add_argument("--skip-table", action="store_true", help="only the overhead figures")
    figures.add_json_option(ap)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="lf-hostile-") as tmp:
        if not args.skip_table:
            run_table(Path(tmp))
        overhead(Path(tmp), args.repeats)
        startup(max(3, args.repeats // 5))
    figures.write(args.json)


if __name__ == "__main__":
    main()
