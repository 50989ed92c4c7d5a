"""The sniffers' first lines: what `str.splitlines` gives, from the head's prefix only."""

from __future__ import annotations

import random

from lossforensics.ingest._source import first_line, leading_lines


def test_leading_lines_are_the_first_of_splitlines_for_every_line_boundary():
    boundaries = ["\n", "\r", "\r\n", "\x0b", "\x0c", "\x1c", "\x85", "\u2028", ""]
    rng = random.Random(7)
    for _ in range(5000):
        text = "".join(rng.choice(["a", "b c", *boundaries]) for _ in range(rng.randint(0, 25)))
        n = rng.randint(1, 7)
        assert leading_lines(text, n) == text.splitlines()[:n], (text, n)


def test_first_line_of_a_long_head():
    head = "step,loss\r\n" + "1,0.5\n" * 20_000
    assert first_line(head) == "step,loss"
    assert first_line("") == ""
