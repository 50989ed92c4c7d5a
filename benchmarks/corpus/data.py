"""Synthetic datasets, generated from a seed, so that every corpus run is reproducible offline.

Each builder returns a `Dataset`: train and validation tensors plus what the loss needs (number of
classes, or a regression flag). `val_shift` builds a validation set that was preprocessed
differently or drawn from another distribution (the distribution_mismatch recipe).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch


@dataclass
class Dataset:
    name: str
    x_train: torch.Tensor
    y_train: torch.Tensor
    x_val: torch.Tensor
    y_val: torch.Tensor
    n_classes: int  # 0 = regression
    in_shape: tuple[int, ...]
    vocab: int = 0  # > 0 for the character language (x, y are token sequences)
    floor: float = 0.0  # the best loss reachable on this data (known where it is computable)

    @property
    def is_lm(self) -> bool:
        return self.vocab > 0


def _blobs(
    g: torch.Generator,
    n: int,
    d: int,
    k: int,
    sep: float,
    centers: torch.Tensor | None = None,
    weights: torch.Tensor | None = None,
):
    if centers is None:
        centers = torch.randn(k, d, generator=g) * sep
    if weights is None:
        y = torch.randint(0, k, (n,), generator=g)
    else:
        y = torch.multinomial(weights, n, replacement=True, generator=g)
    x = centers[y] + torch.randn(n, d, generator=g)
    return x, y, centers


def blobs(
    g: torch.Generator,
    n_train: int,
    n_val: int,
    *,
    d: int = 16,
    k: int = 5,
    sep: float = 1.0,
    imbalance: bool = False,
) -> Dataset:
    """Gaussian blobs: k classes in d dimensions; `sep` sets how much the classes overlap."""
    weights = None
    if imbalance:
        weights = torch.tensor([0.7] + [0.3 / (k - 1)] * (k - 1))
    xt, yt, c = _blobs(g, n_train, d, k, sep, weights=weights)
    xv, yv, _ = _blobs(g, n_val, d, k, sep, centers=c, weights=weights)
    return Dataset("blobs", xt, yt, xv, yv, k, (d,))


def _spiral_points(g: torch.Generator, n: int, k: int, noise: float):
    y = torch.randint(0, k, (n,), generator=g)
    r = torch.rand(n, generator=g)
    theta = r * 3.5 + y.float() * (2 * math.pi / k) + torch.randn(n, generator=g) * noise
    x = torch.stack([r * torch.cos(theta), r * torch.sin(theta)], dim=1) * 2.0
    return x, y


def spirals(
    g: torch.Generator, n_train: int, n_val: int, *, k: int = 3, noise: float = 0.15
) -> Dataset:
    """Interleaved 2-D spirals: easy for an MLP, impossible for a linear model."""
    xt, yt = _spiral_points(g, n_train, k, noise)
    xv, yv = _spiral_points(g, n_val, k, noise)
    return Dataset("spirals", xt, yt, xv, yv, k, (2,))


def sine(g: torch.Generator, n_train: int, n_val: int, *, noise: float = 0.1) -> Dataset:
    """1-D regression y = sin(2x) + 0.5x + noise on x in [-3, 3]."""

    def draw(n: int):
        x = torch.rand(n, 1, generator=g) * 6 - 3
        y = torch.sin(2 * x) + 0.5 * x + torch.randn(n, 1, generator=g) * noise
        return x, y

    xt, yt = draw(n_train)
    xv, yv = draw(n_val)
    return Dataset("sine", xt, yt, xv, yv, 0, (1,), floor=noise**2)


# Seven-segment strokes on a 12x12 canvas: (row0, col0, row1, col1) for segments a..g.
_SEGMENTS = [
    (1, 3, 1, 8),
    (1, 8, 5, 8),
    (6, 8, 10, 8),
    (10, 3, 10, 8),
    (6, 3, 10, 3),
    (1, 3, 5, 3),
    (5, 3, 5, 8),
]
_DIGIT_SEGMENTS = [
    "abcdef",
    "bc",
    "abged",
    "abgcd",
    "fgbc",
    "afgcd",
    "afgedc",
    "abc",
    "abcdefg",
    "abcdfg",
]


def _draw_digits(g: torch.Generator, y: torch.Tensor, noise: float) -> torch.Tensor:
    n = len(y)
    base = torch.zeros(10, 12, 12)
    for digit, segs in enumerate(_DIGIT_SEGMENTS):
        for s in segs:
            r0, c0, r1, c1 = _SEGMENTS[ord(s) - ord("a")]
            base[digit, r0 : r1 + 1, c0 : c1 + 1] = 1.0
    img = base[y]
    shifts_r = torch.randint(-1, 2, (n,), generator=g)
    shifts_c = torch.randint(-2, 2, (n,), generator=g)
    out = torch.stack(
        [torch.roll(img[i], (int(shifts_r[i]), int(shifts_c[i])), (0, 1)) for i in range(n)]
    )
    out = out * (0.6 + 0.4 * torch.rand(n, 1, 1, generator=g))
    out = out + torch.randn(n, 12, 12, generator=g) * noise
    return out.unsqueeze(1)


def digits(g: torch.Generator, n_train: int, n_val: int, *, noise: float = 0.35) -> Dataset:
    """Procedurally drawn seven-segment digits (12x12, jittered, scaled, noisy) for a CNN."""
    yt = torch.randint(0, 10, (n_train,), generator=g)
    yv = torch.randint(0, 10, (n_val,), generator=g)
    return Dataset(
        "digits", _draw_digits(g, yt, noise), yt, _draw_digits(g, yv, noise), yv, 10, (1, 12, 12)
    )


def _markov(g: torch.Generator, vocab: int, sharpness: float) -> torch.Tensor:
    logits = torch.randn(vocab, vocab, generator=g) * sharpness
    return torch.softmax(logits, dim=1)


def _sample_text(g: torch.Generator, trans: torch.Tensor, n: int, length: int) -> torch.Tensor:
    vocab = trans.shape[0]
    seq = torch.empty(n, length + 1, dtype=torch.long)
    seq[:, 0] = torch.randint(0, vocab, (n,), generator=g)
    for t in range(length):
        seq[:, t + 1] = torch.multinomial(trans[seq[:, t]], 1, generator=g).squeeze(1)
    return seq


def charlang(
    g: torch.Generator,
    n_train: int,
    n_val: int,
    *,
    vocab: int = 16,
    length: int = 24,
    sharpness: float = 2.5,
) -> Dataset:
    """A synthetic character language: a random first-order Markov chain over `vocab` symbols.
    Its entropy rate is the best achievable loss, well below log(vocab)."""
    trans = _markov(g, vocab, sharpness)
    st = _sample_text(g, trans, n_train, length)
    sv = _sample_text(g, trans, n_val, length)
    # the true model's loss on the validation text: the entropy rate the LM can approach
    floor = float(-torch.log(trans[sv[:, :-1], sv[:, 1:]]).mean())
    return Dataset(
        "charlang",
        st[:, :-1],
        st[:, 1:],
        sv[:, :-1],
        sv[:, 1:],
        vocab,
        (length,),
        vocab=vocab,
        floor=floor,
    )


def shift_validation(g: torch.Generator, ds: Dataset, kind: str) -> Dataset:
    """A validation set that does not match training: another preprocessing or distribution."""
    xv, yv = ds.x_val.clone(), ds.y_val.clone()
    if ds.is_lm:
        other = _markov(g, ds.vocab, 2.5)  # another language with the same alphabet
        sv = _sample_text(g, other, len(xv), xv.shape[1])
        xv, yv = sv[:, :-1], sv[:, 1:]
    elif kind == "scale":  # val not normalised like train (raw units, offset)
        xv = xv * 4.0 + 3.0
    elif kind == "invert":  # images inverted / another colour convention
        xv = 1.0 - xv
    elif kind == "permute_features":  # columns in another order
        xv = xv[:, torch.randperm(xv.shape[1], generator=g)]
    elif kind == "relabel":  # val labels from another label map
        k = max(ds.n_classes, 2)
        yv = (yv + 1 + torch.randint(0, k - 1, (1,), generator=g)) % k
    elif kind == "target_shift":  # regression targets in other units
        yv = yv * 3.0 + 2.0
    else:
        raise ValueError(f"unknown shift {kind!r}")
    return Dataset(
        ds.name, ds.x_train, ds.y_train, xv, yv, ds.n_classes, ds.in_shape, ds.vocab, ds.floor
    )


def build(name: str, seed: int, n_train: int, n_val: int, **kw) -> Dataset:
    """One dataset by name, generated from `seed`."""
    g = torch.Generator().manual_seed(seed)
    builders = {
        "blobs": blobs,
        "spirals": spirals,
        "sine": sine,
        "digits": digits,
        "charlang": charlang,
    }
    return builders[name](g, n_train, n_val, **kw)
