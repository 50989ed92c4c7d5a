"""A content-keyed memo, scoped to one diagnosis, for the signal functions several classifiers
call on the same curve (plateau, underfit, exploding and loss_spikes all smooth the training
loss). Outside a `memo_scope()` nothing is remembered; inside one, results are keyed by a
128-bit digest of the arrays' bytes and the call's settings, and copied out, so a caller that
writes into its result cannot change another's. The scope is a context variable: threads and
tasks diagnosing other runs at the same time each have their own (or none).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Hashable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar

import numpy as np

_SCOPE: ContextVar[dict[Hashable, tuple[np.ndarray, ...]] | None] = ContextVar(
    "signals_memo", default=None
)


def array_key(*arrays: np.ndarray) -> bytes:
    """A digest of the arrays' dtypes, shapes and contents."""
    h = hashlib.blake2b(digest_size=16)
    for a in arrays:
        a = np.ascontiguousarray(a)
        h.update(f"{a.dtype.str}{a.shape}".encode())
        h.update(a.data)
    return h.digest()


@contextmanager
def memo_scope() -> Iterator[None]:
    """Remember repeated signal computations until the block ends (one diagnosis)."""
    token = _SCOPE.set({})
    try:
        yield
    finally:
        _SCOPE.reset(token)


def remembered(
    key: Callable[[], Hashable], compute: Callable[[], tuple[np.ndarray, ...]]
) -> tuple[np.ndarray, ...]:
    """compute(), or a copy of what it gave for the same key earlier in this scope."""
    memo = _SCOPE.get()
    if memo is None:
        return compute()
    k = key()
    if k not in memo:
        memo[k] = tuple(np.array(a, copy=True) for a in compute())
    return tuple(a.copy() for a in memo[k])
