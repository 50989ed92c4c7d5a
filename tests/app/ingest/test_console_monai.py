"""The MONAI tutorials' training loop output (`spleen_segmentation_3d`, `brats_segmentation_3d`,
the classification notebooks), written here as their print statements write it: an epoch header,
a line a batch, the epoch's average, and the validation's scores with the best so far."""

from __future__ import annotations

import numpy as np

from tests.app.ingest._console_text import read_text, roles_of, series_of

BATCHES = 16


def _monai_log(epochs: int, val_every: int = 2) -> str:
    text = ""
    best = 0.0
    for epoch in range(1, epochs + 1):
        text += f"----------\nepoch {epoch}/600\n"
        losses = []
        for b in range(1, BATCHES + 1):
            loss = 0.7 / epoch + 0.01 * (b % 3)
            losses.append(loss)
            text += f"{b}/{BATCHES}, train_loss: {loss:.4f} step time: 0.9{b:02d}\n"
        text += f"epoch {epoch} average loss: {np.mean(losses):.4f}\n"
        if epoch % val_every == 0:
            dice = 0.1 * epoch
            if dice > best:
                best = dice
                text += "saved new best metric model\n"
            text += (
                f"current epoch: {epoch} current mean dice: {dice:.4f}"
                f"\nbest mean dice: {best:.4f} at epoch: {epoch}\n"
            )
        text += f"time consuming of epoch {epoch} is: 30.7164\n"
    return text


def test_monai_batches_count_across_epochs_and_dice_is_read_at_each_validation():
    result = read_text(_monai_log(6))
    assert "monai" in result.detail
    roles = roles_of(result)
    assert roles["train_loss"] == "train_loss" and roles["val/mean dice"] == "val_score"
    assert not any("best" in m or "time" in m for m in roles)
    assert series_of(result, "train_loss")[0] == list(range(1, 6 * BATCHES + 1))
    steps, dice = series_of(result, "val/mean dice")
    assert steps == [2 * BATCHES, 4 * BATCHES, 6 * BATCHES]
    assert np.allclose(dice, [0.2, 0.4, 0.6])
