"""clip: the same N steps with clip_grad_norm_(max_norm) (fresh model, same seed and batches).

Question: does clipping the total gradient norm at 1.0 stabilise the run?
Verdict on "no gradient clipping (gradient spikes blow the run up)":
  confirmed     unstable without clipping (see lr_drop for "unstable"), stable with it
  refuted       stable without clipping, or still unstable with it
For a cause about clipping too hard (over_clipping: "clip threshold too low") the verdict reads
the unclipped run's gradient norms instead: confirmed when they exceed max_norm on at least half
the steps while the unclipped run is stable, refuted when they do on under a fifth.
"""

from __future__ import annotations

import numpy as np
from lossforensics.probes.base import Outcome, mentions, probe
from lossforensics.probes.result import CONFIRMED, INCONCLUSIVE, REFUTED, ProbeResult
from lossforensics.probes.runlog import record
from lossforensics.probes.setup import ProbeSetup
from lossforensics.probes.train import train

NAME = "clip"


def judge(result: ProbeResult, cause: str) -> str:
    if not mentions(
        cause,
        "threshold",
        "too low",
        "too tight",
        "over-clip",
        "over_clip",
        "overclip",
        "clipping too",
    ):
        return result.verdict
    share = result.numbers.get("share_above_max_norm", float("nan"))
    if share >= 0.5 and not result.numbers.get("unclipped_unstable", True):
        return CONFIRMED
    if share < 0.2:
        return REFUTED
    return INCONCLUSIVE


@probe(
    NAME,
    question="Does clip_grad_norm_(1.0) stabilise the run?",
    hypothesis="no gradient clipping (gradient spikes blow the run up)",
    judge=judge,
)
def run(setup: ProbeSetup, *, max_norm: float = 1.0) -> Outcome:
    runs = {}
    norms = np.array([])
    for label, clip in (("unclipped", None), (f"clip{max_norm:g}", max_norm)):
        model = setup.fresh_model()
        log = train(setup, model, setup.make_optimizer(model), name=label, clip=clip)
        runs[label] = record(setup, NAME, log)
        if clip is None:
            norms = log.grad_norm[np.isfinite(log.grad_norm)]
    free, clipped = runs["unclipped"], runs[f"clip{max_norm:g}"]
    share = float(np.mean(norms > max_norm)) if norms.size else float("nan")
    numbers = {
        "max_norm": max_norm,
        "share_above_max_norm": share,
        "grad_norm_median": float(np.median(norms)) if norms.size else float("nan"),
        "grad_norm_max": float(norms.max()) if norms.size else float("nan"),
        "unclipped_unstable": free["unstable"],
        "clipped_unstable": clipped["unstable"],
        "unclipped_end_loss": free["end_loss"],
        "clipped_end_loss": clipped["end_loss"],
    }
    if free["unstable"] and not clipped["unstable"]:
        return Outcome(
            CONFIRMED,
            f"unstable without clipping, stable with clip_grad_norm_"
            f"({max_norm:g}) (end loss {clipped['end_loss']:.4g}); grad norm above "
            f"{max_norm:g} on {share:.0%} of unclipped steps",
            numbers,
            runs,
        )
    if free["unstable"]:
        return Outcome(
            REFUTED,
            f"still unstable with clip_grad_norm_({max_norm:g}): clipping does not stop it",
            numbers,
            runs,
        )
    return Outcome(
        REFUTED,
        f"stable without clipping for {setup.steps} steps (grad norm median "
        f"{numbers['grad_norm_median']:.3g}, max {numbers['grad_norm_max']:.3g})",
        numbers,
        runs,
    )
