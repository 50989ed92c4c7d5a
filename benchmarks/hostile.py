"""Issue #14's attacks against a real `lossforensics serve`: status, time and peak memory of the
server's process tree (parsing workers included), as one table; then the cost of isolation on a
10k-point upload (median of repeated uploads, isolate on vs off).

    PYTHONPATH=. .venv/bin/python benchmarks/hostile.py [--repeats 15]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.app.api import hostile_inputs as h  # noqa: E402
from tests.app.api._server import Server  # noqa: E402
from tests.app.api.test_hostile import ENV, PeakMemory  # noqa: E402


def _post(c: httpx.Client, paths: list[Path], url: str = "/v1/runs", **kw) -> httpx.Response:
    files = [("file", (kw.pop("name", None) or p.name, p.read_bytes())) for p in paths]
    return c.post(url, files=files, **kw)


def attacks(tmp: Path, srv: Server) -> list[tuple[str, callable]]:
    wide = h.wide_csv(tmp / "wide.csv")
    parts = h.many_archives(tmp / "parts", count=10, member_bytes=500_000)
    export = h.wandb_export(tmp / "wandb_export.csv")
    small = h.jsonl_run(tmp / "small.jsonl", 500)
    evil = {"origin": "http://evil.example"}
    return [
        ("recursive-VIEW mlflow.db", lambda c: _post(c, [h.recursive_view_db(tmp / "mlflow.db")])),
        ("1000-column CSV, 20k rows", lambda c: _post(c, [wide])),
        ("alias-bomb meta.yaml", lambda c: _post(c, [h.alias_bomb_meta_yaml(tmp / "m.zip")])),
        ("10 archives over the budget", lambda c: _post(c, parts)),
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
                start = time.monotonic()
                with PeakMemory(srv.proc.pid) as mem:
                    resp = fn(c)
                took = time.monotonic() - start
                detail = resp.json().get("detail", "") if resp.status_code >= 400 else ""
                if resp.status_code < 400 and "diagnoses" in resp.text:
                    detail = f"{len(resp.json()['diagnoses'])} runs read"
                health = c.get("/healthz").status_code
                print(
                    f"{name:32} {resp.status_code:>6} {took:>8.2f} {mem.peak / 2**20:>9.0f}  "
                    f"{detail[:70]} (healthz {health})"
                )
    finally:
        srv.stop()
    errors = [ln for ln in srv.output().splitlines() if "Error" in ln or "error" in ln]
    if errors:
        print("server log errors:", *errors[-8:], sep="\n  ")


def overhead(tmp: Path, repeats: int) -> None:
    path = h.jsonl_run(tmp / "run10k.jsonl", 10_000)
    times: dict[str, float] = {}
    for isolate in ("true", "false"):
        srv = Server(tmp / f"data-{isolate}", env={**ENV, "LOSSFORENSICS_ISOLATE": isolate})
        srv.start(timeout=180)
        try:
            with httpx.Client(base_url=srv.url, timeout=600) as c:
                for _ in range(3):
                    _post(c, [path], url="/v1/diagnose")  # warm-up
                samples = []
                for _ in range(repeats):
                    start = time.perf_counter()
                    assert _post(c, [path], url="/v1/diagnose").status_code == 200
                    samples.append(time.perf_counter() - start)
                times[isolate] = statistics.median(samples)
        finally:
            srv.stop()
    on, off = times["true"], times["false"]
    print(
        f"\n10k-point upload, median of {repeats}: isolated {on * 1000:.0f} ms, in-thread "
        f"{off * 1000:.0f} ms, overhead {(on - off) * 1000:+.0f} ms ({on / off:.2f}x)"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--repeats", type=int, default=15)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="lf-hostile-") as tmp:
        run_table(Path(tmp))
        overhead(Path(tmp), args.repeats)


if __name__ == "__main__":
    main()
