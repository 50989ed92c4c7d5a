"""TensorFlow's Estimator (`tf.estimator`, TF 1.x and the TF 2 compatibility API), through its
`INFO:tensorflow:` log: `loss = 3.15373, step = 101 (0.726 sec)` every `log_step_count_steps`,
and after each evaluation `Saving dict for global step 1000: accuracy = 0.727, auc = 0.80,
average_loss = 0.527, global_step = 1000, loss = 5.07, ...`, the evaluation's results at the
checkpoint it evaluated (named `eval/<metric>`). `global_step/sec` is the speed, and `Loss for
final step: 6.1` repeats the last batch's loss: neither is a series."""

import re

from lossforensics.ingest.console._style import Style

STYLE = Style(
    name="tf.estimator",
    markers=("step = ", "Saving dict for global step "),
    signature=re.compile(r"\bloss = \S+, step = \d+|^Saving dict for global step \d+:"),
    counters=(
        re.compile(r"(?:, |^)step = (?P<step>\d+)"),
        re.compile(r"^Saving dict for global step (?P<step>\d+):"),
    ),
    eval=re.compile(r"^Saving dict for global step \d+:"),
    roles={
        "eval/accuracy_baseline": "other",
        "eval/label/mean": "other",
        "eval/prediction/mean": "other",
    },
    ignore=frozenset({"global_step"}),
    context=False,
)
