"""DARTS (quark0/darts) and the architecture-search repos built on it (PC-DARTS, P-DARTS,
SGAS, ...): `log.txt` written through Python logging, `epoch 3 lr 2.500000e-02`, then every
`report_freq` batches `train 050 1.870327e-02 99.571078 100.000000` (the batch, then the
running averages over the epoch so far of the loss, the top-1 and the top-5 accuracy),
`train_acc 99.676000`, the same for the held-out pass (`valid 050 ...`, `valid_acc ..`; `test`
in the evaluation script). The values carry no keys: they are named by their column. Each
metric's last running average in an epoch is the epoch's (the `_acc` summary repeats it)."""

import re

from lossforensics.ingest.console._style import EPOCH, NUM, Style

_ROW = re.compile(rf"(?:^|\s)(?:train|valid|test) \d{{3,}}(?: (?:{NUM})){{3}}\s*$")

STYLE = Style(
    name="darts",
    markers=("train 0",),
    signature=re.compile(rf"{_ROW.pattern}|(?:^|\s)epoch \d+ lr (?:{NUM})\s*$"),
    counters=(EPOCH, re.compile(r"(?:^|(?<=\s))(?:train|valid|test) (?P<batch>\d{3,})(?= )")),
    columns=("loss", "top1", "top5"),
    columns_on=_ROW,
    eval=re.compile(r"(?:^|\s)(?P<split>valid|test) \d{3,} "),
    skip=re.compile(r"(?:^|\s)(?:train|valid|test)_acc \S+\s*$"),
    roles={
        "loss": "train_loss",
        "top1": "train_score",
        "top5": "train_score",
        "valid/loss": "val_loss",
        "valid/top1": "val_score",
        "valid/top5": "val_score",
        "test/loss": "val_loss",
        "test/top1": "val_score",
        "test/top5": "val_score",
    },
    epoch_lines_lend=True,
    last_in_epoch=True,
)
