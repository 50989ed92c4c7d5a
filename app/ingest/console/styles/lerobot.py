"""Hugging Face LeRobot's `lerobot-train` (and the scripts built on it): `INFO 2025-06-12
10:58:46 ot_train.py:357 step:1K smpl:32K ep:101 epch:2.53 loss:1.226 grdn:34.825 lr:1.0e-05
updt_s:0.502 data_s:0.010`. Counts are printed rounded to a magnitude (`format_big_number`:
`1K` for steps 1000 to 1499): the step is spread over what it stands for (`_rounded`). `grdn`
is the gradient norm before clipping; the samples (`smpl`), episodes (`ep`) and epochs (`epch`)
seen, and the update and data-loading times, are no metrics. An evaluation line in a simulated
environment prints the same counters with its rewards and success rate."""

import re

from lossforensics.ingest.console._style import NUM, Style

STYLE = Style(
    name="lerobot",
    markers=(" smpl:",),
    signature=re.compile(r"\bstep:\d+[KMBT]?\s+smpl:"),
    counters=(re.compile(r"\bstep:(?P<step>\d+[KMBT]?)(?=\s)"),),
    # `key:value`, the value perhaps rounded (`smpl:32K`): the letter is part of the value
    pairs=re.compile(rf"(?<!\S)(?P<key>[^\s:]+)(?P<sep>:)(?P<val>{NUM})[KMBT]?(?=\s|$)"),
    roles={"loss": "train_loss", "grdn": "grad_norm", "lr": "lr"},
    ignore=frozenset({"smpl", "ep", "epch", "updt_s", "data_s", "eval_s"}),
    context=False,
    spaced=False,
    max_words=12,
    rounded_steps=True,
)
