"""Cross-run view: which hyper-parameter a pathology follows across a sweep.

For each label and each numeric hyper-parameter known for enough runs, every cut between two
adjacent distinct values splits the runs into a side at or above the cut and a side below it.
A cut is scored by Youden's J = (share of the labelled runs on the chosen side) - (share of the
unlabelled runs on that side): 1 for a perfect split, 0 for none. The best cut (either direction)
is reported when

  * J >= `min_separation` (clean enough: few exceptions on either side), and
  * a one-sided Fisher exact test of "label on this side" gives p <= `alpha` (support: 2/2 vs
    0/2 is a perfect split but proves nothing; 6/6 vs 0/12 does), and
  * at least `min_labelled` runs carry the label and `min_runs` runs know the parameter.

Reads the result as "all runs with lr >= 0.01 exploded (6/6); none below (0/12)". It is a
correlation over the runs audited, not a proof of cause; the sentence says counts, not "because".
Vectorised over cuts with cumulative sums; one pass per (label, parameter).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import numpy as np
from lossforensics.classifiers.labels import severity_rank
from scipy.stats import fisher_exact

VERBS: dict[str, str] = {
    "nan": "went NaN",
    "exploding": "exploded",
    "plateau": "plateaued",
    "oscillating": "oscillated",
    "overfit": "overfit",
    "underfit": "underfit",
    "loss_spikes": "spiked",
    "lr_decayed_too_early": "had the LR decay too early",
    "distribution_mismatch": "showed a train/val mismatch",
    "vanishing_gradients": "had vanishing gradients",
    "over_clipping": "over-clipped",
    "unshuffled": "looked unshuffled",
    "resume_discontinuity": "broke at a resume",
    "metric_mismatch": "had a loss/metric mismatch",
}


@dataclass(frozen=True)
class HparamEffect:
    """A label that follows one hyper-parameter across the sweep."""

    label: str
    param: str
    direction: str  # ">=" (label at high values) or "<=" (label at low values)
    threshold: float  # the boundary value on the labelled side ('lr >= 0.01')
    labelled_in: int  # runs with the label on the threshold's side
    n_in: int
    labelled_out: int  # runs with the label on the other side
    n_out: int
    separation: float  # Youden's J
    p_value: float

    def sentence(self) -> str:
        verb = VERBS.get(self.label, f"were labelled {self.label}")
        side = f"{self.param} {self.direction} {self.threshold:g}"
        other = "below" if self.direction == ">=" else "above"
        head = (
            "all runs"
            if self.labelled_in == self.n_in
            else f"{self.labelled_in} of {self.n_in} runs"
        )
        tail = "none" if self.labelled_out == 0 else f"{self.labelled_out} of {self.n_out}"
        return (
            f"{head} with {side} {verb} ({self.labelled_in}/{self.n_in}); "
            f"{tail} {other} ({self.labelled_out}/{self.n_out})"
        )

    def to_dict(self) -> dict[str, object]:
        return {
            "label": self.label,
            "param": self.param,
            "direction": self.direction,
            "threshold": self.threshold,
            "labelled_in": self.labelled_in,
            "n_in": self.n_in,
            "labelled_out": self.labelled_out,
            "n_out": self.n_out,
            "separation": round(self.separation, 4),
            "p_value": float(f"{self.p_value:.3g}"),
            "sentence": self.sentence(),
        }


def find_effects(
    runs: Iterable[tuple[Iterable[str], Mapping[str, float]]],
    *,
    min_runs: int = 6,
    min_labelled: int = 3,
    min_separation: float = 0.8,
    alpha: float = 0.01,
) -> list[HparamEffect]:
    """`runs`: (labels, hyper-parameters) per run. Returns the effects worth telling, most
    severe label first, then the strongest evidence first."""
    rows = [(frozenset(labels), dict(hp)) for labels, hp in runs]
    labels = sorted({lab for labs, _ in rows for lab in labs}, key=lambda x: (severity_rank(x), x))
    params = sorted({k for _, hp in rows for k in hp})
    effects: list[HparamEffect] = []
    for param in params:
        known = [(labs, hp[param]) for labs, hp in rows if param in hp]
        if len(known) < min_runs:
            continue
        values = np.array([v for _, v in known], dtype=np.float64)
        if np.unique(values).size < 2:
            continue
        for label in labels:
            has = np.array([label in labs for labs, _ in known])
            if has.sum() < min_labelled or has.all():
                continue
            best = _best_cut(values, has)
            if best is None:
                continue
            effect = _judge(label, param, values, has, *best)
            if effect.separation >= min_separation and effect.p_value <= alpha:
                effects.append(effect)
    effects.sort(key=lambda e: (severity_rank(e.label), e.label, e.p_value, -e.separation, e.param))
    return effects


def _best_cut(values: np.ndarray, has: np.ndarray) -> tuple[float, str] | None:
    """The threshold and direction with the largest Youden's J over all cuts."""
    order = np.argsort(values, kind="stable")
    v, h = values[order], has[order].astype(np.int64)
    pos, neg = int(h.sum()), int(h.size - h.sum())
    # cut i separates v[:i] (below) from v[i:] (at or above); only where the value changes
    cuts = np.flatnonzero(np.diff(v) > 0) + 1
    if cuts.size == 0:
        return None
    pos_below = np.cumsum(h)[cuts - 1]
    neg_below = cuts - pos_below
    j_high = (pos - pos_below) / pos - (neg - neg_below) / neg  # label at high values
    j_low = -j_high  # label at low values
    i_high, i_low = int(np.argmax(j_high)), int(np.argmax(j_low))
    if j_high[i_high] >= j_low[i_low]:
        return float(v[cuts[i_high]]), ">="
    return float(v[cuts[i_low] - 1]), "<="


def _judge(
    label: str, param: str, values: np.ndarray, has: np.ndarray, threshold: float, direction: str
) -> HparamEffect:
    inside = values >= threshold if direction == ">=" else values <= threshold
    a, b = int((has & inside).sum()), int(inside.sum())
    c, d = int((has & ~inside).sum()), int((~inside).sum())
    pos, neg = a + c, (b - a) + (d - c)
    separation = a / pos - (b - a) / neg
    _, p = fisher_exact([[a, b - a], [c, d - c]], alternative="greater")
    return HparamEffect(label, param, direction, threshold, a, b, c, d, float(separation), float(p))
