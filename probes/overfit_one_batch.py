"""overfit_one_batch: train a fresh model on one small batch (2-16 samples) for N steps.

Question: can the model drive one tiny batch's loss to ~0?
Any model worth training memorises 8 samples; one that cannot has a wiring bug (loss and output
do not match, samples mixed across the batch, gradients not reaching the weights, the optimizer
not holding the parameters), not a tuning or capacity problem.
Verdict on "a wiring bug keeps the model from learning":
  confirmed     the best loss stays above `fit_ratio` (5%) of the starting loss
  refuted       the loss drops below it
For a cause about capacity (model too small, underfit) the reading flips: failing to fit one
batch refutes capacity (flags wiring instead); fitting it is inconclusive (one batch says nothing
about the whole data set). For a cause about labels not matching the inputs, fitting is
inconclusive (8 wrongly labelled samples are memorised too) and failing confirms a miswiring.
"""

from __future__ import annotations

import itertools

from lossforensics.probes.base import Outcome, mentions, probe
from lossforensics.probes.result import CONFIRMED, INCONCLUSIVE, REFUTED, ProbeResult
from lossforensics.probes.runlog import record
from lossforensics.probes.setup import ProbeSetup, batch_size, take_samples
from lossforensics.probes.train import level_ratio, train

NAME = "overfit_one_batch"


def judge(result: ProbeResult, cause: str) -> str:
    if mentions(
        cause, "capacity", "too small", "underfit", "larger model", "model size", "too much regular"
    ):
        return REFUTED if result.verdict == CONFIRMED else INCONCLUSIVE
    if mentions(cause, "labels that do not match", "wrong column", "wrong mapping"):
        # a model memorises 8 samples with wrong labels too: fitting proves nothing here
        return CONFIRMED if result.verdict == CONFIRMED else INCONCLUSIVE
    return result.verdict


@probe(
    NAME,
    question="Can the model drive a 2-16 sample batch to ~0?",
    hypothesis="a wiring bug keeps the model from learning",
    judge=judge,
)
def run(
    setup: ProbeSetup, *, samples: int = 8, fit_ratio: float = 0.05, steps: int | None = None
) -> Outcome:
    samples = min(max(int(samples), 2), 16)
    x, y = setup.first_batch()
    x, y = take_samples(x, samples), take_samples(y, samples)
    model = setup.fresh_model()
    log = train(
        setup,
        model,
        setup.make_optimizer(model),
        name=f"one_batch_{samples}",
        steps=steps,
        batches=itertools.repeat((x, y)),
    )
    rec = record(setup, NAME, log)
    start, best = rec["start_loss"], rec["best_loss"]
    ratio = level_ratio(best, start)
    numbers = {
        "samples": batch_size(x),
        "start_loss": start,
        "best_loss": best,
        "end_loss": rec["end_loss"],
        "best_over_start": ratio,
        "fit_ratio": fit_ratio,
        "steps": rec["steps"],
    }
    runs = {log.name: rec}
    n = numbers["samples"]
    if rec["first_nonfinite_step"] is not None and not ratio <= fit_ratio:
        return Outcome(
            CONFIRMED,
            f"the loss on one batch of {n} became non-finite at step "
            f"{rec['first_nonfinite_step']} before fitting it",
            numbers,
            runs,
        )
    if ratio <= fit_ratio:
        return Outcome(
            REFUTED,
            f"fits one batch of {n}: loss {start:.4g} -> {best:.4g} "
            f"({ratio:.1%} of the start): the wiring can learn",
            numbers,
            runs,
        )
    stuck = (
        "does not move at all: no gradient reaches the weights?"
        if ratio > 0.95
        else (
            "stalls: check the loss matches the output (shape, logits vs probabilities, labels) "
            "and that samples are not mixed across the batch"
        )
    )
    return Outcome(
        CONFIRMED,
        f"cannot fit one batch of {n}: best loss {best:.4g} is {ratio:.0%} "
        f"of the start {start:.4g} after {rec['steps']} steps; it {stuck}",
        numbers,
        runs,
    )
