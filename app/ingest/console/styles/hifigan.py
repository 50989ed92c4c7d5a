"""jik876/hifi-gan's `train.py` and the vocoder and voice-conversion repos built on it: `Steps :
210005, Gen Loss Total : 25.663, Mel-Spec. Error : 0.407, s/b : 1.131` every `stdout_interval`
steps. The mel-spectrogram L1 error (named `Mel-Spec`) is the curve to read (the term against a
target, which the maintainers point users to); the generator's total holds the adversarial and
feature-matching terms, which hover by design (role other, as pix2pix's adversarial terms).
Seconds a batch are no metric."""

import re

from lossforensics.ingest.console._style import NUM, Style

STYLE = Style(
    name="hifi-gan",
    markers=("Steps : ",),
    signature=re.compile(r"^Steps : \d+, Gen Loss Total : "),
    counters=(re.compile(r"^Steps : (?P<step>\d+)(?=,)"),),
    # `Mel-Spec. Error` is named `Mel-Spec`: a full stop inside a key ends a sentence before it
    # everywhere else (`Training done. Best AUC: ..`)
    pairs=re.compile(rf"(?P<key>Gen Loss Total|Mel-Spec)(?P<sep>(?:\. Error)? : )(?P<val>{NUM})"),
    roles={"Mel-Spec": "train_loss", "Gen Loss Total": "other"},
    context=False,
    spaced=False,
)
