"""Hugging Face `Trainer` printed logs: one dict a log call, `{'loss': 0.51, 'grad_norm': 1.2,
'learning_rate': 5e-05, 'epoch': 0.1}`, evaluation dicts `{'eval_loss': ...}`, and the final
`{'train_runtime': ...}` summary (skipped: whole-run averages). The dicts carry no step: printed
over the training bar (tqdm.write, the bar's last state kept before the dict by `_text`), the
bar's position is the global step it was logged at; without a bar the step is the log call's
index; a dict that carries its own `'step'` (TFTrainer's, or a fork's `'global_step'`) is at
that step. An evaluation sits at the train log before it (one before every train log, as a
pasted window may open, at a place of its own before them). `predict_*` entries (a test split) are
kept with role other, apart from `eval_*`; `epoch` is kept as a metric (role other). The Trainer
prints each log call once: a dict equal to the one before it is a new log (steps the fp16 scaler
skipped log `{'loss': 0.0, 'grad_norm': nan, ...}` with the same rate and epoch), no echo."""

import re

from lossforensics.ingest.console._style import DICT_PAIRS, Style

_BAR = r"\s*(?:\d+%\|[^|]*\|\s*\d+/\d+\s*\[[^\]]*\]\s*)?"  # the training bar it was written over

STYLE = Style(
    name="hf trainer printed dicts",
    signature=re.compile(rf"^{_BAR}\{{\s*['\"][A-Za-z_]"),
    counters=(
        re.compile(r"^\s*\d+%\|[^|]*\|\s*(?P<step>\d+)/\d+\s*\[[^\]]*\]\s*(?=\{)"),
        # a dict that carries its own step (TFTrainer's `'step': 10`, forks' `'global_step'`)
        re.compile(r"['\"](?:global_)?step['\"]\s*:\s*(?P<step>\d+)(?=\s*[,}])"),
    ),
    pairs=DICT_PAIRS,
    eval=re.compile(rf"^{_BAR}\{{\s*['\"](?:eval|predict|test)_"),
    skip=re.compile(r"['\"]train_runtime['\"]"),
    prefix_eval="",
    roles={"predict_*": "other", "test_*": "other"},
    context=False,
    needs_counter=False,
    spaced=False,
    max_words=10_000,
    echoes=False,
)
