"""Numbers as people read them, for evidence and summaries: rounded to meaningful digits
(19.999999999999996 -> 20.0) and changes said with the right verb ('rose 7%', not 'fell -7%')."""

from __future__ import annotations

import math

SIGNIFICANT = 6  # evidence keeps this many significant digits: exact enough, no float noise


def round_sig(value: float, digits: int = SIGNIFICANT) -> float:
    """`value` rounded to `digits` significant digits; non-finite values and zero unchanged."""
    if not math.isfinite(value) or value == 0:
        return value
    return round(value, digits - 1 - math.floor(math.log10(abs(value))))


SENTENCE_DIGITS = 4  # a number in a sentence keeps 4 significant digits: enough to compare


def num(value: float, digits: int = SENTENCE_DIGITS) -> str:
    """A number for a sentence: 4 significant digits, no exponent for everyday sizes."""
    if not math.isfinite(value):
        return "NaN" if math.isnan(value) else ("inf" if value > 0 else "-inf")
    return f"{round_sig(value, digits):.{digits}g}"


def change(fraction: float, *, fall: str = "fell", rise: str = "rose") -> str:
    """A relative change as words: change(0.07) -> 'fell 7%', change(-0.07) -> 'rose 7%'
    (a positive fraction is an improvement of a loss: a fall)."""
    verb = fall if fraction >= 0 else rise
    return f"{verb} {abs(fraction):.0%}"


# a factor of a million or more is said with an exponent: its digits would say nothing
_TIMES_PLAIN_MAX = 1e6
# a factor keeps 3 significant digits: 11.5x, 29,800x; more would be noise in a blow-up's size
_TIMES_DIGITS = 3


def times(ratio: float) -> str:
    """A factor as words: 3 significant digits, thousands grouped, an exponent from a million:
    times(2.0) -> '2x', times(11.49) -> '11.5x', times(29784) -> '29,800x',
    times(1.79e29) -> '1.79e+29x'."""
    if not math.isfinite(ratio) or abs(ratio) >= _TIMES_PLAIN_MAX:
        return f"{num(ratio, _TIMES_DIGITS)}x"
    decimals = max(0, _TIMES_DIGITS - 1 - math.floor(math.log10(abs(ratio) or 1)))
    text = f"{round_sig(ratio, _TIMES_DIGITS):,.{decimals}f}"
    return (text.rstrip("0").rstrip(".") if "." in text else text) + "x"


def rise(fraction: float) -> str:
    """How far a level rose, as words: under a doubling in percent ('45% above'), from a
    doubling on as a factor of the level before ('to 4,530x'): rise(0.45) -> '45% above',
    rise(4525.8) -> 'to 4,530x'."""
    return f"{fraction:.0%} above" if fraction < 1 else f"to {times(1.0 + fraction)}"
