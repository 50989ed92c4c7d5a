"""PySlowFast's `json_stats:` lines (and the video models built on it: TimeSformer, MViT, X3D,
VideoMAE's SlowFast ports), one JSON object a line behind the logger's prefix:
`[06/20 18:20:01][INFO] logging.py:   97: json_stats: {"_type": "train_iter", "epoch": "1/20",
"iter": "10/500", "loss": 3.30, "lr": 0.009, "top1_err": 77.2, "top5_err": 54.1, ...}`.

`_type` says what a line is: `train_iter` a logging step (the iteration of the epoch, out of its
printed number), `train_epoch` the epoch's averages, `val_epoch` the validation's results at the
epoch's end. The per-batch `val_iter` and `test_iter` lines are passed over (the epoch's line
sums them up). `top1_err` / `top5_err` are error rates, lower being better; `min_top1_err` is the
best so far, no measurement; timings, memory and the ETA are no metrics."""

import re

from lossforensics.ingest.console._style import DICT_PAIRS, Style

STYLE = Style(
    name="slowfast json_stats",
    signature=re.compile(r"json_stats: \{"),
    counters=(
        re.compile(r"\"epoch\":\s*\"(?P<epoch>\d+)/(?P<epochs>\d+)\""),
        re.compile(r"\"iter\":\s*\"(?P<batch>\d+)/(?P<batches>\d+)\""),
    ),
    pairs=DICT_PAIRS,
    eval=re.compile(r"\"_type\":\s*\"(?P<split>val)_epoch\""),
    skip=re.compile(r"\"_type\":\s*\"(?:val|test)_iter\""),
    roles={
        "min_*": "other",
        "val/min_*": "other",
        "dt": "other",
        "dt_*": "other",
        "time_diff": "other",
    },
    ignore=frozenset({"RAM", "gpu_mem", "eta", "mem"}),
    first_epoch=1,
    context=False,
    spaced=False,
    max_words=10_000,
    markers=("json_stats",),
)
