"""NVIDIA's tacotron2 `train.py` and the repos that copy it (waveglow, flowtron, mellotron and
many TTS forks): `Train loss 1200 0.412153 Grad Norm 0.871 1.03s/it` every iteration (the
iteration printed after the words, then the loss, the gradient norm and a timing), `Validation
loss 1000: 0.382157` at each checkpoint, and `Epoch: 3` as each epoch starts. The iteration is
the step."""

import re

from lossforensics.ingest.console._style import NUM, Style

_TRAIN = r"^Train loss \d+ "
_VALIDATION = r"^Validation loss \d+:"

STYLE = Style(
    name="tacotron2",
    markers=("Train loss ", "Validation loss "),
    signature=re.compile(f"{_TRAIN}|{_VALIDATION}"),
    # the iteration after the words: only its digits are cut, so the words stay the key
    counters=(
        re.compile(r"(?<=^Train loss )(?P<step>\d+)"),
        re.compile(r"(?<=^Validation loss )(?P<step>\d+)"),
    ),
    # a name and its value with only spaces between (no separator group to call them spaced),
    # or the iteration cut out between them (`COUNTER_BREAK`, then a colon for the validation)
    pairs=re.compile(
        rf"(?P<key>Train loss|Validation loss|Grad Norm)(?P<sep>)[\s:|]+(?P<val>{NUM})(?=\s|$)"
    ),
    eval=re.compile(_VALIDATION),
    prefix_eval="",
    roles={"Train loss": "train_loss", "Validation loss": "val_loss", "Grad Norm": "grad_norm"},
    context=False,
    spaced=False,
)
