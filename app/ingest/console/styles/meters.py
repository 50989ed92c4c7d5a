"""The PyTorch reference scripts' meters: `ProgressMeter` (ImageNet example)
`Epoch: [0][ 10/500]\tTime  0.123 ( 0.200)\tLoss 6.9e+00 (6.9e+00)\tAcc@1 0.00 (0.10)` and
torchvision's `MetricLogger` `Epoch: [0]  [ 10/500]  eta: 0:10:00  lr: 0.1  loss: 6.9 (6.9)`, and
Swin Transformer's (and its forks') `Train: [0/300][250/1251]\teta 0:08:23 lr 0.0001\ttime ..
\tloss 6.8954 (6.9101)\tgrad_norm 2.9 (3.1)\tmem 12345MB`.
Each meter prints its latest value and, in brackets, a running average; the latest is taken
(MetricLogger's first number is the median of its last 20 values). `Test:` lines and the
`* Acc@1 ..` summary are evaluation; the epoch's `Epoch: [0] Total time: 0:00:08` is no metric."""

import re

from lossforensics.ingest.console._style import METER_PAIRS, Style

STYLE = Style(
    name="pytorch meters",
    signature=re.compile(r"^(?:Epoch: \[\d+\]|Train: \[\d+/\d+\]\[|Test: ?\[|\s*\* Acc@1)"),
    counters=(
        re.compile(r"Epoch: \[(?P<epoch>\d+)\]\s*\[\s*(?P<batch>\d+)\s*/\s*(?P<batches>\d+)\]"),
        # Swin Transformer's `Train: [0/300][250/1251]`: the epoch out of all, then the batch
        re.compile(r"Train: \[(?P<epoch>\d+)/\d+\]\[\s*(?P<batch>\d+)\s*/\s*(?P<batches>\d+)\]"),
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
