"""Logs pasted where they carry a margin: indented in a README code block, commented out in a
.py file or a notebook (`# `, `// `), quoted (`> `). The margin is taken off before a style
looks at the lines, so they read as the same log printed plainly."""

from __future__ import annotations

import io

import pytest
from lossforensics.ingest.console import read_stream, sniff

HF_DICTS = """\
{'loss': 1.8998, 'grad_norm': 21.921875, 'learning_rate': 1.6e-05, 'epoch': 0.4}
{'loss': 0.0, 'grad_norm': nan, 'learning_rate': 1.2e-05, 'epoch': 0.8}
{'loss': 0.0, 'grad_norm': nan, 'learning_rate': 8.0e-06, 'epoch': 1.2}
"""

METRIC_LOGGER = """\
Epoch: [0]  [  0/161]  eta: 0:00:21  loss_g: 2.0557 (2.0557)  loss: 2.0756 (2.0756)  max mem: 0
Epoch: [0]  [ 50/161]  eta: 0:00:06  loss_g: 1.5708 (1.8150)  loss: 0.9937 (1.2820)  max mem: 0
Epoch: [0] Total time: 0:00:08
Epoch: [1]  [  0/161]  eta: 0:00:08  loss_g: 0.9840 (0.9840)  loss: 1.4060 (1.4060)  max mem: 0
Epoch: [1]  [ 50/161]  eta: 0:00:06  loss_g: 0.7299 (0.9327)  loss: 0.7498 (1.0124)  max mem: 0
"""


def _read(text: str):
    return read_stream(io.BytesIO(text.encode()), name="pasted")


def _reading(result):
    f = result.frame.sort_values("seq")
    return result.detail.split(";")[0], {
        m: (g["step"].tolist(), repr(g["value"].tolist()))  # repr: nan equals nan
        for m, g in f.groupby("metric", observed=True)
    }


def _with_margin(text: str, margin: str, around: str = "") -> str:
    lines = [margin + line if line else line for line in text.splitlines()]
    return around + "\n".join(lines) + "\n" + around


@pytest.mark.parametrize("log", [HF_DICTS, METRIC_LOGGER], ids=["hf dicts", "metric logger"])
@pytest.mark.parametrize("margin", ["  ", "    ", "\t", "# ", "#   ", "// ", "> ", ">>> "])
def test_a_log_with_a_margin_reads_as_the_log_without_it(log, margin):
    code = "history = model.fit(x, y, epochs=2)\n"  # before and after it, no margin
    assert _reading(_read(_with_margin(log, margin, code))) == _reading(_read(log))


def test_the_metric_logger_s_total_time_line_is_no_metric():
    assert set(_read(METRIC_LOGGER).frame["metric"]) == {"loss_g", "loss"}


def test_a_commented_log_is_sniffed_as_console(tmp_path):
    path = tmp_path / "train.py.txt"
    path.write_text(_with_margin(HF_DICTS, "# ", "import torch\n"))
    assert sniff(path)


def test_lines_without_the_margin_keep_their_text():
    """Only the margin shared by most lines is taken off: a line indented further keeps the
    rest of its indentation, and a line without the margin is left whole."""
    from lossforensics.ingest.console._margin import find_margin

    lines = ["# Epoch 1/2", "#   12/12 [====]", "# loss: 0.5", "x = 1", "", "#"]
    assert find_margin(lines) == "# "
    assert find_margin(["  a 1", "    b 2", "  c 3", "d 4"]) == "  "
    assert find_margin(["a 1", "  b 2", "c 3"]) == ""


KERAS2_CHECKPOINT = """\
Epoch 1/3
54976/55000 [============================>.] - ETA: 0s - loss: 0.5747 - acc: 0.7886
Epoch 00001: val_loss improved from inf to 0.34005, saving model to cnn.best.hdf5
55000/55000 [=====] - 1s - loss: 0.5747 - acc: 0.7886 - val_loss: 0.3400 - val_acc: 0.8788
Epoch 2/3
54976/55000 [============================>.] - ETA: 0s - loss: 0.3650 - acc: 0.8660
Epoch 00002: val_loss did not improve from 0.34005
55000/55000 [=====] - 1s - loss: 0.3649 - acc: 0.8660 - val_loss: 0.3500 - val_acc: 0.8972
Epoch 3/3
54976/55000 [============================>.] - ETA: 0s - loss: 0.3206 - acc: 0.8813
Epoch 00003: ReduceLROnPlateau reducing learning rate to 0.00010000000474974513.
55000/55000 [=====] - 1s - loss: 0.3206 - acc: 0.8813 - val_loss: 0.3539 - val_acc: 0.9044
Epoch 00003: early stopping
10000/10000 [==============================] - 2s 232us/step
Test loss: 0.22195505007505417
Test accuracy: 0.9202
"""

KERAS3_CHECKPOINT = """\
Epoch 1/50
4825/4825 \u2501\u2501\u2501\u2501\u2501\u2501 0s 25ms/step - loss: 0.3367
Epoch 1: val_loss improved from inf to 0.06764, saving model to best.weights.h5
4825/4825 \u2501\u2501\u2501 140s - loss: 0.3366 - val_loss: 0.0676 - learning_rate: 0.0010
Epoch 2/50
4824/4825 \u2501\u2501\u2501\u2501\u2501\u2501 0s 26ms/step - loss: 0.0895
Epoch 2: val_loss did not improve from 0.06764
4825/4825 \u2501\u2501\u2501 140s - loss: 0.0894 - val_loss: 0.0691 - learning_rate: 0.0010
"""


def test_keras_callbacks_leave_one_point_per_epoch_from_the_completed_bar():
    """ModelCheckpoint / ReduceLROnPlateau / EarlyStopping with verbose=1 print mid-epoch: the
    bar's state before the message stays on a line of its own. Each epoch is one train and one
    val point, from the completed bar; the messages are no metrics, `Test loss` is not a val
    loss."""
    result = _read(KERAS2_CHECKPOINT)
    detail, series = _reading(result)
    assert detail == "console log, keras verbose 1"
    assert series == {
        "acc": ([1, 2, 3], repr([0.7886, 0.866, 0.8813])),
        "loss": ([1, 2, 3], repr([0.5747, 0.3649, 0.3206])),
        "val_acc": ([1, 2, 3], repr([0.8788, 0.8972, 0.9044])),
        "val_loss": ([1, 2, 3], repr([0.34, 0.35, 0.3539])),
    }


def test_keras3_callback_lines_leave_one_point_per_epoch():
    detail, series = _reading(_read(_with_margin(KERAS3_CHECKPOINT, "# ")))
    assert detail == "console log, keras verbose 1"
    assert series["loss"] == ([1, 2], repr([0.3366, 0.0894]))
    assert series["val_loss"] == ([1, 2], repr([0.0676, 0.0691]))
    assert set(series) == {"loss", "val_loss", "learning_rate"}


def test_a_keras_run_fitted_twice_keeps_both_fits():
    """Only the bar lines in a row of one epoch are redraws: a second `fit` that counts its
    epochs from 1 again keeps its own points."""
    once = KERAS3_CHECKPOINT
    f = _read(once + once.replace("0.3366", "0.2").replace("0.0894", "0.1")).frame
    assert f[f["metric"] == "loss"]["value"].tolist() == [0.3366, 0.0894, 0.2, 0.1]


def test_keras_epoch_headers_joined_to_bar_lines_by_runs_of_spaces_are_their_own_lines():
    """A paste whose line breaks became runs of spaces joins `Epoch 2/50` to the bar after it,
    and `Epoch 4/50` to the end of the bar before it: each epoch still gets its own values (the
    joined lines were passed over, and epoch 4's values landed on epoch 1)."""
    bar = "2/2 [==============================] - 553s 277s/step"
    text = (
        "Epoch 1/50\n"
        f"{bar} - loss: 7732.9583 - val_loss: 6391.2349\n"
        f"Epoch 2/50{' ' * 40}{bar} - loss: 6053.7227 - val_loss: 4881.7363\n"
        f"Epoch 3/50{' ' * 40}{bar} - loss: 4689.0405 - val_loss: 3795.5706{' ' * 18}Epoch 4/50\n"
        f"{bar} - loss: 3626.1056 - val_loss: 3024.2988\n"
        "Epoch 5/50\n"
        f"{bar} - loss: 2811.5165 - val_loss: 2315.7861\n"
    )
    f = _read(text).frame
    loss = f[f["metric"] == "loss"].sort_values("seq")
    assert loss["step"].tolist() == [1, 2, 3, 4, 5]
    assert loss["value"].tolist() == [7732.9583, 6053.7227, 4689.0405, 3626.1056, 2811.5165]
