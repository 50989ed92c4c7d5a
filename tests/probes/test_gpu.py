"""The CUDA paths: fp16 autocast with a GradScaler, bf16 on the GPU, peak GPU memory, and a live
CUDA model left as it was. Marked `gpu`: skipped where no CUDA device is present."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

import torch.nn.functional as F  # noqa: E402
from lossforensics.classifiers.playbook import rank_causes  # noqa: E402
from lossforensics.probes import CONFIRMED, REFUTED, confirm, run_probe  # noqa: E402

from tests.probes import toys  # noqa: E402
from tests.probes.helpers import TOO_HIGH, classify, sgd  # noqa: E402
from tests.probes.test_confirm import _diagnosis  # noqa: E402

pytestmark = pytest.mark.gpu


def test_precision_runs_fp16_with_a_grad_scaler_and_bf16_on_cuda(tmp_path):
    r = run_probe("precision", classify(toys.mlp, tmp_path, steps=30, device="cuda"))
    assert r.verdict == REFUTED, r.summary
    assert "fp16_unstable" in r.numbers and not r.numbers["skipped"].get("fp16")
    assert r.device.startswith("cuda") and r.numbers["cuda_peak_memory_mb"] > 0


def test_precision_blames_bf16_cancellation_on_cuda(tmp_path):
    if not torch.cuda.is_bf16_supported():
        pytest.skip("this GPU has no bf16")
    r = run_probe("precision", classify(toys.Bf16Fragile, tmp_path, steps=20, device="cuda"))
    assert r.verdict == CONFIRMED


def test_confirm_on_cuda_confirms_the_lr_cause(tmp_path):
    diag = _diagnosis(("exploding", rank_causes("exploding", {})))
    result = confirm(
        diag,
        model_fn=toys.regressor,
        data=toys.regression(),
        loss_fn=F.mse_loss,
        optimizer_fn=sgd(TOO_HIGH),
        steps=30,
        device="cuda",
        log_dir=tmp_path,
        top=5,
    )
    lr = next(c for c in result.causes if c.probe == "lr_drop")
    assert lr.verdict == CONFIRMED and result.device.startswith("cuda")


def test_a_live_cuda_model_is_restored_and_stays_on_the_gpu(tmp_path):
    model = toys.dropout_heavy().cuda()
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    x, y = toys.blobs()[0]
    opt.zero_grad()
    F.cross_entropy(model(x.cuda()), y.cuda()).backward()
    opt.step()
    before = {k: v.clone() for k, v in model.state_dict().items()}
    for name in ("lr_drop", "nan_origin", "train_eval_parity", "grad_flow"):
        run_probe(name, classify(None, tmp_path, model=model, optimizer=opt, steps=10))
    assert all(torch.equal(before[k], v) for k, v in model.state_dict().items())
    assert all(p.is_cuda for p in model.parameters())
