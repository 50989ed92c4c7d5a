"""The loss a detector optimises, from the parts it logs.

Ultralytics (YOLOv5 to YOLO11) writes its loss only as parts: `train/box_loss`,
`train/obj_loss` or `train/dfl_loss`, `train/cls_loss` (and `seg_loss`, `pose_loss`, `kobj_loss`,
`angle_loss` for those tasks; YOLOv10's two heads `train/box_om`, `train/box_oo`, ...), each
already multiplied by its gain, and the same `val/` parts, in its `results.csv`, the validation
columns of YOLOv5's and YOLOv7's `results.txt` and its event files; the loss it optimises is
their sum. Judged alone, one part misleads: the box part can fall while the objectness part,
five times its size, climbs. So each split's parts are summed per row into `train/loss` and
`val/loss` (a NaN or inf in a part makes the sum one: that is the loss the run took), and a
warning says the sum is read, not logged. Parts that are 0 at every row (a fork that computes
no validation loss) sum to nothing to read: no sum is added. A part that is 0 at every row of
one split only (a detector trained on images without a single box: `train/box_loss` and
`train/dfl_loss` 0 for fifty epochs while their validation parts are not) is left out of both
sums, and the warning says so: the training and validation sums must be the same quantity to be
compared, and the one part left is then the loss of each.
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
from lossforensics.classifiers.frame import validate_frame
from lossforensics.ingest.base import IngestResult, ReadWarning

# one logged part of a detector's loss under its split's prefix: `train/box_loss`,
# `val/dfl_loss`, YOLOv10's one-to-many and one-to-one heads `train/box_om`, `val/cls_oo`
_PART = re.compile(
    r"(?P<split>train|val)/(?P<part>(?:box|obj|cls|dfl|seg|pose|kobj|angle)_(?:loss|om|oo))"
)
# fewer parts than this is no sum to read: the one part is the loss
_MIN_PARTS = 2


def add_part_sums(result: IngestResult) -> None:
    """`with_part_sums` on a read result, its sentences added as warnings."""
    if result.frame.empty:
        return
    result.frame, said = with_part_sums(result.frame)
    where = result.files[0] if len(result.files) == 1 else None
    result.warnings.extend(ReadWarning(sentence, where) for sentence in said)


def with_part_sums(frame: pd.DataFrame) -> tuple[pd.DataFrame, list[str]]:
    """The frame with `train/loss` and `val/loss` added where the loss is logged only as parts
    (and no metric of that name exists), and a sentence per sum added."""
    names = {str(n) for n in frame["metric"].unique()}
    one_sided = _zero_on_one_side(frame, names)
    added, said = [], []
    for split, role in (("train", "train_loss"), ("val", "val_loss")):
        total = f"{split}/loss"
        of_split = sorted(n for n in names if (m := _PART.fullmatch(n)) and m["split"] == split)
        parts = [n for n in of_split if n.split("/", 1)[1] not in one_sided]
        if total in names or len(parts) < (1 if one_sided else _MIN_PARTS):
            continue
        rows = frame[frame["metric"].astype(str).isin(parts)].sort_values("seq", kind="stable")
        rows = rows.assign(run=rows["run"].astype(str), metric=rows["metric"].astype(str))
        rows = rows.drop_duplicates(["run", "step", "metric"], keep="last")
        wide = rows.pivot(index=["run", "step"], columns="metric", values="value")
        # a step where every part was written (a NaN written counts: it is the step's loss)
        logged = rows.pivot(index=["run", "step"], columns="metric", values="seq").notna()
        wide = wide[logged.reindex(columns=wide.columns).all(axis=1).to_numpy()]
        if wide.empty or not np.any(wide.to_numpy(np.float64)):
            continue
        last = rows.groupby(["run", "step"]).agg(
            seq=("seq", "max"), wall_time=("wall_time", "max"), segment=("segment", "max")
        )
        last = last.loc[wide.index]
        added.append(
            pd.DataFrame(
                {
                    "run": wide.index.get_level_values("run").astype(str),
                    "metric": total,
                    "role": role,
                    "step": wide.index.get_level_values("step").to_numpy(np.int64),
                    "value": wide.to_numpy(np.float64).sum(axis=1),
                    "wall_time": last["wall_time"].to_numpy(np.float64),
                    # just after the part written last at that step
                    "seq": last["seq"].to_numpy(np.float64) + 0.5,
                    "segment": last["segment"].to_numpy(np.int64),
                }
            )
        )
        shown = " + ".join(name.split("/", 1)[1] for name in parts)
        left_out = ""
        if one_sided:
            left_out = (
                f"; {', '.join(sorted(one_sided))} left out of both splits' sums: 0 at every "
                "row of one split, so the two sums would not be the same quantity"
            )
        said.append(
            f"{total} is read as the sum of the logged parts ({shown}), the loss optimised"
            + left_out
        )
    if not added:
        return frame, said
    return _with_sums(frame, added), said


def _zero_on_one_side(frame: pd.DataFrame, names: set[str]) -> set[str]:
    """The parts (`box_loss`) logged for both splits that are 0 at every row of one of them,
    where that split logs some other part that is not."""
    by_part: dict[str, dict[str, str]] = {}
    for n in names:
        if (m := _PART.fullmatch(n)) is not None:
            by_part.setdefault(m["part"], {})[m["split"]] = n
    shared = {part: splits for part, splits in by_part.items() if len(splits) == 2}
    if not shared:
        return set()
    names_of = {name for splits in shared.values() for name in splits.values()}
    rows = frame[frame["metric"].astype(str).isin(names_of)]
    zero = (rows["value"] == 0).groupby(rows["metric"].astype(str), observed=True).all()
    # a split whose every part is 0 logs no loss at all (a fork that computes no validation
    # loss): nothing there to compare, nothing to leave out
    if any(all(zero[p[s]] for p in shared.values()) for s in ("train", "val")):
        return set()
    return {part for part, splits in shared.items() if zero[splits["train"]] != zero[splits["val"]]}


def _with_sums(frame: pd.DataFrame, added: list[pd.DataFrame]) -> pd.DataFrame:
    """The frame with the sums' rows, each just after the part written last at its step."""
    out = pd.concat([frame.assign(seq=frame["seq"].astype(np.float64)), *added], ignore_index=True)
    out = out.sort_values("seq", kind="stable", ignore_index=True)
    out["seq"] = np.arange(len(out), dtype=np.int64)
    out["role"] = out["role"].astype(frame["role"].dtype)
    return validate_frame(out)
