"""Trax's `training.Loop` (and the Coursera NLP courses built on it): a line a metric,
`Step     10: train CrossEntropyLoss |  5.27117538`, `Step     10: eval  CrossEntropyLoss |
5.19212604`, `Step     10: eval          Accuracy |  0.85005882`. The step is the loop's; the word
after it is the split (`eval` lines are the evaluation, named `eval/<metric>`), and the metric is
the loss or score class the loop was given. `Ran 9 train steps in 6809.59 secs` is no metric."""

import re

from lossforensics.ingest.console._style import NUM, Style

STYLE = Style(
    name="trax",
    markers=("Step ",),
    signature=re.compile(r"^Step\s+\d+: (?:train|eval)\s+\S+\s*\|"),
    counters=(re.compile(r"^Step\s+(?P<step>\d+):"),),
    pairs=re.compile(
        rf"\b(?:train|eval)\s+(?P<key>[A-Za-z_][\w./-]*)(?P<sep>\s*\|\s*)(?P<val>{NUM})\s*$"
    ),
    eval=re.compile(r"^Step\s+\d+: eval\s"),
    context=False,
    spaced=False,
)
