"""One training loop for every corpus run, with the knobs that induce each pathology.

Everything a logger could have seen is recorded: per optimizer step the batch loss and accuracy,
the learning rate, the gradient norm before and after clipping; per epoch the mean train loss and
the validation loss and accuracy. `views.py` turns that record into what a given logger writes.
Runs are deterministic: one thread, deterministic algorithms, every random draw from the seed.
"""

from __future__ import annotations

import copy
import math
from dataclasses import dataclass, field

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from benchmarks.corpus import data as datasets
from benchmarks.corpus import models


@dataclass
class Config:
    """A run's recipe. Defaults give a healthy small MLP on Gaussian blobs."""

    seed: int = 0
    task: str = "blobs"
    task_kw: dict = field(default_factory=dict)
    n_train: int = 1024
    n_val: int = 512
    model: str = "mlp"
    model_kw: dict = field(default_factory=dict)
    batch_size: int = 32
    epochs: int = 15
    optimizer: str = "adam"
    lr: float = 1e-3
    momentum: float = 0.9
    weight_decay: float = 0.0
    schedule: str | None = None  # cosine | warmup_cosine | step | exp | ramp
    schedule_kw: dict = field(default_factory=dict)
    clip: float | None = None
    shuffle: bool = True
    sort_by_class: bool = False
    label_noise: float = 0.0
    val_shift: str | None = None
    val_every: int = 1  # epochs between validations
    # induced faults
    inf_input_step: int | None = None
    unsafe_log: float = 0.0  # > 0: -log(softmax(scale * x)) without log-sum-exp: log(0) = -inf
    corrupt_steps: tuple[int, ...] = ()
    corrupt_factor: float = 20.0
    freeze: bool = False  # every parameter frozen but the output bias
    detach: bool = False  # the loss is computed on a detached output
    stale_optimizer: bool = False  # the optimizer holds another model's parameters
    metric_bug: str | None = None  # roll | stale | wrong_dim: a buggy validation accuracy
    resume_epoch: int | None = None  # the run "crashes" at this epoch and is resumed
    resume_back: int = 0  # the checkpoint used is this many epochs older than the crash
    resume_restart_step: bool = True  # the step counter restarts at 0 (else repeats)
    nan_tail: int = 25  # optimizer steps still logged after the first non-finite loss
    head_scale: float = 1.0  # output layer initialised this much larger (confident at init)


@dataclass
class Record:
    """What happened, step by step (arrays in order of execution)."""

    steps_per_epoch: int
    step: np.ndarray  # the step counter as a logger would see it (restarts on resume)
    epoch: np.ndarray
    loss: np.ndarray
    acc: np.ndarray
    lr: np.ndarray
    grad_norm: np.ndarray  # before clipping
    grad_norm_post: np.ndarray  # after clipping
    # one entry per completed epoch (val NaN when not validated that epoch)
    ep_epoch: np.ndarray
    ep_step: np.ndarray  # step counter of the epoch's last step
    ep_loss: np.ndarray
    ep_acc: np.ndarray
    ep_lr: np.ndarray
    ep_val_loss: np.ndarray
    ep_val_acc: np.ndarray
    ep_validated: np.ndarray  # bool: validation ran at the end of that epoch
    classification: bool
    clip: float | None
    floor: float  # the best reachable loss on this data
    n_classes: int


def _make_optimizer(cfg: Config, params) -> torch.optim.Optimizer:
    if cfg.optimizer == "sgd":
        return torch.optim.SGD(
            params, lr=cfg.lr, momentum=cfg.momentum, weight_decay=cfg.weight_decay
        )
    if cfg.optimizer == "adam":
        return torch.optim.Adam(params, lr=cfg.lr, weight_decay=cfg.weight_decay)
    if cfg.optimizer == "adamw":
        return torch.optim.AdamW(params, lr=cfg.lr, weight_decay=cfg.weight_decay)
    if cfg.optimizer == "rmsprop":
        return torch.optim.RMSprop(params, lr=cfg.lr, momentum=cfg.momentum)
    raise ValueError(cfg.optimizer)


def lr_factor(cfg: Config, total: int):
    """The schedule as a multiplier of the base LR at optimizer step t."""
    kw = cfg.schedule_kw
    if cfg.schedule is None:
        return lambda t: 1.0
    if cfg.schedule == "cosine":
        floor = kw.get("floor", 0.0)
        return lambda t: floor + (1 - floor) * 0.5 * (1 + math.cos(math.pi * min(t, total) / total))
    if cfg.schedule == "warmup_cosine":
        w = max(1, int(kw.get("warmup", 0.05) * total))
        return lambda t: (
            (t + 1) / w if t < w else 0.5 * (1 + math.cos(math.pi * (t - w) / max(1, total - w)))
        )
    if cfg.schedule == "step":
        milestones = [int(f * total) for f in kw["milestones"]]
        gamma = kw["gamma"]
        return lambda t: gamma ** sum(t >= m for m in milestones)
    if cfg.schedule == "exp":
        gamma = kw["gamma"]
        return lambda t: gamma**t
    if cfg.schedule == "ramp":  # LR grows `peak`-fold over the first `frac` of the run, then holds
        peak, frac = kw["peak"], kw.get("frac", 1.0)
        return lambda t: peak ** min(t / (frac * total), 1.0)
    raise ValueError(cfg.schedule)


def _loss_fn(cfg: Config, ds: datasets.Dataset):
    if not ds.n_classes:
        return lambda out, y: F.mse_loss(out, y)
    if cfg.unsafe_log:

        def unsafe(out, y):
            out = out.reshape(-1, out.shape[-1])
            p = torch.softmax(out * cfg.unsafe_log, dim=-1).gather(1, y.reshape(-1, 1))
            return -torch.log(p).mean()

        return unsafe
    return lambda out, y: F.cross_entropy(out.reshape(-1, out.shape[-1]), y.reshape(-1))


def _accuracy(out: torch.Tensor, y: torch.Tensor, bug: str | None = None) -> float:
    if bug == "wrong_dim":  # argmax over the batch instead of the classes
        pred = out.argmax(dim=0)
        pred = pred.reshape(-1)[: y.numel()]
        return float((pred == y.reshape(-1)[: pred.numel()]).float().mean())
    pred = out.argmax(dim=-1)
    if bug == "roll":  # predictions compared with the labels of the neighbouring sample
        y = torch.roll(y, 1, dims=0)
    return float((pred == y).float().mean())


def _build_model(cfg: Config, ds: datasets.Dataset) -> nn.Module:
    n_in = int(np.prod(ds.in_shape))
    n_out = ds.vocab or ds.n_classes or 1
    kw = dict(cfg.model_kw)
    if cfg.model == "transformer":
        kw.setdefault("length", ds.in_shape[0])
    return models.build(cfg.model, n_in, n_out, **kw)


def _batch_order(cfg: Config, ds: datasets.Dataset, g: torch.Generator) -> torch.Tensor:
    n = len(ds.x_train)
    if cfg.sort_by_class:
        key = ds.y_train if ds.y_train.dim() == 1 else ds.y_train[:, 0]
        return torch.argsort(key, stable=True)
    if cfg.shuffle:
        return torch.randperm(n, generator=g)
    return torch.arange(n)


def load_dataset(cfg: Config) -> datasets.Dataset:
    ds = datasets.build(cfg.task, cfg.seed + 7919, cfg.n_train, cfg.n_val, **cfg.task_kw)
    g = torch.Generator().manual_seed(cfg.seed + 104729)
    if cfg.label_noise and ds.n_classes and not ds.is_lm:
        flip = torch.rand(len(ds.y_train), generator=g) < cfg.label_noise
        noise = torch.randint(0, ds.n_classes, (len(ds.y_train),), generator=g)
        ds.y_train = torch.where(flip, noise, ds.y_train)
    if cfg.val_shift:
        ds = datasets.shift_validation(g, ds, cfg.val_shift)
    return ds


def train(cfg: Config) -> Record:
    """Train one run and record everything a logger could have written."""
    torch.manual_seed(cfg.seed)
    ds = load_dataset(cfg)
    g = torch.Generator().manual_seed(cfg.seed + 31)
    model = _build_model(cfg, ds)
    loss_fn = _loss_fn(cfg, ds)
    classification = bool(ds.n_classes)
    spe = max(1, len(ds.x_train) // cfg.batch_size)
    total = spe * cfg.epochs
    factor = lr_factor(cfg, total)

    if cfg.head_scale != 1.0:
        with torch.no_grad():
            head = [m for m in model.modules() if isinstance(m, nn.Linear)][-1]
            head.weight.mul_(cfg.head_scale)
    if cfg.freeze:
        last_bias = [p for n, p in model.named_parameters() if n.endswith("bias")][-1]
        for p in model.parameters():
            p.requires_grad_(p is last_bias)
    stale = _build_model(cfg, ds) if cfg.stale_optimizer else None
    metric_model = copy.deepcopy(model) if cfg.metric_bug == "stale" else None

    def fresh_optimizer():
        target = stale if stale is not None else model
        opt = _make_optimizer(cfg, [p for p in target.parameters() if p.requires_grad])
        return opt, torch.optim.lr_scheduler.LambdaLR(opt, factor)

    opt, sched = fresh_optimizer()
    params = [p for p in model.parameters() if p.requires_grad]
    rows: dict[str, list] = {k: [] for k in ("step", "epoch", "loss", "acc", "lr", "gn", "gnp")}
    ep: dict[str, list] = {k: [] for k in ("epoch", "step", "loss", "acc", "lr", "vl", "va", "ok")}
    checkpoints: dict[int, dict] = {}
    logged_step, logged_epoch, exec_step = 0, 0, 0
    first_bad: int | None = None
    resumed = False
    epoch_budget = cfg.epochs
    while logged_epoch < epoch_budget:
        checkpoints.setdefault(logged_epoch, copy.deepcopy(model.state_dict()))
        if cfg.resume_epoch is not None and not resumed and logged_epoch == cfg.resume_epoch:
            resumed = True
            ck = cfg.resume_epoch - cfg.resume_back
            model.load_state_dict(checkpoints[ck])
            opt, sched = fresh_optimizer()  # optimizer and scheduler state not restored
            if cfg.resume_restart_step:
                logged_step, logged_epoch = 0, 0
                epoch_budget = cfg.epochs - cfg.resume_epoch
            else:
                logged_step, logged_epoch = ck * spe, ck
        order = _batch_order(cfg, ds, g)
        ep_losses, ep_accs = [], []
        model.train()
        for b in range(spe):
            idx = order[b * cfg.batch_size : (b + 1) * cfg.batch_size]
            x, y = ds.x_train[idx], ds.y_train[idx]
            if exec_step in cfg.corrupt_steps:
                if ds.is_lm:
                    x = torch.randint(0, ds.vocab, x.shape, generator=g)
                    y = torch.randint(0, ds.vocab, y.shape, generator=g)
                else:
                    x = x * cfg.corrupt_factor
            if cfg.inf_input_step is not None and exec_step == cfg.inf_input_step:
                x = x.clone()
                x.view(len(x), -1)[0, 0] = float("inf")
            out = model(x)
            if cfg.detach:
                out = out.detach().requires_grad_()
            loss = loss_fn(out, y)
            lr_now = opt.param_groups[0]["lr"]
            opt.zero_grad(set_to_none=False)
            loss.backward()
            gn = float(
                torch.nn.utils.clip_grad_norm_(params, cfg.clip if cfg.clip else float("inf"))
            )
            gnp = gn if not cfg.clip else gn * min(1.0, cfg.clip / (gn + 1e-6))
            opt.step()
            sched.step()
            lv = float(loss.detach())
            acc = _accuracy(out.detach(), y) if classification else float("nan")
            for k, v in zip(
                rows, (logged_step, logged_epoch, lv, acc, lr_now, gn, gnp), strict=True
            ):
                rows[k].append(v)
            ep_losses.append(lv)
            ep_accs.append(acc)
            if first_bad is None and not math.isfinite(lv):
                first_bad = exec_step
            logged_step += 1
            exec_step += 1
            if first_bad is not None and exec_step - first_bad > cfg.nan_tail:
                break
        vl, va = float("nan"), float("nan")
        validated = (logged_epoch + 1) % cfg.val_every == 0
        if validated:
            vl, va = _evaluate(model, metric_model, ds, loss_fn, cfg.metric_bug, classification)
        for k, v in zip(
            ep,
            (
                logged_epoch,
                logged_step - 1,
                float(np.mean(ep_losses)),
                float(np.mean(ep_accs)),
                opt.param_groups[0]["lr"],
                vl,
                va,
                validated,
            ),
            strict=True,
        ):
            ep[k].append(v)
        logged_epoch += 1
        if first_bad is not None and exec_step - first_bad > cfg.nan_tail:
            break
    f32 = np.float32
    return Record(
        steps_per_epoch=spe,
        step=np.array(rows["step"], dtype=np.int64),
        epoch=np.array(rows["epoch"]),
        loss=np.array(rows["loss"], dtype=f32).astype(float),
        acc=np.array(rows["acc"], dtype=f32).astype(float),
        lr=np.array(rows["lr"]),
        grad_norm=np.array(rows["gn"], dtype=f32).astype(float),
        grad_norm_post=np.array(rows["gnp"], dtype=f32).astype(float),
        ep_epoch=np.array(ep["epoch"]),
        ep_step=np.array(ep["step"], dtype=np.int64),
        ep_loss=np.array(ep["loss"], dtype=f32).astype(float),
        ep_acc=np.array(ep["acc"], dtype=f32).astype(float),
        ep_lr=np.array(ep["lr"]),
        ep_val_loss=np.array(ep["vl"], dtype=f32).astype(float),
        ep_val_acc=np.array(ep["va"], dtype=f32).astype(float),
        ep_validated=np.array(ep["ok"], dtype=bool),
        classification=classification,
        clip=cfg.clip,
        floor=ds.floor,
        n_classes=ds.vocab or ds.n_classes,
    )


@torch.no_grad()
def _evaluate(model, metric_model, ds, loss_fn, bug, classification) -> tuple[float, float]:
    model.eval()
    out = model(ds.x_val)
    loss = float(loss_fn(out, ds.y_val))
    acc = float("nan")
    if classification:
        if metric_model is not None:  # accuracy from a stale copy of the model
            acc = _accuracy(metric_model(ds.x_val), ds.y_val)
        else:
            acc = _accuracy(out, ds.y_val, bug)
    model.train()
    return loss, acc
