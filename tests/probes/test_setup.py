"""ProbeSetup: DataLoaders replay the same batches, tuple/dict inputs reach the model, and bad
arguments fail with ProbeError before anything runs."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

import torch.nn.functional as F  # noqa: E402
from lossforensics.classifiers.errors import ProbeError  # noqa: E402
from lossforensics.probes import REFUTED, ProbeSetup, run_probe  # noqa: E402
from torch import nn  # noqa: E402
from torch.utils.data import DataLoader, TensorDataset  # noqa: E402

from tests.probes import toys  # noqa: E402
from tests.probes.helpers import adam  # noqa: E402


def _loader() -> DataLoader:
    x = torch.cat([b[0] for b in toys.blobs()])
    y = torch.cat([b[1] for b in toys.blobs()])
    return DataLoader(TensorDataset(x, y), batch_size=16, shuffle=True)


def test_a_shuffling_dataloader_gives_every_rerun_the_same_batches(tmp_path):
    setup = ProbeSetup(toys.mlp, _loader(), F.cross_entropy, adam(), steps=12, log_dir=tmp_path)
    first = [y.tolist() for _, y in setup.batches(8)]
    assert first == [y.tolist() for _, y in setup.batches(8)]
    a = run_probe("lr_drop", setup).numbers
    b = run_probe("lr_drop", setup).numbers
    assert a == b  # fresh models under one seed, the same batch order: identical runs


def test_tuple_and_dict_inputs_reach_the_model(tmp_path):
    class TwoInputs(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.a, self.b = nn.Linear(3, toys.CLASSES), nn.Linear(3, toys.CLASSES)

        def forward(self, left, right):
            return self.a(left) + self.b(right)

    batches = [(x[:, :3], x[:, 3:], y) for x, y in toys.blobs()]
    as_tuple = [((a, b), y) for a, b, y in batches]
    as_dict = [({"left": a, "right": b}, y) for a, b, y in batches]
    for data in (as_tuple, as_dict):
        setup = ProbeSetup(TwoInputs, data, F.cross_entropy, adam(), steps=10, log_dir=tmp_path)
        result = run_probe("grad_flow", setup)
        assert result.verdict == REFUTED and set(result.numbers["layers"]) == {"a", "b"}


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"data": iter(toys.blobs())}, "re-iterable"),
        ({"model_fn": None}, "model_fn"),
        ({"loss_fn": None}, "loss_fn"),
        ({"loss_fn": "cross_entropy"}, "callable"),
        ({"steps": 0}, "steps"),
        ({"device": "tpu:9"}, "device"),
        ({"model_fn": None, "model": "a model"}, "nn.Module"),
    ],
)
def test_bad_setups_fail_with_probe_error(kwargs, match, tmp_path):
    args = {
        "model_fn": toys.mlp,
        "data": toys.blobs(),
        "loss_fn": F.cross_entropy,
        "optimizer_fn": adam(),
        "log_dir": tmp_path,
        **kwargs,
    }
    with pytest.raises(ProbeError, match=match):
        ProbeSetup(**args)


def test_empty_data_and_missing_optimizer_fail_inside_the_probe(tmp_path):
    empty = ProbeSetup(toys.mlp, [], F.cross_entropy, adam(), steps=5, log_dir=tmp_path)
    with pytest.raises(ProbeError, match="no batches"):
        run_probe("batch_inspect", empty)
    no_opt = ProbeSetup(toys.mlp, toys.blobs(), F.cross_entropy, None, steps=5, log_dir=tmp_path)
    with pytest.raises(ProbeError, match="optimizer_fn"):
        run_probe("lr_drop", no_opt)
    # the inspecting probes need no optimizer
    assert run_probe("train_eval_parity", no_opt).verdict == REFUTED
