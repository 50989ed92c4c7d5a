"""nanoGPT's `train.py`: `iter 100: loss 2.5012, time 30.12ms, mfu 10.50%` and at each
evaluation `step 250: train loss 1.9000, val loss 2.0000`. The iteration is the step; the
evaluation's `train loss` is an estimate beside the iteration losses, no second training curve.
The fallback reads these lines too, counting that estimate as a curve: it does not win the file
with it (`_choose`)."""

import re

from lossforensics.ingest.console._style import Style

STYLE = Style(
    name="nanogpt",
    signature=re.compile(r"^(?:iter|step) \d+: "),
    counters=(re.compile(r"^(?:iter|step) (?P<step>\d+): "),),
    roles={"loss": "train_loss", "train loss": "other"},
    context=False,
)
