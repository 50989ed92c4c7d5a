"""Small helpers the writers share: float formatting as Python loggers print it, segments."""

from __future__ import annotations

import math

from benchmarks.corpus.views import LoggedRun, Row


def pyfloat(v: float) -> str:
    """repr of a Python float, the way csv/json writers print values from `tensor.item()`."""
    return repr(float(v))


def segments(run: LoggedRun) -> list[list[Row]]:
    """Split the rows where the step counter goes back (a resumed run): one list per session."""
    out: list[list[Row]] = [[]]
    last = -math.inf
    for r in run.rows:
        if r.kind != "eval" and r.step < last:
            out.append([])
        if r.kind != "eval":
            last = r.step
        out[-1].append(r)
    return [s for s in out if s]


def hparams(run: LoggedRun) -> dict:
    """The run's hyper-parameters as a logger's hparams/params would record them."""
    return {k: v for k, v in run.meta.items() if not k.startswith("_")}
