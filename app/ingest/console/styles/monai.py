"""The MONAI tutorials' training loops (spleen, BraTS, UNETR, Swin UNETR segmentation; the
classification notebooks), copied into many medical-imaging repos: `----------` and `epoch
14/300` open an epoch, then a line a batch, `1/16, train_loss: 0.1162` (a step time may follow),
`epoch 14 average loss: 0.2148` (the epoch's average: a summary), and after each validation
`current epoch: 14 current mean dice: 0.9157 best mean dice: 0.9157 at epoch: 14` (the
classification notebooks: `current accuracy: .. current AUC: ..`), on one line or with the best
on the next:
the held-out scores at the epoch's end (`val/mean dice`), the best so far not read. A batch is
counted out of the epoch's, so the step is (epoch - 1) x the batches + the batch. The timings
and `time consuming of epoch 14 is: 30.7` are no metrics."""

import re

from lossforensics.ingest.console._style import NUM, Style

_HEADER = r"^epoch \d+/\d+\s*$"
_BATCH = r"^\d+/\d+, train_loss: "
_AVERAGE = r"^epoch \d+ average loss: "
_EVALUATION = r"^current epoch: \d+ current "

STYLE = Style(
    name="monai",
    markers=(", train_loss: ", "current epoch: "),
    signature=re.compile(f"{_HEADER}|{_BATCH}|{_AVERAGE}|{_EVALUATION}"),
    counters=(
        re.compile(r"^epoch (?P<epoch>\d+)/\d+(?=\s*$)"),
        re.compile(r"^(?P<batch>\d+)/(?P<batches>\d+)(?=, train_loss: )"),
        re.compile(r"^epoch (?P<epoch>\d+)(?= average loss: )"),
        re.compile(r"^current epoch: (?P<epoch>\d+)(?= current )"),
    ),
    # a key after a comma, a value or the counters cut out (`current` is the validation's
    # word, not the metric's name); the best so far, where it was, and the timings are not
    pairs=re.compile(
        r"(?:(?<=^)|(?<=[\d\s,]\s))(?:current\s+)?"
        rf"(?P<key>(?!best\b|at\b|step time\b)[A-Za-z_][\w ]*?)(?P<sep>:\s*)(?P<val>{NUM})"
        r"(?=\s|$)"
    ),
    eval=re.compile(_EVALUATION),
    prefix_eval="val/",
    summary=re.compile(_AVERAGE),
    roles={"train_loss": "train_loss"},
    epoch_lines_lend=True,
    spaced=False,
    max_words=12,
)
