"""Keras 3 (torch backend): a tiny dense model; healthy ends with no warning and the diagnosis
JSON; a huge LR stops within a few steps of the blow-up."""

from __future__ import annotations

import json
import math
import warnings
from pathlib import Path

import keras  # in CI a missing framework fails, not skips
import numpy as np
import pytest
from lossforensics.integrations import LossForensicsWarning
from lossforensics.integrations.keras import LossForensicsCallback


class _Bad(keras.callbacks.Callback):
    def __init__(self) -> None:
        super().__init__()
        self.step = 0
        self.first: float | None = None
        self.bad: int | None = None

    def on_train_batch_end(self, batch, logs=None):  # noqa: ANN001, ANN201
        self.step += 1
        loss = float((logs or {})["loss"])
        self.first = loss if self.first is None else self.first
        if self.bad is None and (not math.isfinite(loss) or loss > 1e3 * self.first):
            self.bad = self.step


def _fit(lr: float, callback: LossForensicsCallback) -> _Bad:
    keras.utils.set_random_seed(0)
    rng = np.random.default_rng(0)
    x = rng.standard_normal((640, 8)).astype("float32")
    w = rng.standard_normal((8, 1))
    y = (x @ w + 0.1 * rng.standard_normal((640, 1))).astype("float32")
    model = keras.Sequential(
        [keras.Input((8,)), keras.layers.Dense(32, activation="tanh"), keras.layers.Dense(1)]
    )
    model.compile(optimizer=keras.optimizers.SGD(learning_rate=lr, momentum=0.9), loss="mse")
    seen = _Bad()
    model.fit(
        x, y, batch_size=32, epochs=8, validation_split=0.2, verbose=0, callbacks=[callback, seen]
    )
    return seen


def test_healthy_keras_no_warning(tmp_path: Path) -> None:
    out = tmp_path / "diagnosis.json"
    with warnings.catch_warnings():
        warnings.simplefilter("error", LossForensicsWarning)
        seen = _fit(0.003, LossForensicsCallback(stop_on={"nan", "exploding"}, output=out))
    assert seen.step == 8 * 16
    assert json.loads(out.read_text())["findings"] == []


def test_exploding_keras_stops() -> None:
    callback = LossForensicsCallback(stop_on={"nan", "exploding"})
    with pytest.warns(LossForensicsWarning):
        seen = _fit(3.0, callback)
    assert callback.monitor.should_stop
    assert seen.bad is not None and seen.step - seen.bad <= 5, (seen.bad, seen.step)
