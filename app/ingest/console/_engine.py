"""Records -> points, with the step axis chosen once per file, after reading: the logged
step/iteration when there is one (a step that starts again at each new epoch is a batch
counter); else epoch x batches-per-epoch + batch (the epoch's length as printed beside the
batch, `[1][ 10/196]`, counting epochs from the style's first; else the largest batch + 1);
else the epoch (a metric printed several times within one epoch gets consecutive sub-steps).
The counters of the records that hold a loss decide (a banner's stray `[batch:256]` sets no
axis); in a log with no loss, any record's.
A line with an epoch and no step or batch in a log of step or batch lines (`[Epoch 1] Loss:
0.21` after `[Epoch 1 | Step 111/111] Loss: 0.26`) is the epoch's summary: its training values
are their own series, `epoch/<name>` (a held-out metric or a learning rate printed only there
keeps its name; such a line printed before its epoch's batch lines, `Epoch [2/15] | LR: ..`,
sits at the epoch's start). Reading lines into records is `_parser`'s job; a
record's metric values are kept as logged, but for a log with no loss whose perplexity is read
as its log, the loss (`_perplexity`).
"""

from __future__ import annotations

import fnmatch
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pandas as pd
from lossforensics.classifiers.roles import errors_as_losses, infer_role, is_bare_split
from lossforensics.ingest._steps import counts_within_epoch
from lossforensics.ingest.console._columns import is_constant, release_freed_memory
from lossforensics.ingest.console._parser import REC_FIELDS as _REC_FIELDS
from lossforensics.ingest.console._parser import Parsed, Parser
from lossforensics.ingest.console._perplexity import PERPLEXITY_NOTE, perplexity_as_loss
from lossforensics.ingest.console._plan import EVAL, TRAIN
from lossforensics.ingest.console._repeats import not_echoed, not_repeated
from lossforensics.ingest.console._rounded import spread_rounded
from lossforensics.ingest.console._run_field import names_a_run_field, split_by_run_field
from lossforensics.ingest.console._style import Style

LOSS_ROLES = ("train_loss", "val_loss")
MIN_LOSS_POINTS = 2  # a single loss-like number is a coincidence, not a series
# a metric named by its split alone is a score when at least half its lines print a loss too
_BESIDE_A_LOSS = 0.5
NARROW_BLOCK = 16  # points in a block up to which placing them compares neighbours
RELEASE_AFTER_POINTS = 1 << 20  # chunks this many points held are worth handing back at once

__all__ = ["Parsed", "Parser", "Points", "loss_points", "to_points"]


# ---------------------------------------------------------------------- points


@dataclass
class Points:
    """The parsed text as long arrays, with the step axis chosen."""

    run: np.ndarray
    metric: np.ndarray
    step: np.ndarray
    value: np.ndarray
    wall: np.ndarray
    segment: np.ndarray
    names: list[str]
    runs: list[str]
    axis: str
    roles: dict[str, str]
    notes: tuple[str, ...] = ()  # how the reading changed what was printed, for the warnings


def _cat(parts: list[np.ndarray] | None, dtype: type) -> np.ndarray:
    """The chunks as one array (a view of one value when every chunk is that value); the list
    then holds only it (the chunks are freed)."""
    if not parts:
        return np.empty(0, dtype=dtype)
    if len(parts) > 1:
        first = parts[0][:1]
        bits = f"u{first.itemsize}"
        if all(is_constant(p) or len(p) == 1 for p in parts) and all(
            p[:1].view(bits)[0] == first.view(bits)[0] for p in parts
        ):
            parts[:] = [np.broadcast_to(first, (sum(map(len, parts)),))]
        else:
            parts[:] = [np.concatenate(parts)]
    return parts[0]


def _take(column: np.ndarray, at: np.ndarray) -> np.ndarray:
    """column[at], kept a view of one value when the column is one."""
    if is_constant(column) or (len(column) == 1 and len(at) > 1):
        return np.broadcast_to(column[:1], (len(at),))
    return column[at]


def to_points(parsed: Parsed, *, chosen: bool = False) -> Points:
    """The points of a parsed text; `chosen` when its style was chosen to read it (a log with
    no training line then takes its epoch summaries as its training curve)."""
    rec = {k: _cat(parsed.rec.get(k), t) for k, t in _REC_FIELDS.items()}
    count = rec["points"]
    p_rec = (
        np.repeat(np.arange(len(count)), count)
        if not is_constant(count)
        else np.repeat(np.arange(len(count)), int(count[0]))
    )
    p_key = _cat(parsed.pts.get("key"), np.int32)
    p_val = _cat(parsed.pts.get("val"), np.float64)
    heads: np.ndarray | None = None  # each record's first point, when every record has one
    if len(count) and int(count.min()) > 0:
        heads = np.cumsum(count) - count
    names = parsed.key_names()
    if parsed.style.later_bars_eval and len(p_rec):
        p_key, names = _later_bars_as_evaluation(rec, p_rec, p_key, names, parsed.style)
    if parsed.style.carried and len(p_rec):
        fresh = _not_carried(_take(rec["run"], p_rec), p_key, p_val, names)
        p_rec, p_key, p_val = p_rec[fresh], p_key[fresh], p_val[fresh]
        heads = None  # a record may have lost its points
    if parsed.style.last_in_epoch and len(p_rec):
        last = _last_in_epoch(rec["epoch"], rec["run"], p_rec, p_key)
        p_rec, p_key, p_val = p_rec[last], p_key[last], p_val[last]
        heads = None
    if parsed.style.eval_last and len(p_rec):
        last = _last_of_evaluation(rec["kind"], rec["run"], p_rec, p_key)
        p_rec, p_key, p_val = p_rec[last], p_key[last], p_val[last]
        heads = None
    if parsed.style.repeated_round and len(p_rec):
        fresh = not_repeated(rec["step"], rec["run"], p_rec, p_key, p_val)
        p_rec, p_key, p_val = p_rec[fresh], p_key[fresh], p_val[fresh]
        heads = None
    echoes = 0
    if parsed.style.echoes and len(p_rec):
        fresh = not_echoed(rec, p_rec, p_key, p_val)
        if not fresh.all():
            echoes = len(np.unique(p_rec[~fresh]))
            p_rec, p_key, p_val = p_rec[fresh], p_key[fresh], p_val[fresh]
            heads = None
    if len(p_val) >= RELEASE_AFTER_POINTS:
        release_freed_memory()  # the chunks joined above
    runs = parsed.runs
    split = None
    if names_a_run_field(names):
        lossy = _loss_records(len(count), p_rec, p_key, names, _roles(parsed.style, names))
        split = split_by_run_field(rec["run"], p_rec, p_key, p_val, names, runs, lossy)
    if split is not None:  # `Run: 02, Epoch: 01, ..`: a run of its own
        rec["run"], keep, runs = split
        p_rec, p_key, p_val = p_rec[keep], p_key[keep], p_val[keep]
        heads = None
    step, axis, p_key, names = _steps(rec, p_rec, p_key, names, parsed.style)
    roles = _roles(parsed.style, names)
    if chosen:
        roles = _summaries_as_training(parsed.style, names, roles)
    roles = _bare_splits_beside_a_loss(roles, names, p_rec, p_key)
    before = names
    names, roles, p_val = perplexity_as_loss(names, roles, p_key, p_val, parsed.style.prefix_eval)
    notes: tuple[str, ...] = () if names is before else (PERPLEXITY_NOTE,)
    if echoes:
        notes += (
            f"{echoes} line(s) printed again right after themselves (a logger's line and "
            "its echo) read once",
        )
    run = _take(rec["run"], p_rec)
    wall = _take(rec["wall"], p_rec)
    # the training loss's steps decide where a session restarts: a validation loop that
    # counts its own batches (`Iteration[1/10] Val_Loss: ..` after the epoch's `[29/29]`) is
    # no step back; in a log with no training loss, any loss's
    lossy = _loss_records(len(rec["points"]), p_rec, p_key, names, roles, ("train_loss",))
    if not lossy.any():
        lossy = _loss_records(len(rec["points"]), p_rec, p_key, names, roles)
    segment = _take(_segments(rec, step, p_rec, heads, lossy), p_rec)
    return Points(
        run=run,
        metric=p_key,
        step=step,
        value=p_val,
        wall=wall,
        segment=segment,
        names=names,
        runs=runs,
        axis=axis,
        roles=roles,
        notes=notes,
    )


def _bare_splits_beside_a_loss(
    roles: dict[str, str], names: list[str], p_rec: np.ndarray, p_key: np.ndarray
) -> dict[str, str]:
    """`roles` with each metric named by its split alone (`Train`, `Val`, `Test`) a score
    when at least half its lines also print a loss under a name of its own: PyTorch
    Geometric's examples print `Epoch: 010, Loss: 0.52, Train: 0.95, Val: 0.78, Test: 0.80`,
    the loss and then each split's accuracy. Alone on their line (nanoGPT's `train 3.45 val
    3.43`) the bare names are the splits' losses."""
    is_bare = [is_bare_split(n) for n in names]
    bare = [c for c, n in enumerate(names) if is_bare[c] and n not in roles]
    if not bare or not len(p_rec):
        return roles
    named_loss = np.array(
        [not b and role_of(roles, n) in LOSS_ROLES for n, b in zip(names, is_bare, strict=True)],
        dtype=bool,
    )
    if not named_loss.any():
        return roles
    has_loss = np.bincount(p_rec, weights=named_loss[p_key]) > 0
    out = dict(roles)
    for c in bare:
        recs = p_rec[p_key == c]
        if len(recs) and has_loss[recs].mean() >= _BESIDE_A_LOSS:
            out[names[c]] = "train_score" if infer_role(names[c]) == "train_loss" else "val_score"
    return out


def _later_bars_as_evaluation(
    rec: dict[str, np.ndarray],
    p_rec: np.ndarray,
    p_key: np.ndarray,
    names: list[str],
    style: Style,
) -> tuple[np.ndarray, list[str]]:
    """The records of each epoch from where its batch count starts again (or its printed length
    changes) made evaluation records (`Style.later_bars_eval`): their kind is EVAL, their batch
    unset (they are placed at the epoch's last training step) and their points renamed under
    `style.prefix_eval`. `rec` is changed in place; returns the points' metric codes and the
    names."""
    n = len(rec["points"])
    epoch, run = (np.broadcast_to(rec[k], (n,)) for k in ("epoch", "run"))
    batch, batches = (np.array(np.broadcast_to(rec[k], (n,))) for k in ("batch", "batches"))
    at = np.flatnonzero(batch >= 0)  # the bar lines; other records are never an evaluation
    if len(at) < 2:
        return p_key, names
    b, t = batch[at], batches[at]
    same_epoch = (epoch[at][1:] == epoch[at][:-1]) & (run[at][1:] == run[at][:-1])
    restarts = same_epoch & ((b[1:] <= b[:-1]) | (t[1:] != t[:-1]))
    opens = np.r_[True, ~same_epoch]  # the first bar line of each epoch
    bar = np.cumsum(np.r_[False, restarts])  # bars so far, counted across the whole log
    first_bar = np.maximum.accumulate(np.where(opens, bar, 0))  # the epoch's first bar
    later = np.zeros(n, dtype=bool)
    later[at[bar > first_bar]] = True
    if not later.any():
        return p_key, names
    kind = np.array(np.broadcast_to(rec["kind"], (n,)))
    kind[later] = EVAL
    batch[later] = -1
    batches[later] = -1
    rec["kind"], rec["batch"], rec["batches"] = kind, batch, batches
    moved = later[p_rec]
    code = {name: c for c, name in enumerate(names)}
    names = list(names)
    new_code = np.arange(len(names), dtype=np.int32)
    for k in np.unique(p_key[moved]):
        name = f"{style.prefix_eval}{names[k]}"
        if name not in code:
            code[name] = len(names)
            names.append(name)
        new_code[k] = code[name]
    p_key = p_key.copy()
    p_key[moved] = new_code[p_key[moved]]
    return p_key, names


def _not_carried(run: np.ndarray, key: np.ndarray, val: np.ndarray, names: list[str]) -> np.ndarray:
    """False for a point whose value is its metric's previous value in the same run: a redrawn
    bar carries its postfix over until the value is updated. A metric that shows one value at
    every redraw keeps them all: its carries cannot be told from its readings, and a loss
    stuck at one printed value (`train_loss=4.600` over a whole epoch's bar) is the finding.
    A learning rate keeps them too: the script sets it on every bar (`LR=1.00e-04` for fifty
    epochs, then a step down), and a schedule's flat stretches are its course."""
    frame = pd.DataFrame({"run": run, "key": key, "val": val})
    groups = frame.groupby(["run", "key"], sort=False)["val"]
    before = groups.shift()
    constant = (groups.transform("nunique") == 1).to_numpy()
    is_lr = np.array([infer_role(n) == "lr" for n in names] or [False])
    return ~(before.to_numpy() == val) | constant | is_lr[key]


def _last_in_epoch(
    epoch: np.ndarray, run: np.ndarray, p_rec: np.ndarray, key: np.ndarray
) -> np.ndarray:
    """False for a point whose metric is printed again later in the same row of records of one
    epoch (a bar's redraw left on its own line); records without an epoch keep every point."""
    epoch = np.broadcast_to(epoch, run.shape) if is_constant(epoch) else epoch
    block = np.r_[0, np.cumsum((np.diff(epoch) != 0) | (np.diff(run) != 0))]
    frame = pd.DataFrame({"block": block[p_rec], "key": key})
    return ~frame.duplicated(keep="last").to_numpy() | (epoch[p_rec] < 0)


def _last_of_evaluation(
    kind: np.ndarray, run: np.ndarray, p_rec: np.ndarray, key: np.ndarray
) -> np.ndarray:
    """False for an evaluation point whose metric is printed again later in the same row of
    evaluation records (an evaluation printed batch by batch); other points are kept."""
    kind = np.broadcast_to(kind, run.shape) if is_constant(kind) else kind
    is_eval = kind == EVAL
    block = np.r_[0, np.cumsum((np.diff(is_eval) != 0) | (np.diff(run) != 0))]
    frame = pd.DataFrame({"block": block[p_rec], "key": key})
    return ~frame.duplicated(keep="last").to_numpy() | ~is_eval[p_rec]


def _ffill(values: np.ndarray, groups: np.ndarray) -> np.ndarray:
    """Missing (-1) entries take the last value before them in the same group (else 0)."""
    if (values >= 0).all():
        return values
    if is_constant(groups) or len(groups) < 2:  # one group: the last index with a value
        seen = np.where(values >= 0, np.arange(len(values)), -1)
        np.maximum.accumulate(seen, out=seen)
        return np.where(seen >= 0, values[np.maximum(seen, 0)], 0).astype(np.int64)
    s = pd.Series(np.where(values >= 0, values, np.nan))
    return s.groupby(groups).ffill().fillna(0).to_numpy(dtype=np.int64)


def _steps(
    rec: dict[str, np.ndarray],
    p_rec: np.ndarray,
    p_key: np.ndarray,
    names: list[str],
    style: Style,
) -> tuple[np.ndarray, str, np.ndarray, list[str]]:
    """Per point: the step, a phrase saying which axis it is, each point's metric code and the
    metric names (epoch-end train lines of a batch- or step-level log are renamed `epoch/...` so
    they do not mix with the batches; evaluation lines already carry their split's name, and so
    does a held-out metric printed only on the epoch-end lines)."""
    if not len(p_rec):
        return np.empty(0, np.int64), "none", p_key, names
    epoch, step, batch, run = rec["epoch"], rec["step"], rec["batch"], rec["run"]
    roles = _roles(style, names)
    if _counts_within_epoch(epoch, step, batch, run, _trained(rec, p_rec, p_key, names, roles)):
        step, batch = np.full(len(step), -1, dtype=np.int64), step  # read as a batch counter
    lossy = _loss_records(len(step), p_rec, p_key, names, roles)
    if _counted(step, lossy):
        if style.rounded_steps:
            step = spread_rounded(step, run)
        epoch_level = (step < 0) & (epoch >= 0) & (rec["kind"] != EVAL)
        if epoch_level.any():  # `[Epoch 1] Loss: 0.21` after `[Epoch 1 | Step 10/111] Loss: ..`
            p_key, names = _epoch_lines_apart(p_key, epoch_level[p_rec], names)
        return _ffill(step, run)[p_rec], "the logged step/iteration", p_key, names
    if _counted(batch, lossy):
        per_epoch, first_epoch, axis = _epoch_length(epoch, batch, rec["batches"], style)
        ep = np.maximum(epoch - first_epoch, 0)
        end_of_epoch = batch < 0
        # the epoch's last batch: its length, less one where the batches count from 0
        last = per_epoch - (1 if int(batch[batch >= 0].min()) == 0 else 0)
        s = np.where(end_of_epoch, ep * per_epoch + last, ep * per_epoch + batch)
        s = np.where(_opens_its_epoch(end_of_epoch, epoch, run), ep * per_epoch, s)
        s = _eval_at_last_train(s, rec)
        at_end = end_of_epoch[p_rec] & (rec["kind"][p_rec] != EVAL)  # eval keeps its split
        p_key, names = _epoch_lines_apart(p_key, at_end, names)
        return s[p_rec], axis, p_key, names
    if (epoch >= 0).any():
        ep = _ffill(epoch, run)
        block = np.r_[0, np.cumsum((np.diff(ep) != 0) | (np.diff(run) != 0))]
        sub, per = _place_in_block(block[p_rec], p_key)
        del block
        if per == 1:
            return ep[p_rec], "the epoch", p_key, names
        sub += ep[p_rec] * per
        axis = f"epoch x {per} + the line's place within the epoch"
        return sub, axis, p_key, names
    # a line before the first train line (an evaluation a pasted window opens on) keeps a
    # place of its own, 0, before it: at the first train's place, the next evaluation's
    # would overwrite it
    trains = np.cumsum(rec["kind"] == TRAIN)
    ordinal = trains - 1 + int(len(trains) > 0 and trains[0] == 0)
    axis = "the order of the train lines (no step, iteration or epoch)"
    return ordinal[p_rec], axis, p_key, names


def _opens_its_epoch(end_of_epoch: np.ndarray, epoch: np.ndarray, run: np.ndarray) -> np.ndarray:
    """Per record: an epoch-level line printed before its epoch's batch lines (`Epoch [2/15] |
    LR: 9.9e-05` heading them): it holds the epoch's settings, not its summary, and is placed at
    the epoch's start (at its end, every batch line after it would step back, a new session)."""
    in_batches = ~end_of_epoch & (epoch >= 0)
    if not in_batches.any() or not end_of_epoch.any():
        return np.zeros(len(epoch), dtype=bool)
    pos = np.arange(len(epoch), dtype=np.int64)
    none = np.iinfo(np.int64).max
    first = (
        pd.Series(np.where(in_batches, pos, none)).groupby([run, epoch]).transform("min").to_numpy()
    )
    return end_of_epoch & (epoch >= 0) & (pos < first) & (first < none)


def _epoch_length(
    epoch: np.ndarray, batch: np.ndarray, batches: np.ndarray, style: Style
) -> tuple[int, int, str]:
    """The batches an epoch holds, the number of the first epoch (`Style.first_epoch`, else 0
    when an epoch 0 is logged or none above it, else 1: a log of epochs 1, 2, ... starts where
    its run started, at step 0) and the axis's phrase. The length printed beside the batch
    (`[1][ 10/196]`) is the length, unless a batch past it shows it counts from 0 to the total
    (`[161/161]`); else the largest batch logged + 1."""
    first_batch, last_batch = int(batch[batch >= 0].min()), int(batch.max())
    counted = last_batch + 1 if first_batch == 0 else last_batch
    first_epoch = style.first_epoch
    if first_epoch is None:
        first_epoch = 0 if (epoch == 0).any() or not (epoch > 0).any() else 1
    where = "from 0" if first_epoch == 0 else "from 1"
    if (batches > 0).any():
        per_epoch = max(int(batches.max()), counted)
        axis = f"(epoch, counted {where}) x {per_epoch} + batch (batches per epoch as printed)"
        return per_epoch, first_epoch, axis
    per_epoch = last_batch + 1
    axis = (
        f"(epoch, counted {where}) x {per_epoch} + batch (batches per epoch taken as the "
        "largest logged + 1)"
    )
    return per_epoch, first_epoch, axis


def _epoch_lines_apart(
    p_key: np.ndarray, at_end: np.ndarray, names: list[str]
) -> tuple[np.ndarray, list[str]]:
    """The points of epoch-level lines (`at_end`) in a log of batch or step lines renamed
    `epoch/<name>`: an epoch's average is not one more batch of the batch series, and a second
    training curve beside it. A held-out metric printed only there keeps its name."""
    at_end = at_end & ~_kept_names_at_end(p_key, at_end, names)
    if not at_end.any():
        return p_key, names
    epoch_keys = np.unique(p_key[at_end])
    p_key = p_key.copy()
    new_code = np.full(len(names), -1, dtype=np.int32)
    new_code[epoch_keys] = len(names) + np.arange(len(epoch_keys), dtype=np.int32)
    p_key[at_end] = new_code[p_key[at_end]]  # epoch-end lines: their own series
    return p_key, [*names, *(f"epoch/{names[k]}" for k in epoch_keys)]


def _kept_names_at_end(p_key: np.ndarray, at_end: np.ndarray, names: list[str]) -> np.ndarray:
    """Per point: whether its metric names a held-out split (`Validation Loss`, `test_acc`), a
    learning rate or a training score, and is printed only on epoch-level lines (`Epoch: 3
    Training Loss: 0.9  Validation Loss: 1.1` after the batch lines, `Epoch [2/15] | LR:
    9.9e-05` before them, CS231n's `(Epoch 1 / 10) train acc: 0.45; val_acc: 0.42` after its
    iterations' losses): the evaluation, the epoch's rate, or a score measured once an epoch,
    with no batch-level series to keep apart from (a training loss printed there is the epoch's
    average, a second curve of the batches' loss)."""
    held_out = np.asarray(
        [
            (role := infer_role(n)).startswith("val_") or role in ("lr", "train_score")
            for n in names
        ],
        dtype=bool,
    )
    held_out[np.unique(p_key[~at_end])] = False
    return held_out[p_key]


def _loss_records(
    n: int,
    p_rec: np.ndarray,
    p_key: np.ndarray,
    names: list[str],
    roles: dict[str, str],
    wanted: tuple[str, ...] = LOSS_ROLES,
) -> np.ndarray:
    """Per record: whether it holds a loss (`role_of` its name is one of the `wanted` roles)."""
    lossy_name = np.array([role_of(roles, name) in wanted for name in names], dtype=bool)
    lossy = np.zeros(n, dtype=bool)
    lossy[p_rec[lossy_name[p_key]]] = True
    return lossy


def _counted(counter: np.ndarray, lossy: np.ndarray) -> bool:
    """Whether the log counts its records with `counter`: a record holding a loss prints it
    (a stray counter on a line of other numbers, `[Training][batch:256][input:128]` above a
    log of epoch lines, sets no axis), or, in a log with no loss, any record does. A counter
    that every such record prints with one same value (`iter:0/18` on each epoch's one line)
    counts nothing."""
    counted = counter >= 0
    among = lossy if lossy.any() else np.ones(len(counter), dtype=bool)
    rows = counted & among
    if not rows.any():
        return False
    values = counter[rows]
    return bool(values.min() != values.max() or not rows[among].all())


def _trained(
    rec: dict[str, np.ndarray],
    p_rec: np.ndarray,
    p_key: np.ndarray,
    names: list[str],
    roles: dict[str, str],
) -> Callable[[], np.ndarray]:
    """The records a counter is judged on, computed only when asked: those that hold a
    training loss, when there are any (a validation loop that counts its own batches within
    the epoch, `Iteration[1/10] Val_Loss: ..`, is no other axis); else every record."""

    def records() -> np.ndarray:
        n = len(rec["points"])
        trained = _loss_records(n, p_rec, p_key, names, roles, ("train_loss",))
        return trained if trained.any() else np.ones(n, dtype=bool)

    return records


def _counts_within_epoch(
    epoch: np.ndarray,
    step: np.ndarray,
    batch: np.ndarray,
    run: np.ndarray,
    judged: Callable[[], np.ndarray],
) -> bool:
    """Whether the logged step counts within each epoch (`_steps.counts_within_epoch`, read on
    the `judged` records), with no batch counter of its own: then it is the batch counter."""
    if not (epoch >= 0).any() or not (step >= 0).any() or (batch >= 0).any():
        return False
    on = judged()
    if not on.all():
        epoch, step, run = epoch[on], step[on], run[on]
    return counts_within_epoch(_ffill(epoch, run), _ffill(step, run), run)


def _place_in_block(block: np.ndarray, key: np.ndarray) -> tuple[np.ndarray, int]:
    """Per point: its place among the points of its metric in its block (0, 1, ...), or
    per - 1 when it is the only one; and per, the most points of one metric in one block.
    Blocks never decrease along the points, so a block's points are consecutive: in narrow
    blocks (an epoch's line or two) the points before and after each one are compared directly;
    otherwise sorting by metric (stable) makes each (metric, block) a run of consecutive
    entries."""
    edges = np.flatnonzero(np.r_[True, block[1:] != block[:-1], True])
    widest = int(np.diff(edges).max()) if len(key) else 0
    if widest <= NARROW_BLOCK:
        before = np.zeros(len(key), dtype=np.int8)  # same metric earlier in the block
        after = np.zeros(len(key), dtype=np.int8)
        for d in range(1, widest):
            same = (key[d:] == key[:-d]) & (block[d:] == block[:-d])
            before[d:] += same
            after[:-d] += same
        count = before + after + 1
        per = int(count.max()) if len(key) else 1
        return np.where(count > 1, before, per - 1).astype(np.int64), per
    order = np.argsort(key, kind="stable")
    b = block[order]
    new = b[1:] != b[:-1]
    del b
    k = key[order]
    new |= k[1:] != k[:-1]
    del k
    starts = np.flatnonzero(np.r_[True, new])
    del new
    sizes = np.diff(np.r_[starts, len(order)])
    per = int(sizes.max())
    sub = np.arange(len(order), dtype=np.int64)
    sub -= np.repeat(starts, sizes)
    sub[np.repeat(sizes == 1, sizes)] = per - 1
    out = np.empty(len(order), dtype=np.int64)
    out[order] = sub
    return out, per


def _eval_at_last_train(s: np.ndarray, rec: dict[str, np.ndarray]) -> np.ndarray:
    """Evaluation lines count their own batches: they are placed at the last train step."""
    is_eval = rec["kind"] == EVAL
    if not is_eval.any():
        return s
    train_s = pd.Series(np.where(is_eval, np.nan, s)).groupby(rec["run"]).ffill().fillna(0)
    return np.where(is_eval, train_s.to_numpy(dtype=np.int64), s)


def _segments(
    rec: dict[str, np.ndarray],
    step: np.ndarray,
    p_rec: np.ndarray,
    heads: np.ndarray | None,
    lossy: np.ndarray,
) -> np.ndarray:
    """Per record: the session it belongs to: +1 at a restart header, and +1 where the train
    step goes back between records that hold a loss (`lossy`; in a log with no loss, any
    record): a summary line's step (`Best validation AUC: 0.898 at epoch 30` after epoch 45)
    restarts nothing. `heads`: each record's first point, when every record has one."""
    n = len(rec["points"])
    if heads is not None:
        first = step[heads]  # the step of each record's first point
    else:
        first = np.full(n, -1, dtype=np.int64)  # (-1: the record has no point left)
    if heads is None and len(p_rec):
        head = np.flatnonzero(np.r_[True, p_rec[1:] != p_rec[:-1]])  # p_rec is sorted
        first[p_rec[head]] = step[head]
        del head
    counted = (rec["kind"] == TRAIN) & (first >= 0)
    if (counted & lossy).any():
        counted &= lossy
    idx = np.flatnonzero(counted)
    if len(idx) < 2:
        return rec["segment"]
    first = first[idx]
    went_back = first[1:] < first[:-1]
    del first
    went_back &= _take(rec["run"], idx[1:]) == _take(rec["run"], idx[:-1])
    if not went_back.any():
        return rec["segment"]
    back = np.zeros(n, dtype=np.int64)
    back[idx[1:][went_back]] = 1
    del idx, went_back
    if is_constant(rec["run"]):
        np.cumsum(back, out=back)
    else:
        back = pd.Series(back).groupby(rec["run"]).cumsum().to_numpy()
    return back + rec["segment"]


def _roles(style: Style, names: list[str]) -> dict[str, str]:
    """The style's role hints, matched against the metric names (exact or glob)."""
    out: dict[str, str] = {}
    for name in names:
        bare = name.split("/", 1)[1] if name.startswith("epoch/") else name
        for pattern, role in style.roles.items():
            if fnmatch.fnmatchcase(bare, pattern):
                if name.startswith(("epoch/", "summary/")):
                    role = "other"
                elif role == "train_loss" and name != bare:
                    role = "other"
                out[name] = role
                break
        else:
            if name.startswith(("epoch/", "summary/")):
                out[name] = "other"
    if style.needs_counter:
        # a log that names no loss but its objective (a bare `total`, an `mse`) is read as every
        # other reader's frame reads it (roles.errors_as_losses); a text with no counter is too
        # loose for it: a `total: 5` there is no evidence of training
        inferred = [out.get(name) or infer_role(name) for name in names]
        promoted = errors_as_losses(names, inferred)
        for name, before, after in zip(names, inferred, promoted, strict=True):
            if after != before:
                out[name] = after
    return out


def _summaries_as_training(style: Style, names: list[str], roles: dict[str, str]) -> dict[str, str]:
    """`roles` with the epoch summaries of a log that prints no training line (fairseq's `|
    epoch 012 | loss 4.102 | .. | gnorm 0.612 |` alone) as its training curve, each metric in
    its own role. Applied to the style chosen, not while choosing: a style that reads only
    summaries must not win a log another style reads line by line."""
    summaries = [n for n in names if n.startswith("summary/")]
    if not summaries:
        return roles
    if any(
        role_of(roles, n) == "train_loss" for n in names if not n.startswith(("summary/", "epoch/"))
    ):
        return _summary_rates_and_norms(style, names, roles, summaries)
    out = dict(roles)
    for name in summaries:
        out[name] = _hinted_role(style, name.split("/", 1)[1])
    return out


# the roles an epoch's summary still gives when nothing else logs them: the learning rate an
# epoch ran at and its gradient norm are no average to keep apart from a per-step curve
_SUMMARY_ROLES = ("lr", "grad_norm")


def _summary_rates_and_norms(
    style: Style, names: list[str], roles: dict[str, str], summaries: list[str]
) -> dict[str, str]:
    """`roles` with the summaries' learning rate and gradient norm in their roles, each where no
    line but a summary logs one (old fairseq prints `| epoch 001 | train loss 740.61 | .. | lr
    0.33 | clip 100% | gnorm 918.19` and nothing per update: over_clipping and the LR checks
    read them)."""
    out = dict(roles)
    for role in _SUMMARY_ROLES:
        if any(
            role_of(roles, n) == role for n in names if not n.startswith(("summary/", "epoch/"))
        ):
            continue
        for name in summaries:
            if _hinted_role(style, name.split("/", 1)[1]) == role:
                out[name] = role
    return out


def _hinted_role(style: Style, bare: str) -> str:
    """The role of a metric's bare name: the style's first hint that matches it (exact or
    glob), else the general inference."""
    return next(
        (r for p, r in style.roles.items() if fnmatch.fnmatchcase(bare, p)), infer_role(bare)
    )


def role_of(roles: dict[str, str], name: str) -> str:
    """A metric's role: the style's hint (`roles`, from `_roles`), else the general inference."""
    return roles.get(name) or infer_role(name)


def loss_points(points: Points) -> int:
    """How many points belong to a loss-like series (a train or val loss, by the style's hints
    or the general inference) with at least MIN_LOSS_POINTS points."""
    if not len(points.metric):
        return 0
    counts = np.bincount(points.metric, minlength=len(points.names))
    total = 0
    for code, name in enumerate(points.names):
        if role_of(points.roles, name) in LOSS_ROLES and counts[code] >= MIN_LOSS_POINTS:
            total += int(counts[code])
    return total
