"""The `loss_log.txt` of pytorch-CycleGAN-and-pix2pix and the image-translation code built on it
(pix2pixHD, SPADE, CUT): `(epoch: 3, iters: 228, time: 2.017, data: 0.002) D_A: 0.202 G_A: 0.714
cycle_A: 0.175 idt_A: 0.048 ...`, under a `================ Training Loss (<date>)
================` header that every launch of the script appends (the file is opened in append
mode): each header begins a new session of the run. `iters` counts the images seen in the epoch.

A GAN's adversarial terms are a two-player game, not a curve that should fall: the
discriminator's (`D_A`, `D_real`, `D_fake`) and the generator's adversarial loss (`G_GAN`,
CycleGAN's `G_A`/`G_B`, SPADE's `GAN`, CUT's total `G`) hover by design, so they are kept with the
role other. The terms that measure the output against a target (`G_L1`, `cycle_A`, `idt_A`,
`G_VGG`, `G_GAN_Feat`, `NCE`) should fall as training works: they are the training losses."""

import re

from lossforensics.ingest.console._style import EPOCH, Style

# an adversarial term: a discriminator's (`D`, `D_A`, `D_real`, `D_Fake`) or the generator's
# (`G`, `G_GAN`, `G_A`, `G_B`, `GAN`); first match wins, so these come before the catch-all
_ADVERSARIAL = ("D", "D_*", "G", "G_GAN", "G_A", "G_B", "GAN")

STYLE = Style(
    name="pix2pix loss_log",
    markers=("(epoch: ",),
    signature=re.compile(r"^\(epoch: \d+, iters: \d+(?:, time: [^)]*)?\)"),
    counters=(EPOCH, re.compile(r"\biters:\s*(?P<batch>\d+)")),
    restart=re.compile(r"^=+ Training Loss \("),
    roles={**dict.fromkeys(_ADVERSARIAL, "other"), "*": "train_loss"},
    ignore=frozenset({"time", "data"}),
    context=False,
    spaced=False,
    max_words=12,
)
