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

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from lossforensics.integrations._framework import require
from lossforensics.integrations.monitor import STOP_DEFAULT, Monitor

transformers = require("transformers", "transformers")

OUTPUT_NAME = "lossforensics-diagnosis.json"
_NOT_POINTS = frozenset({"epoch", "total_flos", "step"})


class LossForensicsCallback(transformers.TrainerCallback):  # type: ignore[name-defined]
    """Diagnoses a Trainer's run as it logs; see the module docstring. Arguments as Monitor's
    (`run` defaults to the output folder's name)."""

    def __init__(
        self,
        *,
        run: str | None = None,
        stop_on: Iterable[str] = STOP_DEFAULT,
        output: str | Path | None = None,
        post: str | None = None,
        token: str | None = None,
        **monitor: Any,
    ) -> None:
        self.options = {"stop_on": stop_on, "post": post, "token": token, **monitor}
        self.run = run
        self.output = output
        self.monitor: Monitor | None = None

    def _monitor(self, args: Any) -> Monitor:
        if self.monitor is None:
            out = Path(args.output_dir or ".")
            self.monitor = Monitor(
                self.run or out.resolve().name,
                output=self.output if self.output is not None else out / OUTPUT_NAME,
                **self.options,
            )
        return self.monitor

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
