"""The PyTorch reference scripts' meters: `ProgressMeter` (ImageNet example)
`Epoch: [0][ 10/500]\tTime  0.123 ( 0.200)\tLoss 6.9e+00 (6.9e+00)\tAcc@1 0.00 (0.10)` and
torchvision's `MetricLogger` `Epoch: [0]  [ 10/500]  eta: 0:10:00  lr: 0.1  loss: 6.9 (6.9)`.
Each meter prints its latest value and, in brackets, a running average; the latest is taken
(MetricLogger's first number is the median of its last 20 values). `Test:` lines and the
`* Acc@1 ..` summary are evaluation; the epoch's `Epoch: [0] Total time: 0:00:08` is no metric."""

import re

from lossforensics.ingest.console._style import METER_PAIRS, Style

STYLE = Style(
    name="pytorch meters",
    signature=re.compile(r"^(?:Epoch: \[\d+\]|Test: ?\[|\s*\* Acc@1)"),
    counters=(
        re.compile(r"Epoch: \[(?P<epoch>\d+)\]\s*\[\s*(?P<batch>\d+)\s*/\s*(?P<batches>\d+)\]"),
        re.compile(r"Test: ?\[\s*(?P<tbatch>\d+)\s*/\s*\d+\]"),
    ),
    pairs=METER_PAIRS,
    first_epoch=0,
    skip=re.compile(r"\] Total time: "),
    eval=re.compile(r"^(?:Test|\s*\*)"),
    prefix_eval="test/",
    ignore=frozenset({"eta", "max mem"}),
    note="meters print the latest value and a running average: the latest was taken",
)
