"""fairseq: `| INFO | train_inner | epoch 001:    100 / 1000 loss=9.5, nll_loss=9.0, ppl=500,
..., num_updates=100, lr=1e-05, gnorm=1.2`, the epoch's `| train | epoch 001 | loss 9.0 | ...`
(a summary, role other) and `| valid | epoch 001 | valid on 'valid' subset | loss 8.5 | ...`
(the logger's columns are cut with the timestamp, so a line may start at `train_inner |`).
fairseq before 0.10 prints the same without them: `| epoch 001:    450 / 1891 loss=11.521,
..., num_updates=445, ...`, the epoch's `| epoch 001 | loss 9.0 | ...` and `| epoch 001 | valid
on 'valid' subset | valid_loss 8.11 | ... | num_updates 600`; its first releases print `| epoch
010  2000 / 8223 loss=1.27 (1.50), ...`, the running mean in brackets (the latest value is
taken). `num_updates` is the step where it is printed."""

import re

from lossforensics.ingest.console._style import EPOCH, METER_PAIRS, Style

STYLE = Style(
    name="fairseq",
    signature=re.compile(
        r"(?:^|\| )(?:train_inner|train|valid) \||^\| epoch \d+(?::?\s+\d+ / \d+ | \| )"
    ),
    counters=(
        re.compile(r"\bepoch (?P<epoch>\d+):?\s+(?P<batch>\d+)\s*/\s*(?P<batches>\d+)"),
        re.compile(r"\bnum_updates[=\s]\s*(?P<step>\d+)"),
        EPOCH,
    ),
    pairs=METER_PAIRS,
    eval=re.compile(r"valid on '(?P<split>[\w.-]+)' subset|(?:^|\| )valid \|"),
    prefix_eval="valid/",
    summary=re.compile(r"(?:^|\| )train \||^\| epoch \d+ \| (?!valid on)"),
    roles={
        "gnorm": "grad_norm",
        "ppl": "other",
        "*_ppl": "other",
        "* ppl": "other",
        "loss_scale": "other",
    },
    context=False,
    max_words=12,
)
