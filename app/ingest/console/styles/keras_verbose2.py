"""Keras `fit(verbose=2)`: an `Epoch 3/20` line, then one line for the epoch,
`12/12 - 0s - 3ms/step - loss: 0.41 - val_loss: 0.38` (Keras 3; tf.keras prints no step
count first; Keras 1 prints `15s - loss: 1.0029 - acc: 0.5834 - val_loss: ..`). The epoch is
the step."""

import re

from lossforensics.ingest.console._style import EPOCH, NUM, Style

STYLE = Style(
    name="keras verbose 2",
    signature=re.compile(r"^Epoch \d+/\d+\s*$|^(?:\d+/\d+ )?(?:- )?\d+m?s - (?:.* - )?\w+: "),
    counters=(EPOCH,),
    pairs=re.compile(rf"(?<= - )(?P<key>\w+)(?P<sep>: )(?P<val>{NUM})(?![\w.:/])"),
    spaced=False,
    max_words=2,
)
