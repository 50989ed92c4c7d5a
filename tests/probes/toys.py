"""Tiny models built to have one disease each, and the data they train on (CPU, a few hundred
parameters, deterministic)."""

from __future__ import annotations

import torch
from torch import nn

FEATURES, CLASSES = 6, 3


def blobs(
    n: int = 96, batch: int = 16, seed: int = 0, *, scale: float = 1.0
) -> list[tuple[torch.Tensor, torch.Tensor]]:
    """Three Gaussian blobs in 6-D, as a re-iterable list of (x, y) batches."""
    g = torch.Generator().manual_seed(seed)
    y = torch.randint(0, CLASSES, (n,), generator=g)
    centres = torch.randn(CLASSES, FEATURES, generator=g) * 2.0
    x = (centres[y] + 0.5 * torch.randn(n, FEATURES, generator=g)) * scale
    return [(x[i : i + batch], y[i : i + batch]) for i in range(0, n, batch)]


def regression(
    n: int = 96, batch: int = 16, seed: int = 0
) -> list[tuple[torch.Tensor, torch.Tensor]]:
    """y = x @ w + noise; features with a large scale, so plain SGD diverges at a high LR."""
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(n, FEATURES, generator=g) * 3.0
    y = x @ torch.randn(FEATURES, 1, generator=g) + 0.1 * torch.randn(n, 1, generator=g)
    return [(x[i : i + batch], y[i : i + batch]) for i in range(0, n, batch)]


def mlp(hidden: int = 16) -> nn.Module:
    """The healthy model."""
    return nn.Sequential(nn.Linear(FEATURES, hidden), nn.ReLU(), nn.Linear(hidden, CLASSES))


def regressor() -> nn.Module:
    return nn.Sequential(nn.Linear(FEATURES, 8), nn.Tanh(), nn.Linear(8, 1))


class Frozen(nn.Module):
    """The first layer is frozen and a second branch is detached from the loss."""

    def __init__(self) -> None:
        super().__init__()
        self.frozen = nn.Linear(FEATURES, 8)
        self.frozen.requires_grad_(False)
        self.side = nn.Linear(FEATURES, 8)
        self.head = nn.Linear(8, CLASSES)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(torch.relu(self.frozen(x)) + self.side(x).detach())


class Log(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.log(x)


class LogOfZero(nn.Module):
    """log() of a ReLU output: log(0) = -inf wherever a unit is off."""

    def __init__(self) -> None:
        super().__init__()
        self.body = nn.Sequential(nn.Linear(FEATURES, 8), nn.ReLU())
        self.log = Log()
        self.head = nn.Linear(8, CLASSES)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.log(self.body(x)))


class MixesBatch(nn.Module):
    """The wiring bug: a mean over the batch dimension, so every sample gets the same output."""

    def __init__(self) -> None:
        super().__init__()
        self.body = nn.Sequential(nn.Linear(FEATURES, 16), nn.ReLU())
        self.head = nn.Linear(16, CLASSES)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.body(x)
        return self.head(h.mean(0, keepdim=True).expand_as(h))


def dropout_heavy() -> nn.Module:
    return nn.Sequential(
        nn.Linear(FEATURES, 32),
        nn.ReLU(),
        nn.Dropout(0.7),
        nn.Linear(32, 32),
        nn.ReLU(),
        nn.Dropout(0.7),
        nn.Linear(32, CLASSES),
    )


def deep_sigmoid(depth: int = 8, width: int = 8, gain: float = 6.0) -> nn.Module:
    """Sigmoids all the way down, initialised large: saturated units, vanishing gradients."""
    layers: list[nn.Module] = [nn.Linear(FEATURES, width), nn.Sigmoid()]
    for _ in range(depth - 1):
        layers += [nn.Linear(width, width), nn.Sigmoid()]
    layers.append(nn.Linear(width, CLASSES))
    net = nn.Sequential(*layers)
    with torch.no_grad():
        for m in net:
            if isinstance(m, nn.Linear):
                m.weight.mul_(gain)
    return net


class Bf16Fragile(nn.Module):
    """Catastrophic cancellation: (u + 1000) - 1000 with u in (0, 1) is u in fp32, but bf16 (8
    significant bits) rounds u + 1000 to 1000, so under bf16 autocast log() of it is -inf."""

    def __init__(self) -> None:
        super().__init__()
        self.lin = nn.Linear(FEATURES, 4)
        self.head = nn.Linear(4, CLASSES)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        u = torch.sigmoid(self.lin(x))
        return self.head(torch.log((u + 1000.0) - 1000.0))
