"""The PyTorch tutorials' own print in their `trainIters` / `train` loops (*NLP From Scratch*:
the seq2seq translation and the character-level RNN generation), copied by many courses: the time
spent, the time left (the translation's), the iteration and how far the run got, then the average
loss since the last print, with no name: `13m 10s (- 184m 30s) (5000 6%) 2.8535`, `40m 6s (55000
73%) 1.1813`; the name classification tutorial prints the iteration and its share first, then the
time, the loss, a name and its guess (`35000 35% (1m 4s) 2.1451 Minitsky / Polish ✗ (Russian)`).
The iteration is the step; the loss is named `loss`."""

import re

from lossforensics.ingest.console._style import NUM, Style

_TIMES = r"^\s*\d+m \d+s (?:\(- ?\d+m \d+s\) )?"
# the classification tutorial's iteration and share, and its time; after the loss, a name, the
# guess and a mark (✓, or ✗ and the right answer)
_CLASSIFIED = r"^\s*(?P<step>\d+) \d+% \(\d+m \d+s\) "
_GUESS = r" \S.* / \S+ [✓✗]"

STYLE = Style(
    name="pytorch tutorial",
    markers=("%) ", "% ("),
    signature=re.compile(rf"{_TIMES}\(\d+ \d+%\) (?:{NUM})\s*$|{_CLASSIFIED}(?:{NUM}){_GUESS}"),
    counters=(
        re.compile(rf"{_TIMES}\((?P<step>\d+) \d+%\)"),
        re.compile(_CLASSIFIED),
    ),
    pairs=re.compile(rf"(?<=\s)(?P<val>{NUM})(?:\s*$|(?={_GUESS}))"),
    columns=("loss",),
    roles={"loss": "train_loss"},
    context=False,
    spaced=False,
)
