"""How each label is induced: one recipe per label, drawing its variations from a seeded RNG.

A recipe returns a `Plan`: the training `Config`, the labels the run carries by construction, the
labels it may also show as a consequence (kept only when their check passes: a run blown up by a
huge LR may climb visibly before it turns NaN), what must be logged for the pathology to be
visible, and whether the signature needs per-step logging.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from benchmarks.corpus.trainer import Config


@dataclass
class Plan:
    cfg: Config
    labels: set[str]
    maybe: set[str] = field(default_factory=set)
    step_level: bool = False  # the signature needs per-step logging
    val: bool = True
    val_acc: bool = False
    lr: bool = False
    grad_norm: str | None = None  # pre | post
    max_grad_norm: bool = False
    resumable: bool = False  # only formats that keep a resumed run's steps
    variant: str = ""


def _task(
    rng: np.random.Generator, seed: int, allow=("blobs", "spirals", "sine", "digits", "charlang")
) -> Config:
    """A healthy baseline configuration on one of the synthetic tasks."""
    task = str(rng.choice(list(allow)))
    c = Config(seed=seed, task=task, epochs=int(rng.integers(10, 21)))
    if task == "blobs":
        c.task_kw = {
            "k": int(rng.integers(4, 7)),
            "sep": float(rng.uniform(0.7, 1.2)),
            "d": int(rng.choice([8, 16, 32])),
        }
        c.n_train = int(rng.choice([640, 1024, 1536]))
        c.model_kw = {"hidden": int(rng.choice([32, 64, 128])), "depth": int(rng.integers(1, 3))}
    elif task == "spirals":
        c.n_train = int(rng.choice([768, 1024]))
        c.model_kw = {"hidden": int(rng.choice([64, 128])), "depth": int(rng.integers(2, 4))}
    elif task == "sine":
        c.n_train = int(rng.choice([512, 1024]))
        c.model_kw = {"hidden": 64, "depth": 2, "act": str(rng.choice(["tanh", "relu"]))}
    elif task == "digits":
        c.model = "cnn"
        c.n_train, c.n_val = int(rng.choice([512, 768])), 256
        c.model_kw = {"channels": int(rng.choice([6, 8]))}
    else:
        c.model = str(rng.choice(["gru", "transformer"]))
        c.n_train, c.n_val = int(rng.choice([384, 512])), 128
        c.epochs = int(rng.integers(8, 16))
    c.batch_size = int(rng.choice([32, 64])) if task != "charlang" else 32
    opt = str(rng.choice(["adam", "adamw", "sgd"]))
    c.optimizer = opt
    c.lr = float(rng.uniform(1e-3, 4e-3)) if opt != "sgd" else float(rng.uniform(0.02, 0.08))
    if task == "digits" and opt == "sgd":
        c.lr = float(rng.uniform(0.05, 0.1))
    c.schedule = rng.choice([None, "cosine", "warmup_cosine"])
    if c.schedule == "cosine":
        c.schedule_kw = {"floor": 0.05}
    return c


def healthy(rng, seed) -> Plan:
    c = _task(rng, seed)
    return Plan(
        c,
        {"healthy"},
        val_acc=bool(rng.random() < 0.5),
        lr=bool(rng.random() < 0.6),
        grad_norm="pre" if rng.random() < 0.4 else None,
    )


def nan(rng, seed) -> Plan:
    c = _task(rng, seed, ("blobs", "spirals", "digits", "sine"))
    variant = str(rng.choice(["huge_lr", "inf_input", "log0"]))
    total = (c.n_train // c.batch_size) * c.epochs
    if variant == "huge_lr":
        c.optimizer, c.momentum = "sgd", 0.9
        c.lr = float(rng.uniform(2.0, 30.0)) * (10 if c.task == "sine" else 1)
        c.schedule = "warmup_cosine" if rng.random() < 0.5 else None
        c.schedule_kw = {"warmup": float(rng.uniform(0.05, 0.3))}
    elif variant == "inf_input":
        c.inf_input_step = int(rng.integers(int(0.2 * total), int(0.8 * total)))
    else:
        c.task, c.model, c.model_kw = "blobs", "mlp", {"hidden": 64, "depth": 2}
        c.task_kw = {"k": 4, "sep": 1.2, "d": 16}
        c.label_noise = 0.1  # a few confidently wrong samples: their softmax underflows to 0
        c.optimizer, c.lr, c.schedule = "adam", float(rng.uniform(3e-3, 1e-2)), None
        c.unsafe_log = float(rng.uniform(20.0, 60.0))  # a temperature bug scales the logits
    c.nan_tail = int(rng.integers(5, 60))
    return Plan(
        c,
        {"nan"},
        {"exploding"},
        lr=bool(rng.random() < 0.5),
        grad_norm="pre" if rng.random() < 0.5 else None,
        variant=variant,
    )


def exploding(rng, seed) -> Plan:
    c = _task(rng, seed, ("blobs", "spirals", "digits", "charlang"))
    c.schedule = "ramp"
    c.optimizer = str(rng.choice(["adam", "sgd"]))
    c.lr = 1e-3 if c.optimizer == "adam" else 1e-2
    c.schedule_kw = {"peak": float(rng.uniform(500, 3000)), "frac": float(rng.uniform(0.4, 0.6))}
    c.momentum = 0.9
    return Plan(
        c,
        {"exploding"},
        {"nan", "loss_spikes"},
        lr=bool(rng.random() < 0.6),
        grad_norm="pre" if rng.random() < 0.5 else None,
        variant="lr_ramp",
    )


def plateau(rng, seed) -> Plan:
    c = _task(rng, seed)
    variant = str(rng.choice(["lr0", "freeze", "detach", "stale_optimizer", "capacity"]))
    if variant == "lr0":
        c.lr, c.schedule = float(rng.uniform(1e-8, 1e-7)), None
    elif variant == "freeze":
        c.freeze = True
    elif variant == "detach":
        c.detach = True
    elif variant == "stale_optimizer":
        c.stale_optimizer = True
    else:
        c.task, c.model, c.model_kw = "spirals", "mlp", {"depth": 0}
        c.optimizer, c.lr, c.schedule = "adam", 0.02, None
    return Plan(
        c,
        {"plateau"},
        val=False,
        lr=bool(rng.random() < 0.3),
        grad_norm="pre" if rng.random() < 0.3 else None,
        variant=variant,
    )


def oscillating(rng, seed) -> Plan:
    c = _task(rng, seed, ("blobs",))
    c.task_kw["sep"] = float(rng.uniform(0.4, 0.6))  # hard task: the loss cannot go to ~0
    c.schedule, c.optimizer = None, "adam"
    c.lr = float(rng.uniform(0.03, 0.08))
    c.batch_size = int(rng.choice([8, 16]))
    c.n_train = 768
    c.epochs = int(rng.integers(4, 8))
    return Plan(
        c,
        {"oscillating"},
        step_level=True,
        val=bool(rng.random() < 0.3),
        lr=bool(rng.random() < 0.4),
        variant="adam_high_lr",
    )


def overfit(rng, seed) -> Plan:
    c = _task(rng, seed, ("blobs", "blobs", "digits", "charlang"))
    c.epochs = int(rng.integers(20, 31))
    c.schedule = None
    if c.task == "charlang":
        c.n_train, c.model, c.model_kw = int(rng.choice([24, 32])), "gru", {"hidden": 128}
        c.batch_size, c.optimizer, c.lr = 8, "adam", 1e-2
    else:
        c.n_train = int(rng.choice([64, 96, 128]))
        c.batch_size = 8
        c.label_noise = float(rng.uniform(0.1, 0.3))
        c.optimizer, c.lr = "adam", float(rng.uniform(2e-3, 6e-3))
        if c.model == "mlp":
            c.task_kw = {"k": int(rng.integers(3, 6)), "sep": float(rng.uniform(0.5, 0.8)), "d": 32}
            c.model_kw = {"hidden": 256, "depth": int(rng.integers(2, 4))}
        else:
            c.model_kw = {"channels": 16}
    return Plan(c, {"overfit"}, val_acc=bool(rng.random() < 0.5), lr=bool(rng.random() < 0.3))


def distribution_mismatch(rng, seed) -> Plan:
    c = _task(rng, seed)
    kinds = {
        "blobs": ["scale", "permute_features", "relabel"],
        "spirals": ["scale", "relabel"],
        "digits": ["invert", "relabel"],
        "sine": ["target_shift"],
        "charlang": ["other_language"],
    }[c.task]
    c.val_shift = str(rng.choice(kinds))
    return Plan(
        c,
        {"distribution_mismatch"},
        val_acc=bool(rng.random() < 0.4),
        lr=bool(rng.random() < 0.3),
        variant=c.val_shift,
    )


def lr_decayed_too_early(rng, seed) -> Plan:
    c = _task(rng, seed, ("charlang", "spirals", "blobs"))
    c.epochs = int(rng.integers(15, 26)) if c.task != "charlang" else int(rng.integers(10, 16))
    if c.task == "blobs":
        c.task_kw["sep"] = 0.6
    c.optimizer = str(rng.choice(["sgd", "adam"]))
    c.lr = 3e-3 if c.optimizer == "adam" else 0.03
    if c.task == "digits" and c.optimizer == "sgd":
        c.lr = 0.05
    if rng.random() < 0.7:
        c.schedule = "step"
        c.schedule_kw = {
            "milestones": [float(rng.uniform(0.15, 0.3))],
            "gamma": float(rng.uniform(0.001, 0.01)),
        }
    else:
        c.schedule = "exp"
        total = (c.n_train // c.batch_size) * c.epochs
        c.schedule_kw = {"gamma": float(0.001 ** (1 / (rng.uniform(0.15, 0.3) * total)))}
    return Plan(
        c,
        {"lr_decayed_too_early"},
        {"plateau", "underfit"},
        lr=True,
        val=bool(rng.random() < 0.5),
        variant=c.schedule,
    )


def loss_spikes(rng, seed) -> Plan:
    c = _task(rng, seed, ("blobs", "spirals", "digits", "sine", "charlang"))
    c.schedule = None
    total = (c.n_train // c.batch_size) * c.epochs
    n = int(rng.integers(3, 8))
    every = int(rng.choice([1, 1, 2]))
    pos = (
        np.sort(rng.choice(np.arange(int(0.15 * total), total - 10) // every, n, replace=False))
        * every
        + every
        - 1
    )
    c.corrupt_steps = tuple(int(p) for p in pos)
    c.corrupt_factor = float(rng.uniform(15, 40))
    return Plan(
        c, {"loss_spikes"}, step_level=True, lr=bool(rng.random() < 0.3), variant=f"every{every}"
    )


def unshuffled(rng, seed) -> Plan:
    c = _task(rng, seed, ("blobs", "spirals"))
    c.sort_by_class, c.shuffle = True, False
    c.epochs = int(rng.integers(8, 16))
    c.optimizer, c.schedule = "sgd", None
    c.lr = float(rng.uniform(0.015, 0.04))
    if c.task == "blobs":
        c.task_kw["sep"] = float(rng.uniform(0.7, 1.0))
    return Plan(c, {"unshuffled"}, step_level=True, lr=bool(rng.random() < 0.3))


def underfit(rng, seed) -> Plan:
    c = _task(rng, seed, ("blobs", "spirals", "digits", "charlang"))
    variant = str(rng.choice(["tiny_model", "tiny_model", "weight_decay"]))
    if variant == "tiny_model":
        if c.task == "charlang":
            c.model, c.model_kw = "gru", {"emb": 2, "hidden": 2}
        elif c.task == "digits":
            c.model, c.model_kw = "mlp", {"depth": 1, "hidden": 2}
        else:
            c.model_kw = {"depth": 0} if c.task == "spirals" else {"depth": 1, "hidden": 2}
            c.task_kw["sep"] = 0.6 if c.task == "blobs" else c.task_kw.get("sep")
            c.task_kw = {k: v for k, v in c.task_kw.items() if v is not None}
    else:  # L2 so strong the weights cannot grow to fit the data
        c.optimizer, c.momentum = "sgd", 0.9
        c.weight_decay = float(rng.uniform(0.05, 0.3))
        c.lr = 0.05
    return Plan(
        c,
        {"underfit"},
        {"plateau"},
        val_acc=bool(rng.random() < 0.4),
        lr=bool(rng.random() < 0.3),
        variant=variant,
    )


def vanishing_gradients(rng, seed) -> Plan:
    c = _task(rng, seed, ("blobs", "spirals"))
    c.task = "blobs"
    c.task_kw = {"k": int(rng.integers(3, 6)), "sep": 1.5, "d": 16, "imbalance": True}
    c.model_kw = {"hidden": 32, "depth": int(rng.integers(10, 19)), "act": "sigmoid"}
    c.optimizer, c.momentum = "sgd", 0.9
    c.lr = float(rng.uniform(0.01, 0.08))
    c.head_scale = float(rng.uniform(3.0, 8.0))
    c.schedule = None
    return Plan(
        c,
        {"vanishing_gradients"},
        {"plateau", "underfit"},
        step_level=True,
        grad_norm="pre",
        lr=bool(rng.random() < 0.3),
        val=bool(rng.random() < 0.5),
    )


def over_clipping(rng, seed) -> Plan:
    c = _task(rng, seed, ("blobs", "spirals", "digits", "charlang", "sine"))
    c.clip = float(rng.choice([0.005, 0.01, 0.02, 0.05]))
    c.optimizer = "sgd"
    c.lr = float(rng.uniform(0.05, 0.2))
    post = rng.random() < 0.3
    return Plan(
        c,
        {"over_clipping"},
        {"plateau"},
        step_level=True,
        grad_norm="post" if post else "pre",
        max_grad_norm=not post,
        lr=bool(rng.random() < 0.3),
        variant="post_clip" if post else "pre_clip",
    )


def resume_discontinuity(rng, seed) -> Plan:
    c = _task(rng, seed, ("blobs", "spirals", "digits", "charlang", "sine"))
    c.epochs = max(c.epochs, 12)
    c.schedule = str(rng.choice(["cosine", "step", "none"]))
    c.schedule = None if c.schedule == "none" else c.schedule
    c.schedule_kw = (
        {"floor": 0.02} if c.schedule == "cosine" else {"milestones": [0.3], "gamma": 0.1}
    )
    # the crash comes while the loss still falls fast; the checkpoint used is a few epochs old
    c.resume_epoch = int(rng.integers(max(3, int(0.25 * c.epochs)), int(0.5 * c.epochs) + 1))
    c.resume_back = int(rng.integers(2, min(5, c.resume_epoch) + 1))
    restart = bool(rng.random() < 0.5)
    c.resume_restart_step = restart
    return Plan(
        c,
        {"resume_discontinuity"},
        resumable=True,
        lr=bool(rng.random() < 0.5),
        variant="restart_at_0" if restart else "repeat_steps",
    )


def metric_mismatch(rng, seed) -> Plan:
    c = _task(rng, seed, ("blobs", "spirals", "digits", "charlang"))
    c.metric_bug = str(rng.choice(["roll", "stale", "wrong_dim"]))
    return Plan(
        c, {"metric_mismatch"}, val_acc=True, lr=bool(rng.random() < 0.3), variant=c.metric_bug
    )


RECIPES: dict[str, Callable[[np.random.Generator, int], Plan]] = {
    f.__name__: f
    for f in (
        healthy,
        nan,
        exploding,
        plateau,
        oscillating,
        overfit,
        distribution_mismatch,
        lr_decayed_too_early,
        loss_spikes,
        unshuffled,
        underfit,
        vanishing_gradients,
        over_clipping,
        resume_discontinuity,
        metric_mismatch,
    )
}
