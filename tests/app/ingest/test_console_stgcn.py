"""ST-GCN's `print_log` (and MS-G3D's, which prints no batch lines and spaces `Top 1`), written
as the processors write it: a ctime stamp in brackets before every line, the training epoch with
its learning rate, the epoch's mean loss, then the evaluation block."""

from __future__ import annotations

import numpy as np

from tests.app.ingest._console_text import read_text, roles_of, series_of


def _print_log(epochs: range, batches: bool, top: str) -> str:
    text = ""
    for e in epochs:
        stamp = f"[ Fri Nov {e % 28 + 1:2d} 14:26:57 2020 ] "
        text += f"{stamp}Training epoch: {e}, LR: 0.0500\n"
        if batches:
            for b in range(0, 400, 100):
                loss = 4.0 - e / 10 - b / 1e4
                text += f"{stamp}\tBatch({b}/400) done. Loss: {loss:.4f}  lr:0.100000\n"
        mean = 4.0 - e / 10
        text += (
            f"{stamp}\tMean training loss: {mean:.4f} (BS 32: {mean:.4f}).\n"
            f"{stamp}\tTime consumption: [Data]00%, [Network]99%\n"
            f"{stamp}Eval epoch: {e}\n"
            f"{stamp}\tMean test loss of 619 batches: {mean + 0.4:.16f}.\n"
            f"{stamp}\t{top}1: {10 + e:.2f}%\n{stamp}\t{top}5: {30 + e:.2f}%\n"
        )
    return text


def test_msg3d_epoch_losses_and_the_evaluation_block_by_epoch():
    result = read_text(_print_log(range(15, 25), False, "Top "))
    assert "st-gcn" in result.detail
    assert roles_of(result) == {
        "LR": "lr",
        "Mean training loss": "train_loss",
        "Mean test loss": "val_loss",
        "Top 1": "val_score",
        "Top 5": "val_score",
    }
    steps, test = series_of(result, "Mean test loss")
    assert steps == list(range(15, 25))
    assert np.allclose(test, [4.4 - e / 10 for e in range(15, 25)])


def test_stgcn_batch_lines_count_within_the_epoch():
    result = read_text(_print_log(range(1, 4), True, "Top"))
    steps, _ = series_of(result, "Loss")
    assert steps == sorted(steps) and len(steps) == 12
    assert roles_of(result)["Top1"] == "val_score"
