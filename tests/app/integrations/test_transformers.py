"""transformers Trainer on a 2-layer GPT-2 built from a config (no download), on sequences it can
learn: healthy ends with no warning and the diagnosis JSON; a huge LR stops within a few steps."""

from __future__ import annotations

import json
import math
import warnings
from pathlib import Path

import pytest
import torch
import transformers  # noqa: E402  (in CI a missing framework fails, not skips)
from lossforensics.integrations import LossForensicsWarning
from lossforensics.integrations.transformers import LossForensicsCallback  # noqa: E402


class _Tokens(torch.utils.data.Dataset):
    """Counting sequences mod the vocabulary: a pattern a tiny model learns in a few steps."""

    def __init__(self, n: int = 256, length: int = 16, vocab: int = 32) -> None:
        g = torch.Generator().manual_seed(0)
        start = torch.randint(0, vocab, (n, 1), generator=g)
        self.ids = (start + torch.arange(length)) % vocab

    def __len__(self) -> int:
        return len(self.ids)

    def __getitem__(self, i: int) -> dict:
        return {"input_ids": self.ids[i], "labels": self.ids[i]}


class _Bad(transformers.TrainerCallback):
    """Records the first step whose logged loss is not finite or far above the first."""

    def __init__(self) -> None:
        self.first = None
        self.bad = None
        self.last = 0
        self.device = ""

    def on_log(self, args, state, control, logs=None, **kw):  # noqa: ANN001, ANN201
        loss = (logs or {}).get("loss")
        if loss is not None and "train_runtime" not in logs:
            self.first = loss if self.first is None else self.first
            if self.bad is None and (not math.isfinite(loss) or loss > 10 * self.first):
                self.bad = state.global_step
            self.last = state.global_step


def _train(
    tmp_path: Path,
    lr: float,
    callback: LossForensicsCallback,
    steps: int = 80,
    cuda: bool = False,
) -> _Bad:
    torch.manual_seed(0)
    config = transformers.GPT2Config(
        vocab_size=32,
        n_positions=16,
        n_embd=32,
        n_layer=2,
        n_head=2,
        resid_pdrop=0.0,
        embd_pdrop=0.0,
        attn_pdrop=0.0,
    )
    model = transformers.GPT2LMHeadModel(config)
    args = transformers.TrainingArguments(
        output_dir=str(tmp_path),
        max_steps=steps,
        per_device_train_batch_size=16,
        learning_rate=lr,
        logging_steps=1,
        save_strategy="no",
        report_to=[],
        use_cpu=not cuda,
        disable_tqdm=True,
        eval_strategy="steps",
        eval_steps=20,
        per_device_eval_batch_size=64,
        lr_scheduler_type="constant",
        max_grad_norm=1e9,
        adam_beta1=0.0,
    )
    seen = _Bad()
    trainer = transformers.Trainer(
        model=model,
        args=args,
        train_dataset=_Tokens(),
        eval_dataset=_Tokens(64),
        callbacks=[callback, seen],
    )
    trainer.train()
    seen.device = str(next(model.parameters()).device)
    return seen


def test_healthy_trainer_no_warning(tmp_path: Path) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error", LossForensicsWarning)
        seen = _train(tmp_path, 3e-3, LossForensicsCallback(stop_on={"nan", "exploding"}))
    assert seen.last == 80
    written = json.loads((tmp_path / "lossforensics-diagnosis.json").read_text())
    assert written["findings"] == [], written["findings"]


def test_exploding_trainer_stops(tmp_path: Path) -> None:
    callback = LossForensicsCallback(stop_on={"nan", "exploding"})
    with pytest.warns(LossForensicsWarning):
        seen = _train(tmp_path, 30.0, callback)
    assert callback.monitor is not None and callback.monitor.should_stop
    assert seen.bad is not None and seen.last - seen.bad <= 5, (seen.bad, seen.last)


@pytest.mark.gpu
def test_exploding_trainer_on_cuda_stops(tmp_path: Path) -> None:
    """The Trainer on the GPU logs its losses from CUDA tensors: the callback warns and stops
    within a few steps of the blow-up, as on the CPU."""
    callback = LossForensicsCallback(stop_on={"nan", "exploding"})
    with pytest.warns(LossForensicsWarning):
        seen = _train(tmp_path, 30.0, callback, cuda=True)
    assert seen.device.startswith("cuda"), seen.device
    assert callback.monitor is not None and callback.monitor.should_stop
    assert seen.bad is not None and seen.last - seen.bad <= 5, (seen.bad, seen.last)


@pytest.mark.gpu
def test_healthy_trainer_on_cuda_no_warning(tmp_path: Path) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error", LossForensicsWarning)
        seen = _train(tmp_path, 3e-3, LossForensicsCallback(), cuda=True)
    assert seen.last == 80 and seen.device.startswith("cuda"), seen.device
    written = json.loads((tmp_path / "lossforensics-diagnosis.json").read_text())
    assert written["findings"] == [], written["findings"]
