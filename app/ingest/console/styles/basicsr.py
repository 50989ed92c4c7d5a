"""BasicSR's `MessageLogger` and the image-restoration projects built on it (Real-ESRGAN, GFPGAN,
CodeFormer, NAFNet, Restormer, HAT): `[NAFNe..][epoch: 12, iter:   1,050, lr:(1.000e-03,)]
[eta: 1 day, 23:02:06, time (data): 0.250 (0.002)] l_pix: 2.7119e-02 l_percep: ..`. The
iteration is global and printed with its thousands grouped; the learning rates of the optimizers
are a tuple (the first is read). Every loss is named `l_<what>` (`l_pix`, `l_percep`, a GAN's
`l_g_gan`, `l_d_real`), which names no loss to the general inference. The ETA and the timings
are no metrics. A validation is printed as `Validation <dataset>` then a line a metric,
`\t # psnr: 28.1234\tBest: 28.1234 @ 5000 iter`: the value at the last iteration, the best so far
beside it dropped."""

import re

from lossforensics.ingest.console._style import NUM, Style

STYLE = Style(
    name="basicsr",
    markers=(", lr:(",),
    signature=re.compile(r"\]\[epoch:\s*\d+, iter:\s*[\d,]+, lr:\(|^(?:\[val\] )?\s*# \w+: "),
    counters=(re.compile(r"\[epoch:\s*\d+, iter:\s*(?P<step>\d{1,3}(?:,\d{3})*)(?=, lr:)"),),
    # `key: value` after the counters, the first of the optimizers' learning rates among them;
    # the `time (data): 0.250 (0.002)` bracket is no pair, the ETA and a best so far are ignored
    pairs=re.compile(
        rf"(?:(?<=\s)|(?<=^)|(?<=, ))(?P<key>[A-Za-z]\w*)(?P<sep>:\s*\(?)"
        rf"(?P<val>{NUM})(?=[,)\s]|$)"
    ),
    ignore=frozenset({"eta", "Best"}),
    eval=re.compile(r"^(?:\[val\] )?\s*# "),
    prefix_eval="val/",
    roles={"l_*": "train_loss", "lr": "lr"},
    spaced=False,
    max_words=12,
)
