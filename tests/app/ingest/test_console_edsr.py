"""EDSR-PyTorch's trainer log (`trainer.py` and `loss/__init__.py`, copied by RCAN, SAN, HAN,
NLSN and other super-resolution repos), written here line for line as its format strings
print it: the epoch header, a row every `print_every` batches with each loss term's running
mean in brackets, and the evaluation block after each epoch."""

from __future__ import annotations

import numpy as np
from lossforensics.classifiers.diagnose import diagnose
from lossforensics.classifiers.run import RunSeries

from tests.app.ingest._console_text import read_text, roles_of, series_of

IMAGES = 16000  # the epoch's images: `len(self.loader_train.dataset)`
EVERY = 1600  # `print_every` batches x the batch size


def _edsr_log(epochs: int, terms: dict[str, float], blow_up_at: int | None = None) -> str:
    """`[Epoch N]\\tLearning rate: ..`, rows `[1600/16000]\\t[L1: 5.9633]\\t65.8+0.4s` (with a
    `[Total: ..]` term when there are several), then `Evaluation:`, a PSNR line with the best
    so far, `Forward: ..s`, `Saving...` and `Total: ..s`."""
    text = ""
    seen = 0
    for epoch in range(1, epochs + 1):
        text += f"[Epoch {epoch}]\tLearning rate: {1e-4:.2e}\n"
        for images in range(EVERY, IMAGES + 1, EVERY):
            seen += 1
            scale = 1.0 + 4.0 / seen
            if blow_up_at is not None and seen >= blow_up_at:
                scale *= 500.0
            values = {k: v * scale for k, v in terms.items()}
            if len(values) > 1:
                values["Total"] = sum(values.values())
            losses = "".join(f"[{k}: {v:.4f}]" for k, v in values.items())
            text += f"[{images}/{IMAGES}]\t{losses}\t65.8+0.4s\n"
        psnr = 30.0 + epoch / 10
        text += (
            "\nEvaluation:\n"
            f"[DIV2K x2]\tPSNR: {psnr:.3f} (Best: {psnr:.3f} @epoch {epoch})\n"
            "Forward: 12.31s\n\nSaving...\nTotal: 13.02s\n\n"
        )
    return text


def test_edsr_loss_rows_count_images_across_epochs_with_psnr_at_each_epoch_end():
    result = read_text(_edsr_log(epochs=3, terms={"L1": 5.9}))
    assert "edsr" in result.detail
    assert roles_of(result) == {"Learning rate": "lr", "L1": "train_loss", "val/PSNR": "val_score"}
    expected = [e * IMAGES + i for e in range(3) for i in range(EVERY, IMAGES + 1, EVERY)]
    assert series_of(result, "L1")[0] == expected
    steps, psnr = series_of(result, "val/PSNR")
    assert steps == [IMAGES, 2 * IMAGES, 3 * IMAGES]
    assert np.allclose(psnr, [30.1, 30.2, 30.3])  # not the best so far, not timings


def test_edsr_several_loss_terms_are_judged_on_their_total():
    result = read_text(_edsr_log(epochs=2, terms={"L1": 0.02, "VGG54": 1.2, "GAN": 0.005}))
    names = set(result.frame["metric"])
    assert {"L1", "VGG54", "GAN", "Total"} <= names
    assert RunSeries(result.frame).primary("train_loss") == "Total"


def test_edsr_loss_blowing_up_mid_epoch_is_exploding():
    """An L1 term going from about 6 to about 3000 within an epoch (EDSR-PyTorch issue 214's
    shape): the rows are read, so the blow-up is found."""
    result = read_text(_edsr_log(epochs=3, terms={"L1": 5.9}, blow_up_at=25))
    assert diagnose(result.frame).verdict == "exploding"
