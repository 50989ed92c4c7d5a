"""Karpathy's build-nanogpt `log/log.txt`: one value a line, the step first, then what it is:
`0 val 10.9310`, `0 hella 0.2413`, `5 train 10.883945`. `train` is the training loss, `val` the
validation loss (estimated every few hundred steps) and `hella` the HellaSwag accuracy, a held-out
score. No key is printed with a separator, so the general styles read none of it."""

import re

from lossforensics.ingest.console._style import NUM, Style

STYLE = Style(
    name="build-nanogpt",
    signature=re.compile(rf"^\d+ (?:train|val|hella) (?:{NUM})\s*$"),
    counters=(re.compile(r"^(?P<step>\d+)(?= )"),),
    pairs=re.compile(rf"(?P<key>train|val|hella)(?P<sep> )(?P<val>{NUM})\s*$"),
    roles={"train": "train_loss", "val": "val_loss", "hella": "val_score"},
    context=False,
    max_words=0,
)
