"""detectron2's `CommonMetricPrinter`: `[01/02 10:00:00 d2.utils.events]:  eta: 0:10:00
iter: 19  total_loss: 2.1  loss_cls: 0.7  ...  lr: 0.0001  max_mem: 1000M`. The iteration
is the step; values are the median of the last 20 (as printed)."""

import re

from lossforensics.ingest.console._style import STEP, Style

STYLE = Style(
    name="detectron2",
    signature=re.compile(r"\biter: \d+\s"),
    counters=(STEP,),
    ignore=frozenset({"eta", "max_mem"}),
    spaced=False,
    context=False,
)
