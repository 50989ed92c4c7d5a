"""Flair's `ModelTrainer` log (`training.log`, and the console it echoes): `epoch 1 - iter
14/149 - loss 0.93 - samples/sec: 40.5 - lr: 0.100000` a few times an epoch (`iter` counts the
epoch's batches, out of their number), then `EPOCH 1 done: loss 0.5 - lr 0.1000 - bad epochs 0`
(the epoch's average: a summary), then a line per evaluated split, `DEV : loss 0.2 - score 0.79`,
`TEST : loss .. - f-score .. - acc ..` (Flair 0.4), `DEV : loss .. - f1-score (micro avg)  0.91`
(Flair 0.10 on). Fields are ` - `-separated `name value` pairs, some names holding spaces,
brackets or a colon after them; an evaluation line has no counter of its own and belongs to the
epoch just ended."""

import re

from lossforensics.ingest.console._style import NUM, Style

STYLE = Style(
    name="flair",
    markers=(" - iter ", "EPOCH ", "DEV", "TEST", "TRAIN_SPLIT"),
    signature=re.compile(
        r"^epoch \d+ - iter \d+/\d+ - loss |^EPOCH \d+ done: |^(?:DEV|TEST|TRAIN_SPLIT)\s*: loss "
    ),
    counters=(
        re.compile(r"^epoch (?P<epoch>\d+) - iter (?P<batch>\d+)/(?P<batches>\d+)(?= - )"),
        re.compile(r"^EPOCH (?P<epoch>\d+)(?= done: )"),
    ),
    # ` - `-separated `name value` pairs after the counters or the split's colon (the space
    # before the value is no separator of its own: the ` - ` between fields is the one that
    # says these are pairs, on an evaluation line without a counter too)
    pairs=re.compile(
        rf"(?:(?<=^)|(?<=- )|(?<=: ))(?P<key>[A-Za-z][^:\n]*?)(?P<sep>:?)\s+(?P<val>{NUM})"
        r"(?=\s+-\s|\s*$)"
    ),
    eval=re.compile(r"^(?P<split>DEV|TEST|TRAIN_SPLIT)\s*:"),
    summary=re.compile(r"^EPOCH \d+ done: "),
    ignore=frozenset({"bad epochs", "samples/sec", "time (sec)", "momentum"}),
    max_words=12,
)
