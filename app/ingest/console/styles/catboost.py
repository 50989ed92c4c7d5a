"""CatBoost's verbose training output: `0:\tlearn: 0.6890123\ttest: 0.6891234\tbest: 0.6891234
(0)\ttotal: 57.2ms\tremaining: 57.1s` (with several eval sets, `test: .. test1: ..`). The
iteration is the step; `learn` is the objective on the training set, a training loss, and
`test` the same objective on the eval set, the validation loss. A log pasted into an issue
often has its tabs turned into spaces (`34:     learn: 0.9508429        test: ..`). The best
value so far, the time spent and the time left are no metrics."""

import re

from lossforensics.ingest.console._style import Style

STYLE = Style(
    name="catboost",
    markers=("\tlearn: ", "  learn: "),
    # (pasted into an issue, the tabs often come back as spaces: `34:     learn: 0.9508429`)
    signature=re.compile(r"^\d+:(?:\t|\s{2,})learn: "),
    counters=(re.compile(r"^(?P<step>\d+):(?=\t|\s{2,}learn: )"),),
    roles={"learn": "train_loss", "test": "val_loss", "test*": "val_loss"},
    ignore=frozenset({"best", "total", "remaining"}),
    context=False,
    max_words=8,
)
