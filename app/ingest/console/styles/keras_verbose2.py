"""Keras `fit(verbose=2)`: an `Epoch 3/20` line, then one line for the epoch,
`12/12 - 0s - 3ms/step - loss: 0.41 - val_loss: 0.38` (Keras 3; tf.keras prints no step
count first; Keras 1 prints `15s - loss: 1.0029 - acc: 0.5834 - val_loss: ..`, Keras 2.1
` - 498s - loss: 1.5765 - val_loss: ..` with a space before the dash). The epoch is
the step. A callback's message (`Epoch 00018: early stopping`, `Epoch 00005: ReduceLROnPlateau
reducing ...`) is no header, whatever epoch it names: stdout buffering prints it between the
last `Epoch 19/50` and that epoch's line, and its number may count from 0. An epoch's line above
the log's first `Epoch 3/20` (a notebook's output cut at the top) is epoch 2's
(`leading_epoch`)."""

import re

from lossforensics.ingest.console._style import EPOCH, NUM, TRIAL_HEADER, Style
from lossforensics.ingest.console.styles.keras_verbose1 import CALLBACK, HEADER

STYLE = Style(
    name="keras verbose 2",
    # (Keras 2.1 opens the epoch's line with a space: ` - 498s - loss: 1.5765`)
    signature=re.compile(r"^Epoch \d+/\d+\s*$|^ ?(?:\d+/\d+ )?(?:- )?\d+m?s - (?:.* - )?\w+: "),
    counters=(EPOCH,),
    skip=CALLBACK,
    pairs=re.compile(rf"(?<= - )(?P<key>\w+)(?P<sep>: )(?P<val>{NUM})(?![\w.:/])"),
    spaced=False,
    max_words=2,
    leading_epoch=HEADER,
    trial=TRIAL_HEADER,  # a fold's or a search trial's fit is a run of its own
)
