"""Keras `fit(verbose=1)`: an `Epoch 3/20` line, then a progress bar redrawn with carriage
returns, `12/12 [==============================] - 1s 5ms/step - loss: 0.41 - val_loss: 0.38`;
the bar's last state is the epoch's record. The epoch is the step."""

import re

from lossforensics.ingest.console._style import EPOCH, NUM, Style

STYLE = Style(
    name="keras verbose 1",
    signature=re.compile(r"^Epoch \d+/\d+\s*$|^\s*\d+/\d+ \S*\[=*>?\.*\]|\u2501"),
    counters=(EPOCH,),
    pairs=re.compile(rf"(?<= - )(?P<key>\w+)(?P<sep>: )(?P<val>{NUM})(?![\w.:/])"),
    spaced=False,
    max_words=3,
)
