"""fairseq with `--log-format json`: `| INFO | train_inner | {"epoch": 1, "update": 0.0, "loss":
"16.475", "ppl": "91120.8", ..., "num_updates": "1", "lr": "2e-05", "gnorm": "20.751", ...}`,
values quoted as text; the evaluation's `| valid | {"epoch": 1, "valid_loss": "17.953", ...,
"valid_num_updates": "10"}` and the epoch's averages `| train | {"epoch": 1, "train_loss":
"19.351", ...}` (a summary, role other). `num_updates` is the step where it is printed."""

import re

from lossforensics.ingest.console._style import DICT_PAIRS, Style

STYLE = Style(
    name="fairseq json",
    signature=re.compile(r"(?:^|\| )(?:train_inner|train|valid) \| \{"),
    counters=(
        re.compile(r"[\"'](?:train_|valid_)?num_updates[\"']:\s*[\"']?(?P<step>\d+)[\"']?"),
        re.compile(r"[\"']epoch[\"']:\s*[\"']?(?P<epoch>\d+)[\"']?"),
    ),
    pairs=DICT_PAIRS,
    eval=re.compile(r"(?:^|\| )valid \|"),
    prefix_eval="",
    summary=re.compile(r"(?:^|\| )train \|"),
    roles={
        "gnorm": "grad_norm",
        "ppl": "other",
        "*_ppl": "other",
        "loss_scale": "other",
        "update": "other",
        "train_*": "other",  # the epoch's averages (a summary line's keys say their split)
    },
    context=False,
    spaced=False,
    max_words=10_000,
)
