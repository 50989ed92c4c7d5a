"""Label checks on the logged curves: does the run's log visibly show what was induced?

Each check reads only the `LoggedRun` (what the files hold) with simple, explicit rules written
for the corpus, independent of the project's classifiers. The generator keeps a run only when its
intended labels pass and no unintended check fires; a check returns False when the series it
needs was not logged.
"""

from __future__ import annotations

import numpy as np

from benchmarks.corpus.views import LoggedRun


def _finite(v: np.ndarray) -> np.ndarray:
    """The values before the first non-finite one."""
    bad = np.nonzero(~np.isfinite(v))[0]
    return v[: bad[0]] if len(bad) else v


def _seg(v: np.ndarray, lo: float, hi: float) -> float:
    n = len(v)
    a, b = int(lo * n), max(int(hi * n), int(lo * n) + 1)
    return float(np.median(v[a:b]))


def _train(run: LoggedRun) -> np.ndarray:
    return run.series("loss")[1]


def _val(run: LoggedRun) -> np.ndarray:
    return run.series("val_loss")[1]


def nan(run: LoggedRun) -> bool:
    """A loss (train or validation) or the gradient norm became NaN or infinite."""
    return any(not np.all(np.isfinite(run.series(k)[1])) for k in ("loss", "val_loss", "grad_norm"))


def exploding(run: LoggedRun) -> bool:
    """After its minimum the train loss climbs and stays far above it (>= 2x the minimum and
    back to >= 90% of the starting loss) over at least 3 logged points."""
    f = _finite(_train(run))
    if len(f) < 6:
        return False
    i = int(np.argmin(f))
    after = f[i + 1 :]
    if len(after) < 3:
        return False
    tail = after[-max(3, len(after) // 5) :]
    level = float(np.median(tail))
    return level >= 2 * max(f[i], 1e-6) and level >= 0.9 * f[0]


def plateau(run: LoggedRun) -> bool:
    """Flat over the second half of the run: the level moves < 3% (either way), loss finite."""
    f = _train(run)
    if len(f) < 8 or not np.all(np.isfinite(f)):
        return False
    mid, end = _seg(f, 0.4, 0.6), _seg(f, 0.85, 1.0)
    return abs(mid - end) / max(abs(mid), 1e-8) < 0.03


def _residual(f: np.ndarray, w: int) -> tuple[np.ndarray, np.ndarray]:
    """Rolling median trend (window w) and the residual around it."""
    pad = np.pad(f, w // 2, mode="edge")
    win = np.lib.stride_tricks.sliding_window_view(pad, w)[: len(f)]
    trend = np.median(win, axis=1)
    return trend, f - trend


def oscillating(run: LoggedRun) -> bool:
    """Large swings (median |residual| >= 8% of the level) around a trend that barely moves
    (< 30% between the first and last fifth)."""
    f = _train(run)
    if run.cadence != "step" or len(f) < 30 or not np.all(np.isfinite(f)):
        return False
    trend, res = _residual(f, max(9, len(f) // 8) | 1)
    level = np.median(np.abs(trend))
    swings = np.median(np.abs(res)) / max(level, 1e-8)
    move = abs(_seg(trend, 0, 0.2) - _seg(trend, 0.8, 1.0)) / max(_seg(trend, 0, 0.2), 1e-8)
    return swings >= 0.08 and move < 0.3


def loss_spikes(run: LoggedRun) -> bool:
    """At least 2 separate jumps to >= 1.5x the local median, by >= 25% of the run's starting
    loss, that come back within 10 points, on fewer than 10% of the points; each rising from a
    trained level (the local median below 90% of the starting loss): the jumps of a run that has
    blown up and thrashes are the divergence, not bad batches."""
    f = _train(run)
    f = _finite(f)
    if run.cadence != "step" or len(f) < 30:
        return False
    trend, res = _residual(f, 15)
    mad = np.median(np.abs(res)) + 1e-12
    scale = _seg(f, 0, 0.05)
    hot = (f > 1.5 * trend) & (res > 6 * mad) & (res > 0.25 * scale) & (trend < 0.9 * scale)
    if hot.mean() >= 0.10:
        return False
    starts = np.nonzero(hot & ~np.r_[False, hot[:-1]])[0]
    recovered = np.array(
        [s for s in starts if np.any(f[s + 1 : s + 11] < 1.2 * trend[s + 1 : s + 11])], dtype=int
    )
    if len(recovered) < 2:
        return False
    # jumps that recur at one position within the epoch (sorted data) are a sawtooth, not spikes
    steps = run.series("loss")[0][: len(f)]
    per_epoch = run.steps_per_epoch // max(run.log_every, 1)
    if per_epoch < 6 or len(recovered) < 3:
        return True
    pos = (steps[recovered] % run.steps_per_epoch) // max(run.log_every, 1)
    return bool(np.bincount(pos).max() < 0.5 * len(recovered))


def unshuffled(run: LoggedRun) -> bool:
    """A sawtooth with the epoch as period: over the first half of the run, position within the
    epoch explains >= 35% of the detrended per-step loss (needs >= 6 points an epoch, >= 3
    epochs in that half)."""
    steps, f = run.series("loss")
    per_epoch = run.steps_per_epoch // max(run.log_every, 1)
    steps, f = steps[: len(f) // 2], f[: len(f) // 2]
    if run.cadence != "step" or per_epoch < 6 or len(f) < 3 * per_epoch:
        return False
    if not np.all(np.isfinite(f)):
        return False
    _, res = _residual(f, per_epoch | 1)
    pos = (steps % run.steps_per_epoch) // max(run.log_every, 1)
    means = np.bincount(pos, weights=res) / np.maximum(np.bincount(pos), 1)
    explained = np.var(means[pos]) / max(np.var(res), 1e-12)
    return explained >= 0.35


def overfit(run: LoggedRun) -> bool:
    """Validation improves first (>= 5%), reaches its minimum in the first 75% of evaluations,
    ends >= 10% above it, while the train loss keeps falling (>= 10% below its value there)."""
    vs, v = run.series("val_loss")
    ts, t = run.series("loss")
    if len(v) < 5 or not np.all(np.isfinite(v)) or not np.all(np.isfinite(t)):
        return False
    i = int(np.argmin(v))
    end = float(np.mean(v[-2:]))
    if not (i <= 0.75 * (len(v) - 1) and v[0] >= 1.05 * v[i] and end >= 1.10 * v[i]):
        return False
    t_at = float(
        np.median(
            t[(ts <= vs[i]) & (ts > vs[i] - max(run.steps_per_epoch, 1))]
            if np.any(ts <= vs[i])
            else t[:1]
        )
    )
    return _seg(t, 0.9, 1.0) <= 0.9 * t_at


def distribution_mismatch(run: LoggedRun) -> bool:
    """Train falls (>= 40%) while validation hardly improves (< 15%) and ends >= 1.5x train."""
    t, v = _train(run), _val(run)
    if len(v) < 4 or len(t) < 4 or not (np.all(np.isfinite(v)) and np.all(np.isfinite(t))):
        return False
    t0, t1 = _seg(t, 0, 0.1), _seg(t, 0.9, 1.0)
    improve_v = (v[0] - v.min()) / max(abs(v[0]), 1e-8)
    return (t0 - t1) / max(t0, 1e-8) >= 0.4 and improve_v < 0.15 and v[-1] >= 1.5 * t1


def lr_decayed_too_early(run: LoggedRun) -> bool:
    """The LR falls below 10% of its peak within the first 40% of the run, the loss was still
    falling (>= 5%) over the stretch before, and it improves < 10% over everything after."""
    steps, lr = run.series("lr")
    t = _train(run)
    if len(lr) < 6 or len(t) < 6 or not np.all(np.isfinite(t)):
        return False
    peak = int(np.argmax(lr))
    low = np.nonzero((np.arange(len(lr)) > peak) & (lr < 0.1 * lr[peak]))[0]
    if not len(low):
        return False
    cut = low[0] / len(lr)
    if cut > 0.4:
        return False
    at_cut = _seg(t, max(cut - 0.04, 0), cut + 0.02)
    before = _seg(t, max(cut - 0.2, 0), max(cut - 0.12, 0.02))
    end = _seg(t, 0.85, 1.0)
    return before - at_cut > 0.05 * before and (at_cut - end) < 0.10 * at_cut


def underfit(run: LoggedRun) -> bool:
    """Train and validation both stay high (< 60% of the way to the best reachable loss) and
    close (within 15% of each other), and flat: the second half improves the loss by under 5%
    (a run still improving steadily is slow, not underfit: the real runs' labeller calls a
    low-LR run that kept improving healthy)."""
    t, v = _train(run), _val(run)
    if len(v) < 4 or len(t) < 6 or not (np.all(np.isfinite(v)) and np.all(np.isfinite(t))):
        return False
    t0, t1 = _seg(t, 0, 0.05), _seg(t, 0.85, 1.0)
    best = float(np.min(_residual(t, 5)[0]))
    progress = (t0 - min(t1, best)) / max(t0 - run.floor, 1e-8)
    close = abs(v[-1] - t1) / max(t1, 1e-8) < 0.15
    late = (_seg(t, 0.4, 0.6) - t1) / max(_seg(t, 0.4, 0.6), 1e-8) < 0.05
    return progress < 0.6 and close and late


def vanishing_gradients(run: LoggedRun) -> bool:
    """The logged gradient norm decays below 20% of its early peak (rolling median) while the
    loss stalls (< 50% of the way to the best reachable loss)."""
    g = run.series("grad_norm")[1]
    t = _train(run)
    if len(g) < 10 or not np.all(np.isfinite(g)) or not np.all(np.isfinite(t)):
        return False
    first = float(np.max(_residual(g[: max(5, len(g) // 10)], 5)[0]))
    last = _seg(g, 0.8, 1.0)
    t0, t1 = _seg(t, 0, 0.05), _seg(t, 0.85, 1.0)
    progress = (t0 - t1) / max(t0 - run.floor, 1e-8)
    return last < 0.2 * first and progress < 0.5


def over_clipping(run: LoggedRun) -> bool:
    """With the threshold logged: the pre-clip norm exceeds it on >= 80% of steps. Without: the
    logged (post-clip) norm is pinned at one value on >= 80% of steps."""
    g = run.series("grad_norm")[1]
    thr = run.series("max_grad_norm")[1]
    if len(g) < 10 or not np.all(np.isfinite(g)):
        return False
    if len(thr):
        return float(np.mean(g > thr[0] * 1.001)) >= 0.8
    pinned = np.abs(g - np.median(g)) <= 1e-3 * max(np.median(g), 1e-12)
    return float(np.mean(pinned)) >= 0.8 and np.median(g) > 0


def resume_discontinuity(run: LoggedRun) -> bool:
    """The step counter goes back and the loss right after is >= 15% above the loss right
    before (and more than 3 typical point-to-point changes). Per-step logs compare medians of 3
    points on each side; per-epoch logs compare the two epochs."""
    steps, f = run.series("loss")
    back = np.nonzero(np.diff(steps) <= 0)[0]
    if not len(back) or not np.all(np.isfinite(f)):
        return False
    i = int(back[0]) + 1
    k = 1 if run.cadence == "epoch" else 3
    pre, post = f[max(0, i - k) : i], f[i : i + k]
    if len(pre) < k or len(post) < k:
        return False
    noise = np.median(np.abs(np.diff(f[max(0, i - 20) : i]))) if i > 3 else 0.0
    jump = float(np.median(post) - np.median(pre))
    return jump >= 0.15 * float(np.median(pre)) and jump > 3 * noise * (k == 3)


def metric_mismatch(run: LoggedRun) -> bool:
    """Validation loss improves (>= 20%) but validation accuracy does not (< 3 points)."""
    v = _val(run)
    a = run.series("val_acc")[1]
    if len(v) < 5 or len(a) != len(v) or not (np.all(np.isfinite(v)) and np.all(np.isfinite(a))):
        return False
    v_gain = (v[0] - _seg(v, 0.8, 1.0)) / max(abs(v[0]), 1e-8)
    a_gain = float(np.max(a[1:]) - a[0])
    return v_gain >= 0.2 and a_gain < 0.03


CHECKS = {
    f.__name__: f
    for f in (
        nan,
        exploding,
        plateau,
        oscillating,
        loss_spikes,
        unshuffled,
        overfit,
        distribution_mismatch,
        lr_decayed_too_early,
        underfit,
        vanishing_gradients,
        over_clipping,
        resume_discontinuity,
        metric_mismatch,
    )
}


def fired(run: LoggedRun) -> set[str]:
    """Every label whose check passes on this run. Jumps in a curve that swings all along are
    the oscillation's, not bad batches (the real runs' labeller reads a spiky, swinging nanoGPT
    run as oscillating, not loss_spikes)."""
    out = {name for name, check in CHECKS.items() if check(run)}
    if "oscillating" in out:
        out.discard("loss_spikes")
    return out
