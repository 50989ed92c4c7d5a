"""MXNet `Module.fit` with `Speedometer`: `Epoch[145] Batch [20]\tSpeed: 36.22 samples/sec\t
Train-SmoothL1=40.25`, one metric a line when several are tracked, and the epoch's
`Epoch[145] Train-SmoothL1=2.44` at its end (kept as `epoch/...`, role other: both are running
means since the epoch began). `Epoch[0] Validation-Perplexity=282.45` (`Module.fit`'s
`eval_data`) is an evaluation line: a held-out series, not an epoch average of training.
`Start training` / `Resume training` headers begin a new session of the run. A log that tracks
perplexity only (`Train-Perplexity`, the PTB examples) has its loss read from it (../_perplexity).
insightface's MXNet recipes track their loss as a metric named `lossvalue` (`Batch [6]\tSpeed:
256.09 samples/sec\tlossvalue=0.033868`): a training loss no general rule names.
"""

import re

from lossforensics.ingest.console._style import BATCH, EPOCH, Style

STYLE = Style(
    name="mxnet speedometer",
    # MXNet's own lines only: PyTorch Ignite's and others' `Epoch[50] Loss: ..` open the same way
    signature=re.compile(r"^Epoch\[\d+\]\s+(?:Batch\s*\[|Train-|Validation-|Time cost=)"),
    counters=(EPOCH, BATCH),
    eval=re.compile(r"^Epoch\[\d+\]\s+Validation-"),
    restart=re.compile(r"^(?:Resume|Start|Experimental: start) training", re.I),
    roles={
        "*SmoothL1*": "train_loss",
        "*CrossEntropy*": "train_loss",
        "*-Loss*": "train_loss",
        "lossvalue": "train_loss",
    },
    ignore=frozenset({"Time cost"}),
    context=False,
)
