"""Small models that train in a second or two on one CPU thread."""

from __future__ import annotations

import torch
from torch import nn

_ACTS = {"relu": nn.ReLU, "tanh": nn.Tanh, "sigmoid": nn.Sigmoid, "gelu": nn.GELU}


def mlp(
    n_in: int,
    n_out: int,
    *,
    hidden: int = 64,
    depth: int = 2,
    act: str = "relu",
    dropout: float = 0.0,
    norm: bool = False,
) -> nn.Module:
    """`depth` hidden layers; depth 0 is a linear model."""
    layers: list[nn.Module] = [nn.Flatten()]
    width = n_in
    for _ in range(depth):
        layers.append(nn.Linear(width, hidden))
        if norm:
            layers.append(nn.LayerNorm(hidden))
        layers.append(_ACTS[act]())
        if dropout:
            layers.append(nn.Dropout(dropout))
        width = hidden
    layers.append(nn.Linear(width, n_out))
    return nn.Sequential(*layers)


def cnn(n_out: int, *, channels: int = 8) -> nn.Module:
    """Two conv blocks on 12x12 images."""
    return nn.Sequential(
        nn.Conv2d(1, channels, 3, padding=1),
        nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Conv2d(channels, 2 * channels, 3, padding=1),
        nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Flatten(),
        nn.Linear(2 * channels * 9, n_out),
    )


class GRULM(nn.Module):
    """Character-level GRU language model."""

    def __init__(self, vocab: int, *, emb: int = 16, hidden: int = 48) -> None:
        super().__init__()
        self.emb = nn.Embedding(vocab, emb)
        self.rnn = nn.GRU(emb, hidden, batch_first=True)
        self.head = nn.Linear(hidden, vocab)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h, _ = self.rnn(self.emb(x))
        return self.head(h)


class TinyTransformerLM(nn.Module):
    """One causal self-attention block: the smallest transformer that still learns the language."""

    def __init__(self, vocab: int, *, d: int = 32, heads: int = 2, length: int = 64) -> None:
        super().__init__()
        self.emb = nn.Embedding(vocab, d)
        self.pos = nn.Parameter(torch.zeros(1, length, d))
        self.block = nn.TransformerEncoderLayer(
            d, heads, 2 * d, dropout=0.0, batch_first=True, norm_first=True
        )
        self.head = nn.Linear(d, vocab)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        t = x.shape[1]
        mask = torch.triu(torch.full((t, t), float("-inf")), diagonal=1)
        h = self.block(self.emb(x) + self.pos[:, :t], src_mask=mask)
        return self.head(h)


def build(kind: str, n_in: int, n_out: int, **kw) -> nn.Module:
    """One model by name: mlp, cnn, gru, transformer."""
    if kind == "mlp":
        return mlp(n_in, n_out, **kw)
    if kind == "cnn":
        return cnn(n_out, **kw)
    if kind == "gru":
        return GRULM(n_out, **kw)
    if kind == "transformer":
        return TinyTransformerLM(n_out, **kw)
    raise ValueError(f"unknown model {kind!r}")
