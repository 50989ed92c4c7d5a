"""lr_drop: the same N steps at LR/10 and LR/3 (fresh model, same seed, same batches).

Question: does the divergence stop when the learning rate is lower?
Verdict on "the learning rate is too high":
  confirmed     the run at the user's LR is unstable (non-finite, or ends 1.5x above where it
                started, or peaks 10x above it, or the classifiers label it nan/exploding) and a
                lower LR is stable; or the user's LR is stable but a lower LR ends below half
                its final loss (too high for this phase: it bounces instead of descending)
  refuted       stable at the user's LR and no better lower; or unstable at every LR tried
  inconclusive  unstable everywhere, but a lower LR postpones the blow-up at least twofold;
                and for a cause about the LR driving the training loss down "too fast"
                (overfit): the probe sees no validation loss
"""

from __future__ import annotations

from lossforensics.probes.base import Outcome, mentions, probe
from lossforensics.probes.result import CONFIRMED, INCONCLUSIVE, REFUTED, ProbeResult
from lossforensics.probes.runlog import record
from lossforensics.probes.setup import ProbeSetup
from lossforensics.probes.train import level_ratio, train

NAME = "lr_drop"


def judge(result: ProbeResult, cause: str) -> str:
    # the probe sees the training loss only: whether the LR drives it down "too fast" for the
    # validation loss (overfit) is beyond it
    return INCONCLUSIVE if mentions(cause, "too fast") else result.verdict


@probe(
    NAME,
    question="Does the divergence stop at LR/10 (or LR/3)?",
    hypothesis="the learning rate is too high",
    judge=judge,
)
def run(setup: ProbeSetup, *, factors: tuple[float, ...] = (10.0, 3.0)) -> Outcome:
    runs = {}
    for label, scale in [("lr", 1.0), *((f"lr_div{f:g}", 1.0 / f) for f in factors)]:
        model = setup.fresh_model()
        log = train(setup, model, setup.make_optimizer(model), name=label, lr_scale=scale)
        runs[label] = record(setup, NAME, log)
    base = runs["lr"]
    lower = {k: v for k, v in runs.items() if k != "lr"}
    numbers = {
        "base_lr": base["first_lr"],
        "factors": list(factors),
        **{f"{k}_end_loss": v["end_loss"] for k, v in runs.items()},
        **{f"{k}_unstable": v["unstable"] for k, v in runs.items()},
    }
    steps = setup.steps
    if base["unstable"]:
        calm = [k for k, v in lower.items() if not v["unstable"]]
        if calm:
            k = calm[0]
            return Outcome(
                CONFIRMED,
                f"unstable at the user's LR ({_what(base)}); at "
                f"{_name(k)} it trains ({_fmt(lower[k]['start_loss'])} -> "
                f"{_fmt(lower[k]['end_loss'])} in {steps} steps)",
                numbers,
                runs,
            )
        later = [k for k, v in lower.items() if _postponed(base, v)]
        if later:
            return Outcome(
                INCONCLUSIVE,
                f"unstable at every LR tried, but {_name(later[0])} "
                "postpones the blow-up: the LR matters, but is not the whole story",
                numbers,
                runs,
            )
        return Outcome(
            REFUTED,
            f"unstable at the user's LR and still unstable at "
            f"{', '.join(_name(k) for k in lower)}: look at data or numerics",
            numbers,
            runs,
        )
    best = min(lower, key=lambda k: lower[k]["end_loss"])
    if level_ratio(lower[best]["end_loss"], base["end_loss"]) < 0.5:
        return Outcome(
            CONFIRMED,
            f"stable at the user's LR but {_name(best)} ends far lower "
            f"({_fmt(lower[best]['end_loss'])} vs {_fmt(base['end_loss'])}): the LR "
            "is too high for this phase",
            numbers,
            runs,
        )
    return Outcome(
        REFUTED,
        f"stable at the user's LR for {steps} steps ({_fmt(base['start_loss'])}"
        f" -> {_fmt(base['end_loss'])}); a lower LR does not do better",
        numbers,
        runs,
    )


def _postponed(base: dict, other: dict) -> bool:
    b, o = base["first_nonfinite_step"], other["first_nonfinite_step"]
    return b is not None and (o is None or o >= 2 * max(b, 1))


def _what(run: dict) -> str:
    if run["first_nonfinite_step"] is not None:
        return f"non-finite loss at step {run['first_nonfinite_step']}"
    if run["diverged"]:
        return (
            f"loss {_fmt(run['start_loss'])} -> {_fmt(run['end_loss'])}, "
            f"peak {_fmt(run['max_loss'])}"
        )
    return "labelled " + "/".join(run["labels"] or ())


def _name(key: str) -> str:
    return key.replace("lr_div", "LR/")


def _fmt(x: float) -> str:
    return f"{x:.4g}"
