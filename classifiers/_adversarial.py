"""A GAN's losses, told apart by name: which of a run's training losses is the one to judge.

A GAN logs its discriminator's loss (`loss_D`, `d_loss`, `Loss_D`, `critic_loss`, BasicSR's
`l_d_real`) and its generator's (`loss_G`, `g_loss`, `Loss_G`, `l_g_gan`), often beside a
reconstruction term (`loss_pixel`, `loss_G_l1`, `l_g_pix`). The adversarial pair is a
two-player game: the discriminator's loss hovers or rises as the generator gets better, by
design. Of a run's training losses, a term measured against a target comes first, then the
generator's, and the discriminator's last, whatever their names' order (`loss_D` sorts before
`loss_G`)."""

from __future__ import annotations

from lossforensics.classifiers.roles import name_words

# a loss by name: `loss_D`, or BasicSR's `l_d_real` / `l_g_gan` (every loss there is `l_<what>`)
_LOSS_WORDS = frozenset({"loss", "l"})
_DISCRIMINATOR = frozenset({"d", "dis", "disc", "discriminator", "critic"})
_GENERATOR = frozenset({"g", "gen", "generator"})
# a penalty that regularises the game (path length, R1, gradient penalty): never the loss read
_PENALTY = frozenset({"penalty", "gp"})
# a generator's adversarial part, beside its total (`loss_G_adv`, `G_GAN`)
_ADVERSARIAL_PART = frozenset({"adv", "gan", "adversarial"})
# the ranks, in the order read: no part of the game, the generator's loss, its adversarial
# part alone, the discriminator's
TARGET, GENERATOR, GENERATOR_ADVERSARIAL, DISCRIMINATOR = range(4)
# a term against a target, whoever's it is (`loss_G_l1`, `G_cycle_loss`): not the game's
_TARGET = frozenset(
    {"l1", "l2", "mse", "pixel", "pix", "cycle", "idt", "identity", "content", "perceptual"}
    | {"percep", "vgg"}
    | {"rec", "recon", "reconstruction", "feat"}
)


def adversarial_rank(metric: str) -> int:
    """Where a training loss is read among a GAN's: TARGET (no part of the adversarial game),
    GENERATOR, GENERATOR_ADVERSARIAL, DISCRIMINATOR."""
    tokens = name_words(metric)
    if not tokens & _LOSS_WORDS or tokens & _TARGET:
        return TARGET
    if tokens & _DISCRIMINATOR:
        return DISCRIMINATOR
    if tokens & _PENALTY:  # a regulariser's penalty (StyleGAN's `Loss/pl_penalty`): no target
        return GENERATOR_ADVERSARIAL
    if tokens & _GENERATOR:
        return GENERATOR_ADVERSARIAL if tokens & _ADVERSARIAL_PART else GENERATOR
    return TARGET
