"""Console text as lines, streamed: bytes in blocks, decoded as UTF-8 (bad bytes replaced), ANSI
escape codes removed, Windows line ends normalised, and each carriage-return-updated line (a
tqdm, Lightning or Keras progress bar) reduced to its final state."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from typing import BinaryIO

BLOCK = 1 << 20
ANSI = re.compile(r"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)|[@-Z\\-_])")


def clean(text: str) -> str:
    """One block of text with ANSI codes gone and progress-bar updates reduced to the last."""
    if "\x1b" in text:
        text = ANSI.sub("", text)
    if "\x08" in text:  # Keras 3 backspaces over its bar before redrawing it after a \r
        text = text.replace("\x08", "")
    if "\r" in text:
        text = text.replace("\r\n", "\n")
        if "\r" in text:
            text = "\n".join(_last_state(ln) if "\r" in ln else ln for ln in text.split("\n"))
    return text


_PERCENT = re.compile(r"(\d+)%\|")


def _last_state(line: str) -> str:
    """The last thing drawn on a line redrawn with carriage returns (a blank redraw, tqdm
    clearing its bar before a print, does not count). A bar whose percentage drops starts again
    on the same line (Lightning resets its bar for the next epoch): the last state before each
    reset is kept too, each on a line of its own."""
    states: list[str] = []
    last, pct = "", -1
    for part in line.split("\r"):
        if not part.strip():
            continue
        m = _PERCENT.search(part)
        now = int(m.group(1)) if m else -1
        if 0 <= now < pct and last:
            states.append(last)
        last, pct = part, now if m else pct
    return "\n".join([*states, last])


def blocks(stream: BinaryIO, size: int = BLOCK) -> Iterator[bytes]:
    while chunk := stream.read(size):
        yield chunk


def iter_blocks(chunks: Iterable[bytes]) -> Iterator[str]:
    """Cleaned text, a block at a time, each cut at a newline (so a progress bar's updates
    never straddle two blocks); lines are the block split at "\\n"."""
    carry = b""
    for chunk in chunks:
        data = carry + chunk
        cut = data.rfind(b"\n")
        if cut < 0:
            carry = data
            if len(carry) > 16 * BLOCK:  # one endless line (a bar never ended): keep its tail
                carry = carry[-BLOCK:]
            continue
        carry = data[cut + 1 :]
        yield clean(data[:cut].decode("utf-8", errors="replace"))
    if carry.strip():
        yield clean(carry.decode("utf-8", errors="replace"))
