"""Write the measured-figures table of docs/performance.md from build/bench.json (`make bench`):
each figure beside the reference measured in the same run, the ratio, the target, and the
machine it ran on. The table sits between two markers in the page; the prose around it is the
page's own.

    .venv/bin/python benchmarks/performance_page.py [--bench build/bench.json]
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PAGE = REPO / "docs" / "performance.md"
BEGIN = "<!-- bench:begin (benchmarks/performance_page.py writes this part) -->"
END = "<!-- bench:end -->"


def _num(x: float | None) -> str:
    if x is None:
        return "–"
    return f"{x:.3g}" if abs(x) < 1000 else f"{x:,.0f}"


def table(bench: dict) -> str:
    lines = [
        "| benchmark | figure | ours | reference (same run) | ratio | target | met |",
        "|---|---|---|---|---|---|---|",
    ]
    loads = []
    for name, res in bench["benchmarks"].items():
        if res.get("machine", {}).get("load_average_at_end") is not None:
            loads.append(res["machine"]["load_average_at_end"])
        for f in res["figures"]:
            ref = "–"
            if f["reference"] is not None:
                ref = f"{_num(f['reference'])} ({f['reference_name']})"
            elif f.get("reference_name"):
                ref = f["reference_name"]
            ratio = "–" if f["ratio"] is None else f"{f['ratio_name']}: {_num(f['ratio'])}"
            met = {True: "yes", False: "**no**", None: "–"}[f["met"]]
            lines.append(
                f"| {name} | {f['name']} | {_num(f['ours'])} {f['unit']} | {ref} | {ratio} | "
                f"{f['target'] or '–'} | {met} |"
            )
    m = bench["machine"]
    load = f", load average {min(loads):.1f}-{max(loads):.1f} while measuring" if loads else ""
    head = (
        "Measured by the benchmark scripts `make bench` runs, on "
        f"{m['cpus']} CPUs ({m['processor']}, Python {m['python']}, {m['system']}){load}. "
        "Ratios compare figures taken in the same run; on a busy machine wall times and wall "
        "ratios drift, CPU-time ratios less so."
    )
    return "\n".join([BEGIN, "", head, "", *lines, "", END])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bench", type=Path, default=REPO / "build" / "bench.json")
    ap.add_argument("--out", type=Path, default=PAGE)
    args = ap.parse_args(argv)
    bench = json.loads(args.bench.read_text())
    text = args.out.read_text()
    block = table(bench)
    if BEGIN in text and END in text:
        text = text[: text.index(BEGIN)] + block + text[text.index(END) + len(END) :]
    else:
        title, _, rest = text.partition("\n")
        text = f"{title}\n\n## Latest figures\n\n{block}\n{rest}"
    args.out.write_text(text)
    print(f"written: {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
