"""tqdm and PyTorch Lightning progress bars: `Epoch 0: 100%|####| 32/32 [00:01<00:00,
20.1it/s, v_num=0, train_loss=0.123, val_loss=0.2]`, redrawn with carriage returns: each bar's
last state is one record. The epoch in the bar's description is the step; a bar without one is
numbered in order. `v_num` (Lightning's version number) is not a metric."""

import re

from lossforensics.ingest.console._style import EPOCH, NUM, Style

STYLE = Style(
    name="progress bar (tqdm / lightning)",
    signature=re.compile(r"\|\s*\d+/\d+\s*\[[^\]]*\]|\d+%\|"),
    counters=(EPOCH,),
    pairs=re.compile(
        rf"(?<=[,\[]) ?(?P<key>[A-Za-z_][\w\-/.@]*)(?P<sep>=)(?P<val>{NUM})(?![\w.:/])"
    ),
    ignore=frozenset({"v_num"}),
    context=False,
    needs_counter=False,
    spaced=False,
    max_words=12,
)
