"""Leave the user's model, optimizer and random state exactly as they were given.

Probes train and hook the model they are handed; `preserved` snapshots everything a probe can
touch (weights and buffers, optimizer state, train/eval flags, requires_grad flags, .grad
tensors, the RNG streams) and puts it back afterwards, even when the probe fails.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from lossforensics.probes._torch import require_torch


@contextmanager
def preserved(model: Any = None, optimizer: Any = None, *, cuda: bool = False) -> Iterator[None]:
    """Snapshot, yield, restore. `cuda`: the probe will use CUDA, so fork the CUDA RNG streams
    too (they are forked anyway once CUDA is initialised)."""
    torch = require_torch()
    saved: dict[str, Any] = {}
    if model is not None:
        saved["weights"] = copy.deepcopy(model.state_dict())
        saved["modes"] = [(m, m.training) for m in model.modules()]
        params = list(model.parameters())
        saved["requires_grad"] = [(p, p.requires_grad) for p in params]
        saved["grads"] = [(p, None if p.grad is None else p.grad.detach().clone()) for p in params]
    if optimizer is not None:
        saved["optimizer"] = copy.deepcopy(optimizer.state_dict())
    fork_cuda = torch.cuda.is_available() and (cuda or torch.cuda.is_initialized())
    devices = list(range(torch.cuda.device_count())) if fork_cuda else []
    with torch.random.fork_rng(devices=devices):
        try:
            yield
        finally:
            if model is not None:
                with torch.no_grad():
                    model.load_state_dict(saved["weights"])
                for module, mode in saved["modes"]:
                    module.training = mode
                for p, flag in saved["requires_grad"]:
                    p.requires_grad_(flag)
                for p, grad in saved["grads"]:
                    p.grad = grad
            if optimizer is not None:
                optimizer.load_state_dict(saved["optimizer"])
