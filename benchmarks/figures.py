"""One record per benchmark figure, so `make bench` can gather every script's results into one
JSON and one table: the figure, the reference it is compared against in the same run, the
ratio, and the target it answers to.

A script records figures as it measures (`record(...)`) and writes them when asked
(`--json PATH`, via `add_json_option` and `write`). benchmarks/bench.py runs every script and
merges their files.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
from dataclasses import asdict, dataclass
from pathlib import Path


@dataclass(frozen=True)
class Figure:
    benchmark: str  # the script: ingest, diagnose, service, audit, ...
    name: str  # what was measured, e.g. "tensorboard 1M scalars, wall"
    ours: float
    unit: str  # "s", "ms", "per s", "x frame", ...
    reference: float | None = None  # measured in the same run
    reference_name: str | None = None  # e.g. "tbparse SummaryReader(dir).scalars"
    ratio_name: str | None = None  # how the ratio reads, e.g. "speed-up", "ours / reference"
    ratio: float | None = None
    target: str | None = None  # the goal this figure answers to, e.g. ">= 50x"
    met: bool | None = None


_RECORDED: list[Figure] = []


def record(figure: Figure) -> Figure:
    _RECORDED.append(figure)
    return figure


def recorded() -> list[Figure]:
    return list(_RECORDED)


def add_json_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", type=Path, help="also write the figures here as JSON")


def write(path: Path | None) -> None:
    if path is None:
        return
    rows = [{k: _finite(v) for k, v in asdict(f).items()} for f in _RECORDED]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"machine": machine(), "figures": rows}, indent=2) + "\n")


def machine() -> dict[str, object]:
    """What the figures were measured on: they mean little without it."""
    try:
        load = os.getloadavg()[0]
    except OSError:
        load = None
    return {
        "cpus": os.cpu_count(),
        "processor": platform.processor() or platform.machine(),
        "python": platform.python_version(),
        "system": f"{platform.system()} {platform.release()}",
        "load_average_at_end": load,
    }


def _finite(value: object) -> object:
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value
