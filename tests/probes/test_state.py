"""Every probe leaves the model and optimizer it was handed bit-identical, and the caller's
random streams untouched."""

from __future__ import annotations

import copy

import pytest

torch = pytest.importorskip("torch")

import torch.nn.functional as F  # noqa: E402
from lossforensics.classifiers.labels import PROBES  # noqa: E402
from lossforensics.probes import ProbeSetup, run_probe  # noqa: E402

from tests.probes import toys  # noqa: E402


def _trained() -> tuple[torch.nn.Module, torch.optim.Optimizer]:
    """A model with Adam state, gradients present and one submodule in eval mode."""
    torch.manual_seed(3)
    model = toys.dropout_heavy()
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    for x, y in toys.blobs()[:3]:
        opt.zero_grad()
        F.cross_entropy(model(x), y).backward()
        opt.step()
    model[2].eval()
    return model, opt


def _snapshot(model, opt):
    return (
        {k: v.clone() for k, v in model.state_dict().items()},
        [None if p.grad is None else p.grad.clone() for p in model.parameters()],
        [m.training for m in model.modules()],
        [p.requires_grad for p in model.parameters()],
        copy.deepcopy(opt.state_dict()),
        torch.get_rng_state(),
    )


def _same_state(a, b) -> bool:
    if isinstance(a, torch.Tensor):
        return isinstance(b, torch.Tensor) and a.dtype == b.dtype and torch.equal(a, b)
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same_state(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(_same_state(x, y) for x, y in zip(a, b, strict=True))
    return a == b


@pytest.mark.parametrize("name", PROBES)
def test_probe_restores_the_live_model_and_optimizer(name, tmp_path):
    model, opt = _trained()
    before = _snapshot(model, opt)
    setup = ProbeSetup(
        None,
        toys.blobs(),
        F.cross_entropy,
        lambda p: torch.optim.Adam(p, lr=1e-2),
        steps=15,
        model=model,
        optimizer=opt,
        log_dir=tmp_path,
    )
    run_probe(name, setup)
    after = _snapshot(model, opt)
    labels = ("weights", "grads", "train/eval flags", "requires_grad", "optimizer", "rng")
    for label, old, new in zip(labels, before, after, strict=True):
        assert _same_state(old, new), f"{name} changed the {label}"
    # the optimizer still drives the same parameter objects
    assert all(
        p is q for p, q in zip(opt.param_groups[0]["params"], model.parameters(), strict=True)
    )


def test_state_is_restored_when_the_probe_fails(tmp_path):
    model, opt = _trained()
    before = _snapshot(model, opt)
    bad = [(torch.zeros(4, toys.FEATURES), torch.zeros(4, 7))]  # a target cross_entropy rejects
    setup = ProbeSetup(
        None,
        bad,
        F.cross_entropy,
        lambda p: torch.optim.Adam(p, lr=1e-2),
        steps=5,
        model=model,
        optimizer=opt,
        log_dir=tmp_path,
    )
    from lossforensics.classifiers.errors import ProbeError

    with pytest.raises(ProbeError, match="lr_drop"):
        run_probe("lr_drop", setup)
    assert all(_same_state(a, b) for a, b in zip(before, _snapshot(model, opt), strict=True))
