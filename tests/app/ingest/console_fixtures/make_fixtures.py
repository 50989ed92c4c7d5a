"""Regenerate the framework-written console fixtures: a few steps of a tiny model in each
framework that installs on CPU, its printed output captured as the framework writes it
(carriage returns and all). Deterministic seeds; run from the repository root:

    .venv/bin/pip install keras transformers lightning tqdm
    .venv/bin/python tests/app/ingest/console_fixtures/make_fixtures.py

Writes keras_verbose1.log, keras_verbose2.log, hf_trainer.log, lightning.log, tqdm.log here.
"""

from __future__ import annotations

import contextlib
import io
import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
os.environ.setdefault("KERAS_BACKEND", "torch")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("HF_HUB_OFFLINE", "1")


@contextlib.contextmanager
def captured(name: str):
    """Everything printed to stdout and stderr, written to HERE/name (bytes as printed)."""
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf), contextlib.redirect_stderr(buf):
        yield
    (HERE / name).write_bytes(buf.getvalue().encode("utf-8"))


def keras_fixtures() -> None:
    import keras
    import numpy as np

    keras.utils.set_random_seed(0)
    rng = np.random.default_rng(0)
    x = rng.normal(size=(192, 8)).astype("float32")
    y = (x[:, :1] > 0).astype("float32")
    for verbose in (1, 2):
        keras.utils.set_random_seed(0)
        model = keras.Sequential(
            [keras.Input((8,)), keras.layers.Dense(8, "relu"), keras.layers.Dense(1, "sigmoid")]
        )
        model.compile("adam", "binary_crossentropy", metrics=["accuracy"])
        with captured(f"keras_verbose{verbose}.log"):
            model.fit(x, y, epochs=4, batch_size=32, validation_split=0.25, verbose=verbose)


def hf_fixture() -> None:
    import torch
    from transformers import (
        BertConfig,
        BertForSequenceClassification,
        Trainer,
        TrainingArguments,
    )

    torch.manual_seed(0)
    config = BertConfig(
        vocab_size=50,
        hidden_size=16,
        num_hidden_layers=1,
        num_attention_heads=2,
        intermediate_size=16,
        num_labels=2,
    )
    model = BertForSequenceClassification(config)
    g = torch.Generator().manual_seed(0)
    ids = torch.randint(0, 50, (64, 8), generator=g)
    data = [{"input_ids": i, "labels": int(i[0] % 2)} for i in ids]
    args = TrainingArguments(
        output_dir=str(HERE / "_hf_out"),
        num_train_epochs=2,
        per_device_train_batch_size=8,
        logging_steps=2,
        eval_strategy="epoch",
        save_strategy="no",
        report_to=[],
        disable_tqdm=False,
        seed=0,
        use_cpu=True,
    )
    trainer = Trainer(model=model, args=args, train_dataset=data, eval_dataset=data[:16])
    with captured("hf_trainer.log"):
        trainer.train()


def lightning_fixture() -> None:
    import lightning as L
    import torch
    from lightning.pytorch.callbacks import TQDMProgressBar
    from torch.utils.data import DataLoader, TensorDataset

    L.seed_everything(0, verbose=False)

    class Tiny(L.LightningModule):
        def __init__(self) -> None:
            super().__init__()
            self.layer = torch.nn.Linear(4, 1)

        def training_step(self, batch, _):
            x, y = batch
            loss = torch.nn.functional.mse_loss(self.layer(x), y)
            self.log("train_loss", loss, prog_bar=True)
            return loss

        def validation_step(self, batch, _):
            x, y = batch
            self.log("val_loss", torch.nn.functional.mse_loss(self.layer(x), y), prog_bar=True)

        def configure_optimizers(self):
            return torch.optim.SGD(self.parameters(), lr=0.1)

    g = torch.Generator().manual_seed(0)
    x = torch.randn(64, 4, generator=g)
    data = TensorDataset(x, x.sum(1, keepdim=True))
    with captured("lightning.log"):
        trainer = L.Trainer(
            max_epochs=3,
            logger=False,
            enable_checkpointing=False,
            enable_model_summary=False,
            accelerator="cpu",
            devices=1,
            callbacks=[TQDMProgressBar()],
        )
        trainer.fit(Tiny(), DataLoader(data, batch_size=16), DataLoader(data, batch_size=32))


def tqdm_fixture() -> None:
    import random

    from tqdm import tqdm

    rnd = random.Random(0)
    loss = 2.0
    with captured("tqdm.log"):
        for epoch in range(3):
            bar = tqdm(range(20), desc=f"Epoch {epoch}", file=sys.stdout, mininterval=0)
            for _ in bar:
                loss *= 0.97 + 0.02 * rnd.random()
                bar.set_postfix(loss=f"{loss:.4f}")
            bar.close()


if __name__ == "__main__":
    for make in (tqdm_fixture, keras_fixtures, lightning_fixture, hf_fixture):
        make()
