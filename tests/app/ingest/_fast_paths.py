"""A reader's fast path against its exact path: the same read done twice, once as shipped and
once with the fast path's entry answering None (the exact path's turn), and the two outcomes
compared to the bit. Shared by the tests of each fast path."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd


def read_both(
    monkeypatch: Any, module: object, name: str, read: Callable[[], Any]
) -> tuple[Any, Any, list[bool]]:
    """(fast, exact) outcomes of `read()`, and for each call of `module.name` in the fast one
    whether it answered (the fast path was taken) or stepped aside (None)."""
    original = getattr(module, name)
    taken: list[bool] = []

    def counted(*args: Any, **kwargs: Any) -> Any:
        out = original(*args, **kwargs)
        taken.append(out is not None)
        return out

    with monkeypatch.context() as m:
        m.setattr(module, name, counted)
        fast = outcome(read)
    with monkeypatch.context() as m:
        m.setattr(module, name, lambda *args, **kwargs: None)
        exact = outcome(read)
    return fast, exact, taken


def outcome(read: Callable[[], Any]) -> Any:
    """What `read()` returns, or its error as text (the same error either way)."""
    try:
        return read()
    except Exception as exc:
        return f"{type(exc).__name__}: {exc}"


def assert_same_result(fast: Any, exact: Any) -> None:
    """The same error, or the same frame (value and wall_time bits included: -0.0 and NaN
    payloads) and the same warnings."""
    if isinstance(exact, str) or isinstance(fast, str):
        assert fast == exact
        return
    pd.testing.assert_frame_equal(fast.frame, exact.frame, check_exact=True)
    for col in ("value", "wall_time"):
        bits = fast.frame[col].to_numpy().view(np.uint64)
        assert (bits == exact.frame[col].to_numpy().view(np.uint64)).all()
    assert [str(w) for w in fast.warnings] == [str(w) for w in exact.warnings]
