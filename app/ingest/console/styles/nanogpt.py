"""nanoGPT's `train.py`: `iter 100: loss 2.5012, time 30.12ms, mfu 10.50%` and at each
evaluation `step 250: train loss 1.9000, val loss 2.0000`. The iteration is the step (the
general step counter does not take a number followed by a colon, which is how nanoGPT prints
it)."""

import re

from lossforensics.ingest.console._style import Style

STYLE = Style(
    name="nanogpt",
    signature=re.compile(r"^(?:iter|step) \d+: "),
    counters=(re.compile(r"^(?:iter|step) (?P<step>\d+): "),),
    roles={"loss": "train_loss", "train loss": "other"},
    context=False,
)
