"""Keras 3: a Callback that diagnoses the run from its batch and epoch logs.

    from lossforensics.integrations.keras import LossForensicsCallback

    model.fit(x, y, callbacks=[LossForensicsCallback(stop_on={"nan", "exploding"})])

Each training batch's logs (`loss` and the compiled metrics) are points at the global batch
count. Keras reports running means over the epoch so far; a saw-tooth restarting at every epoch
would read as epoch-periodic structure (unshuffled) and hide a blow-up behind the average, so
the callback turns them back into the mean of the batches since its previous call
((k m_k - j m_j) / (k - j) after k and j batches: each batch's own value, or the mean of a
`steps_per_execution` group; exact up to a smaller last batch's weight). Each epoch's
validation logs (`val_*`) are points at the same count, and the run is ticked at once. A
`stop_on` finding sets `model.stop_training`. At the end of training the final diagnosis JSON
goes to `output` (None: nowhere). Works with any Keras 3 backend. Needs
`pip install 'lossforensics[keras]'`.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from lossforensics.integrations._framework import require
from lossforensics.integrations.monitor import STOP_DEFAULT, Monitor, as_number

keras = require("keras", "keras")


class LossForensicsCallback(keras.callbacks.Callback):  # type: ignore[name-defined]
    """Diagnoses a Keras run as it trains; see the module docstring. Arguments as Monitor's."""

    def __init__(
        self,
        *,
        run: str = "keras",
        stop_on: Iterable[str] = STOP_DEFAULT,
        output: str | Path | None = None,
        post: str | None = None,
        token: str | None = None,
        **monitor: Any,
    ) -> None:
        super().__init__()
        self.monitor = Monitor(
            run, stop_on=stop_on, output=output, post=post, token=token, **monitor
        )
        self.step = 0
        self._means: dict[str, float] = {}  # running means at the previous call this epoch
        self._batches = 0  # batches of this epoch at the previous call

    def on_epoch_begin(self, epoch: int, logs: dict | None = None) -> None:
        self._means, self._batches = {}, 0

    def on_train_batch_end(self, batch: int, logs: dict | None = None) -> None:
        self.step += 1
        if logs and self.monitor.log(self.step, **self._since_last(batch + 1, logs)):
            self.model.stop_training = True

    def _since_last(self, k: int, logs: dict) -> dict[str, Any]:
        """The mean of each logged metric over the batches since the previous call, from
        Keras's running means after `k` batches of the epoch."""
        j = self._batches if self._batches < k else 0
        out: dict[str, Any] = {}
        for name, value in logs.items():
            mean = as_number(value)
            if mean is None:
                continue
            before = self._means.get(name) if j else None
            out[name] = mean if before is None else (k * mean - j * before) / (k - j)
            self._means[name] = mean
        self._batches = k
        return out

    def on_epoch_end(self, epoch: int, logs: dict | None = None) -> None:
        points = {k: v for k, v in (logs or {}).items() if k.startswith("val_")}
        if points:
            self.monitor.log(self.step, **points)
        if self.monitor.live.pending:
            self.monitor.check()
        if self.monitor.should_stop:
            self.model.stop_training = True

    def on_train_end(self, logs: dict | None = None) -> None:
        self.monitor.close()
