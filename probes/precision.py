"""precision: the same N steps in fp32, under bf16 autocast and (CUDA only) fp16 autocast with a
GradScaler (fresh model, same seed and batches).

Question: does the NaN / divergence disappear in fp32?
Verdict on "reduced precision (fp16/bf16 overflow or rounding) breaks the run":
  confirmed     a reduced-precision run is unstable while fp32 is stable
  refuted       fp32 is unstable too (precision is not the cause); or every precision, fp16
                included, is stable
  inconclusive  fp32 and bf16 are stable but fp16 could not be tried (no CUDA): the usual
                culprit, fp16 overflow, was not tested
A cause about state not restored on resume is inconclusive (a fresh run cannot test it).
bf16 autocast runs on CPU and CUDA (CUDA only where the GPU supports bf16).
"""

from __future__ import annotations

from lossforensics.probes._torch import require_torch
from lossforensics.probes.base import Outcome, mentions, probe
from lossforensics.probes.result import CONFIRMED, INCONCLUSIVE, REFUTED, ProbeResult
from lossforensics.probes.runlog import record
from lossforensics.probes.setup import ProbeSetup
from lossforensics.probes.train import train

NAME = "precision"


def judge(result: ProbeResult, cause: str) -> str:
    # a fresh short run cannot test whether a resumed run restored its scaler state
    return INCONCLUSIVE if mentions(cause, "restored", "resume") else result.verdict


def available(setup: ProbeSetup) -> dict[str, str | None]:
    """Each precision -> None when it can run here, else why not."""
    torch = require_torch()
    cuda = setup.torch_device.type == "cuda"
    bf16 = None
    if cuda and not torch.cuda.is_bf16_supported():
        bf16 = "this GPU does not support bf16"
    return {
        "fp32": None,
        "bf16": bf16,
        "fp16": None if cuda else "fp16 autocast with a GradScaler needs CUDA",
    }


@probe(
    NAME,
    question="Does the NaN disappear in fp32 (vs bf16 / fp16 autocast)?",
    hypothesis="reduced precision (fp16/bf16 overflow or rounding) breaks the run",
    judge=judge,
)
def run(setup: ProbeSetup) -> Outcome:
    can = available(setup)
    runs = {}
    for precision, why_not in can.items():
        if why_not is None:
            model = setup.fresh_model()
            log = train(
                setup, model, setup.make_optimizer(model), name=precision, precision=precision
            )
            runs[precision] = record(setup, NAME, log)
    skipped = {p: why for p, why in can.items() if why is not None}
    numbers = {
        "skipped": skipped,
        **{f"{p}_unstable": r["unstable"] for p, r in runs.items()},
        **{f"{p}_end_loss": r["end_loss"] for p, r in runs.items()},
        **{f"{p}_first_nonfinite_step": r["first_nonfinite_step"] for p, r in runs.items()},
    }
    low = [p for p in runs if p != "fp32"]
    broken = [p for p in low if runs[p]["unstable"]]
    if runs["fp32"]["unstable"]:
        return Outcome(REFUTED, "unstable in fp32 too: precision is not the cause", numbers, runs)
    if broken:
        p = broken[0]
        step = runs[p]["first_nonfinite_step"]
        where = f"non-finite at step {step}" if step is not None else "diverges"
        return Outcome(
            CONFIRMED,
            f"{p} {where} while fp32 trains: use fp32 (or bf16 instead of "
            "fp16, or a GradScaler) where it breaks",
            numbers,
            runs,
        )
    if skipped:
        return Outcome(
            INCONCLUSIVE,
            f"fp32 and {', '.join(low) or 'nothing else'} are stable; "
            f"not tried: {'; '.join(f'{p} ({w})' for p, w in skipped.items())}",
            numbers,
            runs,
        )
    return Outcome(
        REFUTED,
        f"stable in every precision ({', '.join(runs)}) for {setup.steps} steps",
        numbers,
        runs,
    )
