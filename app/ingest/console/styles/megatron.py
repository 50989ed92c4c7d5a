"""Megatron-LM and Megatron-DeepSpeed: ` iteration      100/  500000 | consumed samples: 1600 |
... | learning rate: 1.0E-04 | lm loss: 7.5E+00 | loss scale: 65536.0 | grad norm: 2.1 | ...`
and ` validation loss at iteration 1000 | lm loss value: 5.0E+00 | lm loss PPL: 150 |`."""

import re

from lossforensics.ingest.console._style import NUM, Style

STYLE = Style(
    name="megatron",
    signature=re.compile(r"\biteration\s+\d+\s*/\s*\d+\s*\||validation loss at iteration"),
    counters=(
        re.compile(r"\biteration\s+(?P<step>\d+)\s*/\s*\d+"),
        re.compile(r"validation loss at iteration (?P<step>\d+)"),
    ),
    pairs=re.compile(
        rf"(?:^|\|)\s*(?P<key>[A-Za-z][^|:]{{0,60}}?)(?P<sep>:\s*)(?P<val>{NUM})\s*(?=\||$)"
    ),
    eval=re.compile(r"(?P<split>validation) loss at"),
    roles={
        "loss scale": "other",
        "number of *": "other",
        "*PPL*": "other",
        "learning rate": "lr",
        "grad norm": "grad_norm",
        "lm loss": "train_loss",
        "lm loss value": "val_loss",
    },
    context=False,
    spaced=False,
)
