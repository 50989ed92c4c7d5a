"""nnU-Net v2's training log (`nnUNetTrainer.print_to_log_file`, every line after a time stamp):
`Epoch 5` opens an epoch, then `Current learning rate: 0.00955`, and at its end `train_loss
-0.6712`, `val_loss -0.6543` (a name and a value with no separator between them),
`Pseudo dice [0.81, 0.73]` (one Dice a class, not read), `Epoch time: 148.03 s` and now and then
`Yayy! New best EMA pseudo Dice: 0.77` (a best so far, not read). The epoch is the step; the
loss is Dice plus cross-entropy, below zero once the Dice term dominates. Version 1's `train
loss : 1.33` lines are read by the generic style."""

import re

from lossforensics.ingest.console._style import NUM, Style

_HEADER = r"^Epoch \d+\s*$"
_LOSS = r"^(?:train|val)_loss -?\d"
_LR = r"^Current learning rate: "

STYLE = Style(
    name="nnunet",
    markers=("train_loss ", "Current learning rate: "),
    signature=re.compile(f"{_HEADER}|{_LOSS}|{_LR}"),
    counters=(re.compile(r"^Epoch (?P<epoch>\d+)(?=\s*$)"),),
    # the space alone separates a loss from its value: no separator group to call it spaced
    pairs=re.compile(
        rf"^(?P<key>train_loss|val_loss|Current learning rate)(?P<sep>:?)\s+(?P<val>{NUM})\s*$"
    ),
    roles={"train_loss": "train_loss", "val_loss": "val_loss", "Current learning rate": "lr"},
    spaced=False,
)
