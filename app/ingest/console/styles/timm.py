"""timm's `train.py`: `Train: 3 [ 100/1251 (  8%)]  Loss: 3.52 (3.61)  Time: 0.41s, 620/s
(0.43s, 590/s)  LR: 1.0e-03  Data: 0.01 (0.02)` and `Test: [  48/48]  Time: .. Loss: 0.81
(0.90)  Acc@1: 80.0 (78.1)`. Meters again: a train line's latest value is taken, not the
average; an evaluation is one point, the averages on its last `Test:` line (the result over the
whole held-out set; each batch's own value is noise). The model EMA's evaluation
(`Test (EMA): [..]`) is kept apart from the model's own."""

import re

from lossforensics.ingest.console._style import AVERAGE_METER_PAIRS, METER_PAIRS, Style

STYLE = Style(
    name="timm",
    signature=re.compile(r"^(?:Train: \d+ \[|Test(?: \(EMA\))?: \[)"),
    counters=(
        re.compile(r"Train: (?P<epoch>\d+) \[\s*(?P<batch>\d+)/(?P<batches>\d+)[^\]]*\]"),
        re.compile(r"Test(?: \(EMA\))?: \[\s*(?P<tbatch>\d+)/\d+\]"),
    ),
    pairs=METER_PAIRS,
    eval_pairs=AVERAGE_METER_PAIRS,
    eval_last=True,
    first_epoch=0,
    eval=re.compile(r"^(?:(?P<split>Test \(EMA\))|Test)"),
    prefix_eval="test/",
    note=(
        "meters print the latest value and a running average: the latest was taken for "
        "training, the average on an evaluation's last line for the evaluation"
    ),
)
