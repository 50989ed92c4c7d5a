"""Marian NMT's `train.log` and `valid.log`: `[2022-12-02 10:48:36] Ep. 48 : Up. 22100 : Sen.
106,869 : Cost 0.41100797 : Time 109.94s : 4642.64 words/s : gNorm 1.0261` (newer versions add
`L.r. 3.0000e-04`; older ones print `Cost 5.12 * 123,456 after 1,234,567`), and for each
validation metric `[valid] Ep. 35 : Up. 16000 : ce-mean-words : 1.62407 : new best` (or
`: stalled 2 times (last best: 1.61)`). The update is the step. `Cost` is the training loss,
`gNorm` the gradient norm, `L.r.` the learning rate; the sentences seen and the timings are no
metrics. A validation's cross-entropy is its loss, its BLEU or chrF a held-out score, and its
perplexity the loss again in another unit (kept with the role other)."""

import re

from lossforensics.ingest.console._style import NUM, Style

STYLE = Style(
    name="marian",
    markers=("Up. ",),
    signature=re.compile(r"(?:^|\] )Ep\. \d+ : Up\. \d+ : "),
    counters=(re.compile(r"Ep\. (?P<epoch>\d+) : Up\. (?P<step>\d+)(?= : )"),),
    # `: name value :` on a training line, `: name : value :` on a validation line
    pairs=re.compile(
        rf"(?<=: )(?P<key>[A-Za-z][\w.\-]*)(?P<sep>\s+:\s+|\s+)(?P<val>{NUM})"
        r"(?=\s*[:*]|\s*$)"
    ),
    eval=re.compile(r"\[(?P<split>valid)\] "),
    roles={
        "Cost": "train_loss",
        "gNorm": "grad_norm",
        "L.r.": "lr",
        "valid/ce-mean-words": "val_loss",
        "valid/ce-mean": "val_loss",
        "valid/ce-sum": "val_loss",
        "valid/cross-entropy": "val_loss",
        "valid/perplexity": "other",
    },
    ignore=frozenset({"Sen.", "Time"}),
    max_words=12,
)
