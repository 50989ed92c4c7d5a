"""CatBoost's verbose training output: `0:\tlearn: 0.6890123\ttest: 0.6891234\tbest: 0.6891234
(0)\ttotal: 57.2ms\tremaining: 57.1s` (with several eval sets, `test: .. test1: ..`). The
iteration is the step; `learn` is the objective on the training set, a training loss, and
`test` the same objective on the eval set, the validation loss. The best value so far, the time
spent and the time left are no metrics."""

import re

from lossforensics.ingest.console._style import Style

STYLE = Style(
    name="catboost",
    markers=("\tlearn: ",),
    signature=re.compile(r"^\d+:\tlearn: "),
    counters=(re.compile(r"^(?P<step>\d+):(?=\t)"),),
    roles={"learn": "train_loss", "test": "val_loss", "test*": "val_loss"},
    ignore=frozenset({"best", "total", "remaining"}),
    context=False,
    max_words=8,
)
