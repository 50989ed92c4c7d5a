"""ProbeSetup: what every probe needs to re-run a piece of the user's training.

The user hands over a model factory, re-iterable data, a loss and an optimizer factory (the same
things their training loop uses). Re-runs build fresh models under a fixed seed, so two runs of a
probe (LR and LR/10) start from the same weights and see the same batches in the same order.
"""

from __future__ import annotations

import copy
import tempfile
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lossforensics.classifiers.errors import ProbeError
from lossforensics.probes._torch import require_torch

if TYPE_CHECKING:  # pragma: no cover
    import torch


@dataclass
class ProbeSetup:
    """The user's training ingredients.

    model_fn       builds a fresh model (re-runs start from it); may be None when `model` is given,
                   then re-runs start from a copy of `model` as it is now
    data           a DataLoader or any re-iterable of (x, y) batches; x a tensor, a tuple of
                   tensors (model(*x)) or a dict (model(**x))
    loss_fn        loss_fn(output, y) -> scalar tensor
    optimizer_fn   optimizer_fn(params) -> torch.optim.Optimizer (the user's LR lives here)
    steps          optimisation steps for each short re-run
    device         "cpu", "cuda", "cuda:1", ... (fresh models and batches are moved there);
                   None: the device of `model` when given, else the CPU
    model          the user's live model, for the probes that inspect one (restored afterwards)
    optimizer      the user's live optimizer (restored afterwards)
    log_dir        where the probes' JSONL logs go (default: a new temporary folder)
    """

    model_fn: Callable[[], Any] | None
    data: Iterable[Any]
    loss_fn: Callable[[Any, Any], Any]
    optimizer_fn: Callable[[Any], Any] | None = None
    steps: int = 200
    device: str | None = None
    seed: int = 0
    model: Any = None
    optimizer: Any = None
    log_dir: str | Path | None = None
    torch_device: Any = field(init=False, repr=False, default=None)

    def __post_init__(self) -> None:
        torch = require_torch()
        if self.model_fn is None and self.model is None:
            raise ProbeError("give model_fn (a function that builds the model) or model")
        for name in ("model_fn", "loss_fn", "optimizer_fn"):
            value = getattr(self, name)
            if value is not None and not callable(value):
                raise ProbeError(f"{name} must be callable, got {type(value).__name__}")
        if self.loss_fn is None:
            raise ProbeError("give loss_fn (e.g. torch.nn.functional.cross_entropy)")
        if self.steps < 1:
            raise ProbeError(f"steps must be at least 1, got {self.steps}")
        if self.data is None or isinstance(self.data, Iterator):
            raise ProbeError(
                "data must be re-iterable (a DataLoader or a list of (x, y) "
                "batches); a one-shot iterator or generator cannot be replayed"
            )
        if self.model is not None and not isinstance(self.model, torch.nn.Module):
            raise ProbeError(f"model must be a torch.nn.Module, got {type(self.model).__name__}")
        if self.device is None:
            first = next(iter(self.model.parameters()), None) if self.model is not None else None
            self.device = str(first.device) if first is not None else "cpu"
        try:
            self.torch_device = torch.device(self.device)
        except (RuntimeError, TypeError) as exc:
            raise ProbeError(f"unknown device {self.device!r}: {exc}") from None
        if self.torch_device.type == "cuda" and not torch.cuda.is_available():
            raise ProbeError(f"device {self.device!r} asked for, but CUDA is not available")
        if self.log_dir is None:
            self.log_dir = tempfile.mkdtemp(prefix="lossforensics-probes-")
        self.log_dir = Path(self.log_dir)

    # -- models and optimizers ------------------------------------------------------------
    def fresh_model(self) -> torch.nn.Module:
        """A new model on the device, built under the setup's seed (same weights every time)."""
        torch = require_torch()
        torch.manual_seed(self.seed)
        if self.model_fn is not None:
            model = self.model_fn()
        else:
            model = copy.deepcopy(self.model)
        if not isinstance(model, torch.nn.Module):
            raise ProbeError(f"model_fn must return a torch.nn.Module, got {type(model).__name__}")
        return model.to(self.torch_device)

    def live_model(self) -> torch.nn.Module:
        """The user's model if given (probes restore it; it is never moved), else a fresh one."""
        if self.model is None:
            return self.fresh_model()
        where = {p.device for p in self.model.parameters()}
        if (
            where
            and where != {self.torch_device}
            and not (
                self.torch_device.index is None
                and {d.type for d in where} == {self.torch_device.type}
            )
        ):
            raise ProbeError(
                f"the model lives on {', '.join(sorted(map(str, where)))} but the "
                f"probes run on {self.torch_device}: pass device= to match it"
            )
        return self.model

    def make_optimizer(self, model: torch.nn.Module) -> torch.optim.Optimizer:
        torch = require_torch()
        if self.optimizer_fn is None:
            raise ProbeError(
                "this probe re-trains the model: give optimizer_fn "
                "(e.g. lambda params: torch.optim.AdamW(params, lr=3e-4))"
            )
        opt = self.optimizer_fn(model.parameters())
        if not isinstance(opt, torch.optim.Optimizer):
            raise ProbeError(
                f"optimizer_fn must return a torch.optim.Optimizer, got {type(opt).__name__}"
            )
        return opt

    # -- data ---------------------------------------------------------------------------------
    def batches(self, limit: int | None = None) -> Iterator[tuple[Any, Any]]:
        """(x, y) batches on the device, cycling through `data` as often as needed; at most
        `limit` of them. Iteration order is seeded so re-runs see the same batches."""
        torch = require_torch()
        torch.manual_seed(self.seed)
        count = 0
        while limit is None or count < limit:
            empty = True
            for batch in self.data:
                empty = False
                yield self.split(batch)
                count += 1
                if limit is not None and count >= limit:
                    return
            if empty:
                raise ProbeError("data yielded no batches")

    def split(self, batch: Any) -> tuple[Any, Any]:
        if isinstance(batch, dict) and {"x", "y"} <= batch.keys():
            batch = (batch["x"], batch["y"])
        if not isinstance(batch, (tuple, list)) or len(batch) != 2:
            raise ProbeError(
                "each batch must be an (x, y) pair, got "
                f"{type(batch).__name__}"
                + (f" of length {len(batch)}" if hasattr(batch, "__len__") else "")
            )
        return to_device(batch[0], self.torch_device), to_device(batch[1], self.torch_device)

    def first_batch(self) -> tuple[Any, Any]:
        return next(iter(self.batches(1)))

    def run_dir(self, probe: str) -> Path:
        if self.log_dir is None:  # set in __post_init__; only a caller's reassignment clears it
            raise ProbeError("log_dir was cleared after setup; give a folder")
        path = Path(self.log_dir) / probe
        path.mkdir(parents=True, exist_ok=True)
        return path


def to_device(value: Any, device: Any) -> Any:
    """Tensors (also inside tuples, lists and dicts) moved to `device`; the rest unchanged."""
    torch = require_torch()
    if isinstance(value, torch.Tensor):
        return value.to(device)
    if isinstance(value, dict):
        return {k: to_device(v, device) for k, v in value.items()}
    if isinstance(value, (tuple, list)):
        return type(value)(to_device(v, device) for v in value)
    return value


def forward(model: Any, x: Any) -> Any:
    """model(x), model(*x) for a tuple/list, model(**x) for a dict."""
    if isinstance(x, dict):
        return model(**x)
    if isinstance(x, (tuple, list)):
        return model(*x)
    return model(x)


def tensors_in(value: Any) -> list[Any]:
    """Every tensor inside a (possibly nested) batch element."""
    torch = require_torch()
    if isinstance(value, torch.Tensor):
        return [value]
    if isinstance(value, dict):
        return [t for v in value.values() for t in tensors_in(v)]
    if isinstance(value, (tuple, list)):
        return [t for v in value for t in tensors_in(v)]
    return []


def take_samples(value: Any, n: int) -> Any:
    """The first `n` samples (along dim 0) of every tensor in a batch element."""
    torch = require_torch()
    if isinstance(value, torch.Tensor):
        return value[:n] if value.dim() else value
    if isinstance(value, dict):
        return {k: take_samples(v, n) for k, v in value.items()}
    if isinstance(value, (tuple, list)):
        return type(value)(take_samples(v, n) for v in value)
    return value


def batch_size(value: Any) -> int:
    """Samples in a batch element (dim 0 of its first tensor with a dimension); 0 if none."""
    for t in tensors_in(value):
        if t.dim():
            return int(t.shape[0])
    return 0


def base_lrs(optimizer: Any) -> list[float]:
    """The LR of each param group, as the optimizer holds them now."""
    return [float(g["lr"]) for g in optimizer.param_groups]
