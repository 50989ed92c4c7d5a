"""OpenNMT-py's trainer: `Step 50/100000; acc:  12.00; ppl: 26.87; xent: 3.29; lr: 1.00000;
11270/8704 tok/s;      4 sec` (releases before 0.3: `Epoch  1,    50/  657; acc: ...`) and, at
each validation, `Validation perplexity: 5.45` and `Validation accuracy: 44.63` on lines of
their own, after a `Loading dataset from ...` message that does not end the record: they take
the step of the last training line. `xent` is the training loss and `ppl` its exponential (a
derived number); no validation loss is printed, so the validation perplexity is read as its
natural log, the validation cross-entropy (_perplexity)."""

import re

from lossforensics.ingest.console._style import Style

STYLE = Style(
    name="opennmt",
    signature=re.compile(
        r"\bStep\s+\d+\s*/\s*\d+;|\bEpoch\s+\d+,\s+\d+\s*/\s*\d+;"
        r"|^(?:Validation|Train) (?:perplexity|accuracy|xent|loss):"
    ),
    counters=(
        re.compile(r"\bStep\s+(?P<step>\d+)\s*/\s*(?P<steps>\d+);"),
        re.compile(r"\bEpoch\s+(?P<epoch>\d+),\s+(?P<batch>\d+)\s*/\s*(?P<batches>\d+);"),
    ),
    roles={"xent": "train_loss", "ppl": "other", "acc": "train_score"},
)
