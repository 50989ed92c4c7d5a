"""Numbers in evidence and summaries: meaningful digits, changes said with the right verb."""

from __future__ import annotations

import math

from lossforensics.classifiers.diagnosis import Finding, Span
from lossforensics.classifiers.numbers import change, num, rise, round_sig, times


def test_round_sig_drops_float_noise():
    assert round_sig(19.999999999999996) == 20.0
    assert round_sig(0.000123456789) == 0.000123457
    assert round_sig(0.0) == 0.0 and math.isnan(round_sig(float("nan")))


def test_change_never_says_fell_by_a_negative():
    assert change(0.07) == "fell 7%"
    assert change(-0.07) == "rose 7%"


def test_num_is_short():
    assert num(19.999999999999996) == "20"
    assert num(0.1234567) == "0.1235"


def test_times_reads_like_a_person_wrote_it():
    # a blown-up loss's factor: no float tail, no 30-digit integer, grouped thousands
    assert [times(v) for v in (2.0, 11.49, 180.4, 29784.0)] == ["2x", "11.5x", "180x", "29,800x"]
    assert times(1.788e29) == "1.79e+29x"
    # a spike's height: percent under a doubling, a factor from one on
    assert rise(0.45) == "45% above" and rise(4525.75) == "to 4,530x"


def test_evidence_is_rounded_in_the_json():
    f = Finding(
        "x", 0.5, Span(0, 1), {"a": 19.999999999999996, "b": 3, "c": [0.30000000000000004]}, "s"
    )
    assert f.to_dict()["evidence"] == {"a": 20.0, "b": 3, "c": [0.3]}
