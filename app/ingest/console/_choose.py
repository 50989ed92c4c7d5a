"""Which style reads a text: the one that finds the most loss points (points of a train or val
loss series of at least two). A specific style wins a tie with the generic fallback, and the
fallback beats the best specific style only when it also finds longer curves: the longest train
loss series plus the longest val loss series. On nanoGPT's log the fallback finds the same
lines' losses under more names (the evaluation's `train loss` beside the `iter N: loss` curve,
which nanoGPT's style knows is no second curve); more names for the same curves is no reason to
win. A style whose `markers` the text holds none of is not tried."""

from __future__ import annotations

import numpy as np
from lossforensics.ingest.console._engine import (
    LOSS_ROLES,
    MIN_LOSS_POINTS,
    Parser,
    Points,
    loss_points,
    role_of,
    to_points,
)
from lossforensics.ingest.console._style import Style
from lossforensics.ingest.console.styles import STYLES


def choose_style(lines: list[str]) -> tuple[Style | None, dict[str, int]]:
    """The style that reads these lines (None when none finds a loss-like series), and each
    style's count of loss points."""
    scores: dict[str, int] = {}
    best: Style | None = None
    best_score = best_curves = 0
    text = "\n".join(lines)
    for style in STYLES:
        if style.last_resort and best is not None:
            continue
        if style.markers and not any(marker in text for marker in style.markers):
            scores[style.name] = 0  # none of its lines can be here
            continue
        parser = Parser(style)
        parser.feed(lines)
        points = to_points(parser.finish())
        score = loss_points(points)
        scores[style.name] = score
        if not score:
            continue
        curves = curve_points(points)
        if best is None or _beats(style, score, curves, best, best_score, best_curves):
            best, best_score, best_curves = style, score, curves
    return best, scores


def _beats(
    style: Style, score: int, curves: int, best: Style, best_score: int, best_curves: int
) -> bool:
    if style.specific == best.specific:
        return score > best_score  # the first in STYLES wins a tie
    if style.specific:
        return score >= best_score or curves >= best_curves
    return score > best_score and curves > best_curves


def curve_points(points: Points) -> int:
    """The points of the longest train loss series plus those of the longest val loss series
    (each of at least MIN_LOSS_POINTS)."""
    if not len(points.metric):
        return 0
    counts = np.bincount(points.metric, minlength=len(points.names))
    longest = dict.fromkeys(LOSS_ROLES, 0)
    for code, name in enumerate(points.names):
        role = role_of(points.roles, name)
        if role in longest and counts[code] >= MIN_LOSS_POINTS:
            longest[role] = max(longest[role], int(counts[code]))
    return sum(longest.values())
