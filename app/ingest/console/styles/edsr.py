"""EDSR-PyTorch's trainer and the super-resolution repos built on it (RCAN, SAN, HAN, NLSN,
DRLN, ...): an epoch opens with `[Epoch 26]\tLearning rate: 1.00e-4`, then every
`print_every` batches `[1600/16000]\t[L1: 5.9633]\t65.8+0.4s`: the images seen so far out of
the epoch's, and each loss term's mean over the epoch so far, in brackets, named after its
function (`L1`, `MSE`, `VGG54`, `GAN`; `[Total: ..]` last when there are several), which names
no loss to the general inference. The timings after them are no metrics. The evaluation after
each epoch prints `[DIV2K x2]\tPSNR: 37.031 (Best: 37.031 @epoch 1)`: the validation PSNR at
the epoch's last step (the best so far beside it dropped). The step counts images:
(epoch - 1) x the epoch's images + the images seen."""

import re

from lossforensics.ingest.console._style import NUM, Style

_HEADER = r"^\s*\[Epoch \d+\]\s+Learning rate:"
_ROW = r"^\s*\[\d+/\d+\]\s+\[[A-Za-z][\w-]*: "
_EVALUATION = r"^\s*(?:\[val\] )?\[[^\]]+\]\s+(?:PSNR|SSIM): "

STYLE = Style(
    name="edsr",
    markers=("]\t[", "] [", "Learning rate: "),
    signature=re.compile(rf"{_HEADER}|{_ROW}|{_EVALUATION}"),
    counters=(
        re.compile(r"^\s*\[Epoch (?P<epoch>\d+)\]"),
        re.compile(r"^\s*\[(?P<batch>\d+)/(?P<batches>\d+)\]"),
    ),
    # a loss term in brackets, the learning rate, the evaluation's score (not its best so far,
    # in parentheses; nor the timings, `65.8+0.4s`, `Total: 415.90s`)
    pairs=re.compile(
        rf"(?:(?<=\[)|(?<=\s))(?P<key>Learning rate|[A-Za-z][\w-]*)(?P<sep>:\s*)(?P<val>{NUM})"
        r"(?:\s*\(Best: [^()]*\))?(?=\]|\s|$)"
    ),
    eval=re.compile(_EVALUATION),
    prefix_eval="val/",
    roles={"Learning rate": "lr", "val/*": "val_score", "*": "train_loss"},
    epoch_lines_lend=True,
    spaced=False,
    max_words=12,
)
