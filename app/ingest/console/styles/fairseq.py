"""fairseq: `| INFO | train_inner | epoch 001:    100 / 1000 loss=9.5, nll_loss=9.0, ppl=500,
..., num_updates=100, lr=1e-05, gnorm=1.2`, the epoch's `| train | epoch 001 | loss 9.0 | ...`
(a summary, role other) and `| valid | epoch 001 | valid on 'valid' subset | loss 8.5 | ...`.
`num_updates` is the step."""

import re

from lossforensics.ingest.console._style import EPOCH, Style

STYLE = Style(
    name="fairseq",
    signature=re.compile(r"\| (?:train_inner|train|valid) \|"),
    counters=(re.compile(r"\bnum_updates[=\s]\s*(?P<step>\d+)"), EPOCH),
    eval=re.compile(r"\| (?P<split>valid) \|"),
    summary=re.compile(r"\| train \|"),
    roles={"gnorm": "grad_norm", "ppl": "other", "nll_loss": "other"},
    context=False,
    max_words=12,
)
