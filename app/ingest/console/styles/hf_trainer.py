"""Hugging Face `Trainer` printed logs: one dict a log call, `{'loss': 0.51, 'grad_norm': 1.2,
'learning_rate': 5e-05, 'epoch': 0.1}`, evaluation dicts `{'eval_loss': ...}`, and the final
`{'train_runtime': ...}` summary (skipped: whole-run averages). The dicts carry no step: the
step is the log call's index, and an evaluation sits at the train log before it. `predict_*`
entries (a test split) are kept with role other, apart from `eval_*`."""

import re

from lossforensics.ingest.console._style import DICT_PAIRS, Style

STYLE = Style(
    name="hf trainer printed dicts",
    signature=re.compile(r"^\s*\{\s*['\"][A-Za-z_]"),
    counters=(),
    pairs=DICT_PAIRS,
    eval=re.compile(r"^\s*\{\s*['\"](?:eval|predict|test)_"),
    skip=re.compile(r"['\"]train_runtime['\"]"),
    prefix_eval="",
    roles={"predict_*": "other", "test_*": "other"},
    context=False,
    needs_counter=False,
    spaced=False,
    max_words=10_000,
)
