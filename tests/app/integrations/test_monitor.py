"""Monitor in a plain PyTorch loop: a healthy run ends with no warning and its diagnosis JSON;
a learning rate that blows the run up stops it within a few steps of the first bad loss."""

from __future__ import annotations

import json
import math
import warnings
from pathlib import Path

import pytest
import torch
from lossforensics.integrations import LossForensicsWarning, Monitor, TrainingStopped


def _loop(lr: float, monitor: Monitor, steps: int = 200) -> tuple[int, int | None]:
    """A small MLP regression; returns (steps run, first step whose loss is not finite or 1e3
    above the start)."""
    torch.manual_seed(0)
    x = torch.randn(512, 8)
    y = x @ torch.randn(8, 1) + 0.1 * torch.randn(512, 1)
    model = torch.nn.Sequential(torch.nn.Linear(8, 32), torch.nn.Tanh(), torch.nn.Linear(32, 1))
    opt = torch.optim.SGD(model.parameters(), lr=lr, momentum=0.9)
    first = None
    bad = None
    for step in range(steps):
        idx = torch.randint(0, 512, (64,))
        loss = torch.nn.functional.mse_loss(model(x[idx]), y[idx])
        opt.zero_grad()
        loss.backward()
        grad = torch.nn.utils.clip_grad_norm_(model.parameters(), float("inf"))
        opt.step()
        value = loss.item()
        first = value if first is None else first
        if bad is None and (not math.isfinite(value) or value > 1e3 * first):
            bad = step
        if monitor.log(step, loss=value, lr=lr, grad_norm=grad):
            return step + 1, bad
    return steps, bad


def test_healthy_loop_no_warning_and_final_json(tmp_path: Path) -> None:
    out = tmp_path / "diagnosis.json"
    with warnings.catch_warnings():
        warnings.simplefilter("error", LossForensicsWarning)
        with Monitor("healthy", stop_on={"nan", "exploding"}, output=out) as monitor:
            ran, _ = _loop(0.01, monitor)
    assert ran == 200 and not monitor.should_stop
    written = json.loads(out.read_text())
    assert written["run"] == "healthy" and written["findings"] == []
    assert written["metrics"][0]["points"] == 200


def test_blow_up_stops_within_a_few_steps() -> None:
    monitor = Monitor("blowup", stop_on={"nan", "exploding"})
    with pytest.warns(LossForensicsWarning, match="First check"):
        ran, bad = _loop(3.0, monitor)
    assert monitor.should_stop and bad is not None
    assert ran - bad <= 5, (ran, bad)
    assert monitor.stopped_by is not None and monitor.stopped_by.label in {"nan", "exploding"}


def test_raise_on_stop() -> None:
    monitor = Monitor("blowup", stop_on={"nan", "exploding"}, raise_on_stop=True, warn=False)
    with pytest.raises(TrainingStopped):
        _loop(3.0, monitor)


def test_steps_logging_nothing_cost_nothing() -> None:
    monitor = Monitor()
    assert monitor.log(1, loss=None, note="text") is False
    assert monitor.live.points == 0
