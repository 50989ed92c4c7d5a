"""nnU-Net v2's training log, written as `nnUNetTrainer.print_to_log_file` writes it: a time
stamp before every line, `Epoch N`, the learning rate, then the epoch's losses as a name and a
value with no separator between them."""

from __future__ import annotations

import numpy as np

from tests.app.ingest._console_text import read_text, roles_of, series_of


def _nnunet_v2_log(epochs: int) -> str:
    text = ""
    for e in range(epochs):
        stamp = f"2024-04-26 09:{e:02d}:10.910043: "
        train, val = 0.7 - 0.12 * e, 0.46 - 0.1 * e  # below zero once the Dice term dominates
        text += (
            f"{stamp}\n{stamp}Epoch {e}\n"
            f"{stamp}Current learning rate: {0.01 * (1 - e / 1000):.5g}\n"
            "using pin_memory on device 0\n"
            f"{stamp}train_loss {train:.4g}\n{stamp}val_loss {val:.4g}\n"
            f"{stamp}Pseudo dice [0.0, {0.02 * e:.4g}, 0.0]\n{stamp}Epoch time: 148.59 s\n"
            f"{stamp}Yayy! New best EMA pseudo Dice: {0.01 * e:.4g}\n"
        )
    return text


def test_nnunet_v2_losses_and_learning_rate_by_epoch():
    result = read_text(_nnunet_v2_log(8))
    assert "nnunet" in result.detail
    assert roles_of(result) == {
        "Current learning rate": "lr",
        "train_loss": "train_loss",
        "val_loss": "val_loss",
    }
    steps, train = series_of(result, "train_loss")
    assert steps == list(range(8))
    assert np.allclose(train, [0.7 - 0.12 * e for e in range(8)], atol=1e-3)
    assert sum(v < 0 for v in train) == 2
