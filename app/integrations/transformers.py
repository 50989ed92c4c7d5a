"""transformers: a TrainerCallback that diagnoses the run from what the Trainer logs.

    from lossforensics.integrations.transformers import LossForensicsCallback

    trainer = Trainer(..., callbacks=[LossForensicsCallback(stop_on={"nan", "exploding"})])

`on_log` takes each logged dict (loss, grad_norm, learning_rate, eval_loss, ...) at
`state.global_step`; the end-of-training summary (`train_runtime`, the mean `train_loss`) is not
a point. `on_evaluate` ticks at once, so an evaluation's finding is seen before the next step.
A `stop_on` finding sets `control.should_training_stop`. At the end of training the final
diagnosis JSON is written to `output` (default: `<output_dir>/lossforensics-diagnosis.json`).
Needs `pip install 'lossforensics[transformers]'`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from lossforensics.integrations._framework import MonitorOptions, require
from lossforensics.integrations.monitor import Monitor

transformers = require("transformers", "transformers")

_NOT_POINTS = frozenset({"epoch", "total_flos", "step"})


class LossForensicsCallback(MonitorOptions, transformers.TrainerCallback):  # type: ignore[name-defined]
    """Diagnoses a Trainer's run as it logs; see the module docstring. Arguments as Monitor's
    (`run` defaults to the output folder's name)."""

    def _monitor(self, args: Any) -> Monitor:
        out = Path(args.output_dir or ".")
        return self._open(out.resolve().name, out)

    def on_log(self, args: Any, state: Any, control: Any, logs: dict | None = None, **kw: Any):
        if not logs or "train_runtime" in logs:  # the end summary: means, not points
            return control
        points = {k: v for k, v in logs.items() if k not in _NOT_POINTS}
        if self._monitor(args).log(state.global_step, **points):
            control.should_training_stop = True
        return control

    def on_evaluate(self, args: Any, state: Any, control: Any, **kw: Any):
        monitor = self._monitor(args)
        if monitor.live.pending:
            monitor.check()
        if monitor.should_stop:
            control.should_training_stop = True
        return control

    def on_train_end(self, args: Any, state: Any, control: Any, **kw: Any):
        self._monitor(args).close()
        return control
