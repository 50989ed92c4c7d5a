"""ESPnet2's trainer (`exp/*/train.log`): `3epoch:train:101-200batch: iter_time=..,
loss_ctc=150.3, loss_att=60.2, acc=0.31, loss=87.3, grad_norm=.., optim0_lr0=1.0e-03, ..`
(the epoch, then the span of batches the values are means over: the step is the span's last
batch; FunASR adds `:200num_updates`), and after each epoch `3epoch results: [train] ..,
loss=.., [valid] loss=.., acc=.., cer=..`: the epoch's means, whose `[valid]` part is the
validation. The `[train]` part repeats the batches' means, so it is a summary."""

import re

from lossforensics.ingest.console._style import Style

STYLE = Style(
    name="espnet",
    signature=re.compile(r"\d+epoch(?::train:\d+-\d+batch:| results:)"),
    counters=(
        re.compile(r"(?<![\w.])(?P<epoch>\d+)epoch(?=:train:| results:)"),
        re.compile(r"(?<=:)\d+-(?P<batch>\d+)batch(?::\d+num_updates)?:"),
    ),
    spaced=False,
    max_words=12,
)
