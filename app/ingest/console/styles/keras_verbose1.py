"""Keras `fit(verbose=1)`: an `Epoch 3/20` line, then a progress bar redrawn with carriage
returns, `12/12 [==============================] - 1s 5ms/step - loss: 0.41 - val_loss: 0.38`;
the bar's last state is the epoch's record. The epoch is the step. A callback printing
mid-epoch (`Epoch 00001: val_loss improved from inf to 0.34005, saving model to ...`, `Epoch 4:
val_loss did not improve from 0.25387`, `Epoch 00012: ReduceLROnPlateau reducing learning rate
to ...`, `Epoch 00015: early stopping`) leaves the bar's state before it on a line of its own:
the callback's line is no metric line, and of an epoch's bar lines the last is the epoch's
(`last_in_epoch`). A bar above the log's first `Epoch 3/20` (a notebook's output cut at the
top) is the epoch before it (`leading_epoch`). A `Test loss: 0.22` printed after `fit` is not
read."""

import re

from lossforensics.ingest.console._style import EPOCH, NUM, TRIAL_HEADER, Style

# a bar's line: `12/12 [==============================] - 1s ...`, Keras 3's `12/12 ━━━━━━ 1s ...`
BAR = re.compile(r"^\s*\d+/\d+ (?:\S*\[=*>?\.*\]|\u2501+ )")

# a callback's message on a line of its own (`Epoch 00018: early stopping`): no epoch header
CALLBACK = re.compile(r"^Epoch \d+: ")
# the header that starts an epoch: a bar above the log's first one is the epoch before it
HEADER = re.compile(r"^Epoch (\d+)/\d+\s*$")

STYLE = Style(
    name="keras verbose 1",
    signature=re.compile(rf"^(?:Epoch \d+(?:/\d+\s*$|: )|{BAR.pattern[1:]})|\u2501"),
    counters=(EPOCH,),
    opens=re.compile(r"^Epoch \d+: "),  # a callback's message: the bar lines go on after it
    pairs=re.compile(rf"(?<= - )(?P<key>\w+)(?P<sep>: )(?P<val>{NUM})(?![\w.:/])"),
    spaced=False,
    max_words=3,
    last_in_epoch=True,
    leading_epoch=HEADER,
    trial=TRIAL_HEADER,  # a fold's or a search trial's fit is a run of its own
)
