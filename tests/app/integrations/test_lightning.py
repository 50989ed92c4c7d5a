"""Lightning: a tiny regression module; healthy ends with no warning and the diagnosis JSON; a
huge LR stops within a few steps of the blow-up."""

from __future__ import annotations

import json
import math
import warnings
from pathlib import Path

import lightning.pytorch as pl  # in CI a missing framework fails, not skips
import pytest
import torch
from lossforensics.integrations import LossForensicsWarning
from lossforensics.integrations.lightning import LossForensicsCallback


class _Regression(pl.LightningModule):
    def __init__(self, lr: float) -> None:
        super().__init__()
        self.lr = lr
        self.net = torch.nn.Sequential(
            torch.nn.Linear(8, 32), torch.nn.Tanh(), torch.nn.Linear(32, 1)
        )
        self.first: float | None = None
        self.bad: int | None = None
        self.loss_device = ""  # Lightning moves the module back to the CPU after fit

    def training_step(self, batch, batch_idx):  # noqa: ANN001, ANN201
        x, y = batch
        loss = torch.nn.functional.mse_loss(self.net(x), y)
        value = loss.item()
        self.loss_device = str(loss.device)
        self.first = value if self.first is None else self.first
        if self.bad is None and (not math.isfinite(value) or value > 1e3 * self.first):
            self.bad = self.global_step
        self.log("train_loss", loss, on_step=True)
        return loss

    def validation_step(self, batch, batch_idx):  # noqa: ANN001, ANN201
        x, y = batch
        self.log("val_loss", torch.nn.functional.mse_loss(self.net(x), y))

    def configure_optimizers(self):  # noqa: ANN201
        return torch.optim.SGD(self.parameters(), lr=self.lr, momentum=0.9)


def _data(n: int, shuffle: bool = False, seed: int = 0) -> torch.utils.data.DataLoader:
    """Samples of one fixed regression task (the same weights for train and validation)."""
    w = torch.randn(8, 1, generator=torch.Generator().manual_seed(0))
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(n, 8, generator=g)
    y = x @ w + 0.1 * torch.randn(n, 1, generator=g)
    data = torch.utils.data.TensorDataset(x, y)
    return torch.utils.data.DataLoader(data, batch_size=32, shuffle=shuffle, generator=g)


def _fit(
    tmp_path: Path, lr: float, callback: LossForensicsCallback, accelerator: str = "cpu"
) -> tuple[_Regression, int]:
    torch.manual_seed(0)
    module = _Regression(lr)
    trainer = pl.Trainer(
        max_epochs=8,
        default_root_dir=tmp_path,
        callbacks=[callback],
        log_every_n_steps=1,
        enable_progress_bar=False,
        enable_model_summary=False,
        enable_checkpointing=False,
        accelerator=accelerator,
        devices=1,
        logger=pl.loggers.CSVLogger(tmp_path, name="tiny"),
    )
    trainer.fit(module, _data(640, shuffle=True), _data(128, seed=1))
    return module, trainer.global_step


def test_healthy_lightning_no_warning(tmp_path: Path) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error", LossForensicsWarning)
        callback = LossForensicsCallback(stop_on={"nan", "exploding"})
        _, steps = _fit(tmp_path, 0.01, callback)
    assert steps == 160
    written = json.loads(next(tmp_path.rglob("lossforensics-diagnosis.json")).read_text())
    assert written["findings"] == [] and written["run"] == "tiny"


def test_exploding_lightning_stops(tmp_path: Path) -> None:
    callback = LossForensicsCallback(stop_on={"nan", "exploding"})
    with pytest.warns(LossForensicsWarning):
        module, steps = _fit(tmp_path, 3.0, callback)
    assert callback.monitor is not None and callback.monitor.should_stop
    assert module.bad is not None and steps - module.bad <= 5, (module.bad, steps)


@pytest.mark.gpu
def test_exploding_lightning_on_cuda_stops(tmp_path: Path) -> None:
    """On the GPU the logged losses are CUDA tensors: the callback reads them, warns and stops
    as on the CPU."""
    callback = LossForensicsCallback(stop_on={"nan", "exploding"})
    with pytest.warns(LossForensicsWarning):
        module, steps = _fit(tmp_path, 3.0, callback, accelerator="gpu")
    assert module.loss_device.startswith("cuda"), module.loss_device
    assert callback.monitor is not None and callback.monitor.should_stop
    assert module.bad is not None and steps - module.bad <= 5, (module.bad, steps)


@pytest.mark.gpu
def test_healthy_lightning_on_cuda_writes_a_clean_diagnosis(tmp_path: Path) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error", LossForensicsWarning)
        _, steps = _fit(tmp_path, 0.01, LossForensicsCallback(), accelerator="gpu")
    assert steps == 160
    written = json.loads(next(tmp_path.rglob("lossforensics-diagnosis.json")).read_text())
    assert written["findings"] == [] and written["run"] == "tiny"
