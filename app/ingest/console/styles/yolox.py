"""YOLOX's trainer, logged with loguru: `2022-08-07 20:23:28 | INFO | yolox.core.trainer:261 -
epoch: 1/300, iter: 10/14786, mem: 584Mb, iter_time: 0.224s, data_time: 0.002s, total_loss:
14.6, iou_loss: 4.6, l1_loss: 0.0, conf_loss: 7.8, cls_loss: 2.1, lr: 2.287e-11, size: 416,
ETA: 11 days, 11:38:15`. The values printed with a unit (`584Mb`, `0.224s`) and the ETA are
not metrics; `size` is the multi-scale input size. The COCO evaluation table is not read."""

import re

from lossforensics.ingest.console._style import Style

STYLE = Style(
    name="yolox",
    signature=re.compile(r"\bepoch: \d+/\d+, iter: \d+/\d+, "),
    counters=(
        re.compile(
            r"\bepoch: (?P<epoch>\d+)/(?P<epochs>\d+), iter: (?P<batch>\d+)/(?P<batches>\d+)"
        ),
    ),
    ignore=frozenset({"ETA"}),
    roles={"size": "other", "total_loss": "train_loss"},
    spaced=False,
    context=False,
    max_words=12,
)
