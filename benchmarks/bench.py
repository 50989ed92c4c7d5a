"""`make bench`: every benchmark, one JSON and one table.

    .venv/bin/python benchmarks/bench.py [--only ingest diagnose ...] [--out build/bench.json]

Runs each benchmark script in its own process (so one's imports and caches do not flatter
another), each writing its figures with `--json`; merges them with the machine they ran on into
one file, and prints one table: the figure, the reference measured in the same run, the ratio,
and the target it answers to. Scripts that record no figures (or predate `--json`) still run;
their printed output is kept in the JSON under `output`.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from benchmarks import figures  # noqa: E402

# name -> (script, extra arguments); order: the cheapest first, so a failure shows early
BENCHMARKS: dict[str, tuple[str, list[str]]] = {
    "diagnose": ("diagnose.py", []),
    "ingest": ("ingest.py", []),
    "series": ("series.py", []),
    "console": ("console.py", []),
    "watch": ("watch.py", []),
    "callbacks": ("callbacks.py", []),
    "service": ("service.py", []),
    "live": ("live.py", []),
    "hostile": ("hostile.py", []),
    "audit": ("audit.py", ["--skip-serial"]),
}


def run_one(name: str, script: Path, extra: list[str], tmp: Path) -> dict[str, object]:
    out = tmp / f"{name}.json"
    cmd = [sys.executable, str(script), *extra]
    help_text = subprocess.run([*cmd, "--help"], capture_output=True, text=True).stdout
    if "--json" in help_text:
        cmd += ["--json", str(out)]
    print(f"== {name}: {' '.join(cmd[1:])}", flush=True)
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=REPO)
    print(proc.stdout, end="", flush=True)
    if proc.returncode != 0:
        print(proc.stderr[-2000:], file=sys.stderr)
    got = json.loads(out.read_text()) if out.exists() else {"figures": []}
    return {
        "script": f"benchmarks/{script.name}",
        "returncode": proc.returncode,
        "seconds": round(time.perf_counter() - t0, 1),
        "figures": got["figures"],
        "output": proc.stdout,
    }


def table(results: dict[str, dict[str, object]]) -> str:
    rows = [("figure", "ours", "reference", "ratio", "target", "met")]
    for res in results.values():
        for f in res["figures"]:  # type: ignore[attr-defined]
            ref = (
                "" if f["reference"] is None else f"{_num(f['reference'])} ({f['reference_name']})"
            )
            ratio = "" if f["ratio"] is None else f"{f['ratio_name']} {_num(f['ratio'])}"
            met = {True: "yes", False: "NO", None: ""}[f["met"]]
            rows.append(
                (
                    f"{f['benchmark']}: {f['name']}",
                    f"{_num(f['ours'])} {f['unit']}",
                    ref,
                    ratio,
                    f["target"] or "",
                    met,
                )
            )
    widths = [min(70, max(len(r[i]) for r in rows)) for i in range(len(rows[0]))]
    lines = ("  ".join(c[:70].ljust(w) for c, w in zip(r, widths, strict=True)) for r in rows)
    return "\n".join(lines)


def _num(x: float | None) -> str:
    if x is None:
        return "n/a"
    return f"{x:.3g}" if abs(x) < 1000 else f"{x:,.0f}"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--only", nargs="+", choices=sorted(BENCHMARKS))
    ap.add_argument("--out", type=Path, default=REPO / "build" / "bench.json")
    args = ap.parse_args(argv)
    chosen = args.only or list(BENCHMARKS)
    results: dict[str, dict[str, object]] = {}
    with tempfile.TemporaryDirectory(prefix="lf-bench-") as tmp:
        for name in chosen:
            script, extra = BENCHMARKS[name]
            path = REPO / "benchmarks" / script
            if not path.exists():
                print(f"== {name}: benchmarks/{script} is not there; skipped")
                continue
            results[name] = run_one(name, path, extra, Path(tmp))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(
        json.dumps({"machine": figures.machine(), "benchmarks": results}, indent=2) + "\n"
    )
    print("\n" + table(results))
    print(f"\nwritten: {args.out}")
    return 0 if all(r["returncode"] == 0 for r in results.values()) else 1


if __name__ == "__main__":
    raise SystemExit(main())
