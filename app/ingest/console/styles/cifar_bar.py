"""The progress bar of kuangliu's pytorch-cifar (`utils.progress_bar`, copied into many CIFAR,
distillation, pruning and vision-transformer repos): ` [====>.....]  Step: 55ms | Tot: 1s104ms
| Loss: 2.338 | Acc: 7.422% (19/256)` then backspaces to the bar's middle, ` 2/20 ` and a
carriage return, under `Epoch: 3`. The text reader drops the backspaces and keeps each bar's
last state. `Step` and `Tot` are the batch's and the pass's durations, not counters; the count
at the end is the batch of the pass's length. `Loss` and `Acc` are running averages over the
pass: its last state is the epoch's mean. Each epoch draws the training pass's bar and then the
test pass's, with the same keys: a bar whose count starts again within the epoch is the test's
(`Style.later_bars_eval`)."""

import re

from lossforensics.ingest.console._style import EPOCH, Style

_BAR = r"^\s*\[[=>.]*\]\s+Step: [\dDhms]+ \| Tot: [\dDhms]+"

STYLE = Style(
    name="pytorch-cifar progress bar",
    markers=("| Tot: ",),
    signature=re.compile(rf"{_BAR}|^\s*Epoch: \d+\s*$"),
    counters=(
        EPOCH,
        re.compile(r"(?<=\s)(?P<batch>\d+)/(?P<batches>\d+)\s*$"),
    ),
    skip=re.compile(r"^\s*(?:==>|Saving\.\.)"),
    max_words=12,
    spaced=False,
    later_bars_eval=True,
    last_in_epoch=True,
    prefix_eval="test/",
)
