"""The loss a detection trainer minimises, when it logs only the parts: their sum.

Ultralytics (YOLOv5, YOLOv8 and later, in results.csv and in its TensorBoard events) logs its
loss as the heads' parts alone: `train/box_loss`, `train/cls_loss`, `train/dfl_loss` (YOLOv5:
`obj_loss` in place of `dfl_loss`; segmentation and pose add `seg_loss`, `pose_loss`,
`kobj_loss`), the same under `val/`, and no total. Each part is already weighted by its gain,
and the trainer minimises their sum. A run is judged on that sum. The parts drift differently:
the class part is usually the one that overfits first, while the box part stays flat. The box
part is also the one a person would read first by name, so judged alone it hides an overfit
that the sum shows (a val class loss up 30% from its best while the box loss holds).

Rule: within one role (training or validation loss), when every metric of the role is a part
(`<prefix><part>_loss`, with one shared prefix and a part from `PARTS`) and there are at least
two parts, the role's primary is their sum, named after them (`val/box_loss+cls_loss+dfl_loss`).
The sum is taken over each logged row (its session and step) that holds every part; a part
that is NaN or inf makes the sum NaN or inf (non-finite values are evidence, as logged). A role
that also logs anything else (a total, an auxiliary loss of another name) is left as it is: the
trainer's own total, or a loss we cannot place, is read as logged.

The stored frame keeps what was logged: the sum lives only in the view the checks read
(`summed_view`), and the diagnosis names it in a note.
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
from lossforensics.classifiers.run import RunSeries

# the parts of a detection loss Ultralytics logs: box regression, objectness (YOLOv5), class,
# distribution focal (YOLOv8 on), mask, keypoints and keypoint objectness, and the residual
# log-likelihood of its newer pose heads
PARTS = frozenset({"box", "obj", "cls", "dfl", "seg", "pose", "kobj", "rle"})
_PART = re.compile(r"(?P<prefix>.*?)(?P<part>[a-z]+)_loss")
# the roles whose parts are summed: the training and the validation loss
SUMMED_ROLES = ("train_loss", "val_loss")
# a sum needs two parts: one part alone is the loss as logged
_MIN_PARTS = 2


def parts_of(names: list[str]) -> tuple[str, list[str]] | None:
    """(prefix, names) when every name is `<prefix><part>_loss` with one shared prefix and a
    part from PARTS, at least two of them; None otherwise."""
    prefixes = set()
    for name in names:
        m = _PART.fullmatch(name)
        if m is None or m["part"] not in PARTS:
            return None
        prefixes.add(m["prefix"])
    if len(prefixes) != 1 or len(names) < _MIN_PARTS:
        return None
    return prefixes.pop(), sorted(names)


def summed_name(prefix: str, names: list[str]) -> str:
    """The sum's name: the prefix once, then the parts joined by '+'."""
    return prefix + "+".join(n[len(prefix) :] for n in names)


def _sum_rows(frame: pd.DataFrame, role: str, names: list[str], name: str) -> pd.DataFrame:
    """One row per logged (session, step) that holds every part: their sum, at the source
    position of the last part written (so restarts and repeated steps keep their order)."""
    rows = frame[frame["metric"].isin(names) & (frame["role"] == role)]
    keys = ["segment", "step"]
    counts = rows.groupby(keys, sort=False)["metric"].nunique()
    whole = counts[counts == len(names)].index
    rows = rows.set_index(keys).loc[whole].reset_index()
    # each (session, step) row of each part once: the last write of a repeated step
    rows = rows.sort_values("seq", kind="stable").drop_duplicates([*keys, "metric"], keep="last")
    rows = rows.assign(missing=rows["value"].isna())
    out = (
        rows.groupby(keys, sort=False)
        .agg(
            value=("value", "sum"),
            missing=("missing", "any"),
            seq=("seq", "max"),
            wall_time=("wall_time", "max"),
            run=("run", "first"),
        )
        .reset_index()
    )
    # a NaN part makes the sum NaN (pandas' sum would skip it); an inf one is kept by the sum
    out.loc[out["missing"], "value"] = np.nan
    out["metric"] = name
    out["role"] = role
    return out[list(frame.columns)]


def summed_view(run: RunSeries) -> tuple[RunSeries, list[str]] | None:
    """The run with each summed role's primary the sum of its parts, and the notes that say so;
    None when no role logs its loss only as parts (most runs: read on names alone)."""
    found = {}
    for role in SUMMED_ROLES:
        parts = parts_of(run.metrics(role))
        if parts is not None:
            found[role] = parts
    if not found:
        return None
    frame = run.frame
    added = [
        _sum_rows(frame, role, names, summed_name(prefix, names))
        for role, (prefix, names) in found.items()
    ]
    added = [a for a in added if len(a)]
    if not added:
        return None
    merged = pd.concat(
        [frame, *(a.astype(frame.dtypes.to_dict()) for a in added)], ignore_index=True
    )
    merged = merged.sort_values("seq", kind="stable").reset_index(drop=True)
    view = RunSeries(merged, in_order=True)
    ranked = dict(view._by_role)
    notes = []
    for a in added:
        role, name = str(a["role"].iloc[0]), str(a["metric"].iloc[0])
        ranked[role] = [name, *(n for n in ranked[role] if n != name)]
        notes.append(
            f"the {role.replace('_', ' ')} is logged only as its parts: the checks read their "
            f"sum, {name} (the loss the trainer minimises)"
        )
    view.__dict__["_by_role"] = ranked  # `_by_role`, ranked anew: the sum first
    return view, notes
