"""Lightning: a Callback that diagnoses the run from the metrics the module logs.

    from lossforensics.integrations.lightning import LossForensicsCallback

    trainer = L.Trainer(callbacks=[LossForensicsCallback(stop_on={"nan", "exploding"})])

At the end of a training batch whose step Lightning logs (every `log_every_n_steps`), the
step's loss (the `training_step` output) and the metrics logged so far for that step
(`trainer.logged_metrics`, numbers only) are points at `trainer.global_step`; at the end of a
validation epoch, the validation metrics (`trainer.callback_metrics`, the names holding
`val`) are, and the run is ticked at once. A `stop_on` finding sets `trainer.should_stop`. At
the end of fitting the final diagnosis JSON goes to `output` (default:
`<trainer.log_dir or default_root_dir>/lossforensics-diagnosis.json`).
Needs `pip install 'lossforensics[lightning]'`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from lossforensics.integrations._framework import MonitorOptions, require
from lossforensics.integrations.monitor import Monitor

pl = require("lightning.pytorch", "lightning")

_VAL = ("val", "valid", "eval", "test")


class LossForensicsCallback(MonitorOptions, pl.Callback):  # type: ignore[name-defined]
    """Diagnoses a Lightning run as it trains; see the module docstring. Arguments as
    Monitor's (`run` defaults to the logger's name, else the root folder's)."""

    def _monitor(self, trainer: Any) -> Monitor:
        folder = Path(trainer.log_dir or trainer.default_root_dir or ".")
        name = getattr(trainer.logger, "name", None) or folder.resolve().name
        return self._open(str(name), folder)

    def on_train_batch_end(
        self, trainer: Any, pl_module: Any, outputs: Any, batch: Any, batch_idx: int
    ) -> None:
        step = trainer.global_step
        every = max(int(getattr(trainer, "log_every_n_steps", 1) or 1), 1)
        if step % every:
            return  # a step Lightning does not log costs nothing here either
        loss = outputs.get("loss") if isinstance(outputs, dict) else outputs
        points = {k: v for k, v in trainer.logged_metrics.items() if not _is_val(k)}
        points.setdefault("loss", loss)
        if self._monitor(trainer).log(step, **points):
            trainer.should_stop = True

    def on_validation_epoch_end(self, trainer: Any, pl_module: Any) -> None:
        if trainer.sanity_checking:
            return
        points = {k: v for k, v in trainer.callback_metrics.items() if _is_val(k)}
        monitor = self._monitor(trainer)
        if points:
            monitor.log(trainer.global_step, **points)
        if monitor.live.pending:
            monitor.check()
        if monitor.should_stop:
            trainer.should_stop = True

    def on_fit_end(self, trainer: Any, pl_module: Any) -> None:
        self._monitor(trainer).close()


def _is_val(name: str) -> bool:
    low = name.lower()
    return any(low.startswith(p) or f"/{p}" in low or f"_{p}" in low for p in _VAL)
