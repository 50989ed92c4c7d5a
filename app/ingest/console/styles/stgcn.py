"""ST-GCN's `print_log` and the skeleton-action repos built on it (2s-AGCN, MS-G3D, CTR-GCN,
Shift-GCN), every line after a `[ Wed Jun  6 16:01:16 2018 ] ` stamp (taken off with the
prefixes): `Training epoch: 15, LR: 0.0500` opens an epoch, `\tBatch(100/1879) done. Loss:
5.96  lr:0.100000` a few times in it (ST-GCN; the later repos print none), `\tMean training loss:
3.9268 (BS 32: 3.9268).` its average, then `Eval epoch: 15` and the evaluation's `\tMean test
loss of 619 batches: 4.37.`, `\tTop 1: 16.00%` and `\tTop 5: 35.35%` (`Top1:` in ST-GCN): the
held-out loss and accuracies at the epoch's end. The time consumption lines are no metrics."""

import re

from lossforensics.ingest.console._style import NUM, Style

_EVALUATION = r"^\s*(?:Mean test loss|Top ?[15]: )"

STYLE = Style(
    name="st-gcn print_log",
    markers=("Mean training loss: ", "Batch(", "Eval epoch: "),
    signature=re.compile(
        rf"^(?:Training|Eval) epoch: \d+|^\s*Batch\(\d+/\d+\) done\. |"
        rf"^\s*Mean training loss: |{_EVALUATION}"
    ),
    counters=(
        re.compile(r"^(?:Training|Eval) epoch: (?P<epoch>\d+)"),
        re.compile(r"^\s*Batch\((?P<batch>\d+)/(?P<batches>\d+)\)"),
    ),
    # the test loss names the batches it averaged over; the average in brackets after the
    # training loss (`BS 32: ..`) repeats it
    pairs=re.compile(
        r"(?P<key>Mean training loss|Mean test loss|Loss|LR|lr|Top ?[15])(?: of \d+ batches)?"
        rf"(?P<sep>:\s*)(?P<val>{NUM})(?=[\s%.,]|$)"
    ),
    eval=re.compile(_EVALUATION),
    prefix_eval="",
    roles={
        "Mean training loss": "train_loss",
        "Loss": "train_loss",
        "Mean test loss": "val_loss",
        "Top*": "val_score",
        "LR": "lr",
        "lr": "lr",
    },
    epoch_lines_lend=True,
    spaced=False,
    max_words=12,
)
