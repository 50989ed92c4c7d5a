"""The margin a pasted log carries: the indentation of a README code block (`  Epoch: [0]
[ 50/161] ...`), a comment marker when the log was pasted into a .py file or a notebook (`# `,
`// `), a quote mark (`> `) or the interpreter's prompt (`>>> `). The styles anchor their lines at
the start (`^Epoch \\d+/\\d+`, `^Train: 3 [`, `^{'loss'`), so the margin is taken off before
any style looks at a line.

The margin is the longest prefix of whitespace and at most one such marker that at least half
of the text's non-blank lines start with (the lines around the log, code or prose, need not
have it); it is taken off the lines that start with it, the others are left as they are. It is
found once, on the head of the text, and then taken off every line of the stream."""

from __future__ import annotations

import re
from collections import Counter

# whitespace, then a comment / quote / prompt marker ended by a space or the line's end, then
# whitespace: what may precede the log on each line
_MARGIN = re.compile(r"^[ \t]*(?:(?:#|//|>>>|>)(?=[ \t]|$)[ \t]*)?")


def find_margin(lines: list[str]) -> str:
    """The margin of these lines (the head of a text); "" when there is none."""
    margins = [_MARGIN.match(line).group() for line in lines if line.strip()]  # type: ignore[union-attr]
    if not margins:
        return ""
    prefixes: Counter[str] = Counter()
    for margin in margins:
        prefixes.update(margin[:n] for n in range(1, len(margin) + 1))
    half = (len(margins) + 1) // 2
    shared = [p for p, count in prefixes.items() if count >= half]
    return max(shared, key=len, default="")


def margin_remover(margin: str) -> re.Pattern[str] | None:
    """The pattern that takes `margin` off the start of each line (None for no margin)."""
    return re.compile("^" + re.escape(margin), re.M) if margin else None
