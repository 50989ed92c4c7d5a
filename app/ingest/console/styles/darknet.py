"""Darknet's detector training (pjreddie's and AlexeyAB's YOLOv2-v4 `./darknet detector
train`): one line an iteration, ` 1234: 0.812, 0.905 avg loss, 0.001000 rate, 3.2 seconds,
78976 images, 12.3 hours left` (pjreddie's prints `avg` alone): the iteration, that batch's
loss, the running average of the loss (avg = 0.9 x avg + 0.1 x loss, the curve darknet plots),
the learning rate. The values carry their names after them, so they are named by their place.
The iteration is the step. `./darknet classifier train` prints the epoch after the iteration,
`40245, 4.021: 6.907692, 6.910023 avg, 0.081346 rate, 0.385 seconds, 5151360 images` (the
fraction of the data seen so far). The per-layer lines printed between them (`Region 82 Avg
IOU: ...`, `v3 (mse loss, Normalizer: ...)`) are not read."""

import re

from lossforensics.ingest.console._style import NUM, Style

STYLE = Style(
    name="darknet",
    signature=re.compile(
        rf"^\s*\d+(?:,\s*\d+(?:\.\d+)?)?:\s*(?:{NUM}),\s*(?:{NUM})\s+avg(?: loss)?,\s*"
        rf"(?:{NUM})\s+rate,"
    ),
    counters=(re.compile(r"^\s*(?P<step>\d+)(?:,\s*\d+(?:\.\d+)?)?:(?=\s)"),),
    # a value ends at its comma, or at the word that names it (`avg`, `rate`)
    pairs=re.compile(rf"(?<=[\s,])(?P<val>{NUM})(?=,|\s+avg\b|\s+rate\b)"),
    columns=("loss", "avg loss", "lr"),
    roles={"loss": "train_loss", "avg loss": "train_loss", "lr": "lr"},
    context=False,
    spaced=False,
    max_words=12,
)
