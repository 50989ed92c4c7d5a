"""Each probe confirms its cause on a tiny model built to have it and refutes it on a healthy
one (CPU, one thread, 20-100 steps)."""

from __future__ import annotations

import json

import pytest

torch = pytest.importorskip("torch")

from lossforensics.probes import CONFIRMED, INCONCLUSIVE, REFUTED, REGISTRY, run_probe  # noqa: E402
from torch import nn  # noqa: E402

from tests.probes import toys  # noqa: E402
from tests.probes.helpers import FINE, TOO_HIGH, classify, regress  # noqa: E402


def test_lr_drop_confirms_a_too_high_lr_and_logs_each_run(tmp_path):
    r = run_probe("lr_drop", regress(TOO_HIGH, tmp_path))
    assert r.verdict == CONFIRMED
    assert r.numbers["lr_unstable"] and not r.numbers["lr_div10_unstable"]
    assert r.numbers["base_lr"] == pytest.approx(TOO_HIGH)
    lines = (tmp_path / "lr_drop" / "lr_div10.jsonl").read_text().splitlines()
    assert len(lines) == 40
    first = json.loads(lines[0])
    assert set(first) == {"step", "loss", "grad_norm", "lr"}
    assert first["lr"] == pytest.approx(TOO_HIGH / 10)
    assert "exploding" in r.runs["lr"]["labels"] and "exploding" not in r.runs["lr_div10"]["labels"]


def test_lr_drop_refutes_on_a_healthy_run(tmp_path):
    assert run_probe("lr_drop", regress(FINE, tmp_path)).verdict == REFUTED
    assert run_probe("lr_drop", classify(toys.mlp, tmp_path)).verdict == REFUTED


def test_lr_drop_is_inconclusive_for_overfit_wording(tmp_path):
    r = run_probe("lr_drop", regress(TOO_HIGH, tmp_path, steps=20))
    cause = "learning rate or schedule keeps driving train loss down too fast"
    assert REGISTRY["lr_drop"].verdict_for(r, cause) == INCONCLUSIVE


def test_clip_stabilises_the_diverging_run_and_refutes_on_a_healthy_one(tmp_path):
    r = run_probe("clip", regress(TOO_HIGH, tmp_path))
    assert r.verdict == CONFIRMED
    assert r.numbers["share_above_max_norm"] == pytest.approx(1.0)
    healthy = run_probe("clip", classify(toys.mlp, tmp_path))
    assert healthy.verdict == REFUTED
    # over_clipping's cause reads the share of steps above the threshold instead
    tight = "clip threshold too low for this model's normal gradient scale"
    assert (
        REGISTRY["clip"].verdict_for(run_probe("clip", regress(FINE, tmp_path)), tight) == CONFIRMED
    )


def test_precision_blames_bf16_for_a_cancellation_that_fp32_survives(tmp_path):
    r = run_probe("precision", classify(toys.Bf16Fragile, tmp_path, steps=20))
    assert r.verdict == CONFIRMED
    assert r.numbers["bf16_first_nonfinite_step"] == 0 and not r.numbers["fp32_unstable"]
    assert "fp16" in r.numbers["skipped"]


def test_precision_refutes_when_fp32_breaks_too_and_is_honest_about_untested_fp16(tmp_path):
    assert run_probe("precision", classify(toys.LogOfZero, tmp_path, steps=20)).verdict == REFUTED
    healthy = run_probe("precision", classify(toys.mlp, tmp_path, steps=20))
    assert healthy.verdict == INCONCLUSIVE  # fp16 needs CUDA: not tested here
    assert "fp16" in healthy.summary


def test_overfit_one_batch_flags_a_model_that_mixes_the_batch(tmp_path):
    broken = run_probe("overfit_one_batch", classify(toys.MixesBatch, tmp_path, steps=80))
    assert broken.verdict == CONFIRMED and broken.numbers["samples"] == 8
    capacity = "model too small for the task"
    assert REGISTRY["overfit_one_batch"].verdict_for(broken, capacity) == REFUTED
    healthy = run_probe("overfit_one_batch", classify(toys.mlp, tmp_path, steps=80))
    assert healthy.verdict == REFUTED
    assert healthy.numbers["best_over_start"] < 0.05
    assert REGISTRY["overfit_one_batch"].verdict_for(healthy, capacity) == INCONCLUSIVE


def test_lr_range_test_places_the_users_lr_against_the_turn_up(tmp_path):
    high = run_probe("lr_range_test", regress(TOO_HIGH, tmp_path, steps=60))
    assert high.verdict == CONFIRMED
    turn, suggested = high.numbers["turn_lr"], high.numbers["suggested_lr"]
    assert suggested == pytest.approx(turn / 10) and turn < TOO_HIGH
    assert len(high.numbers["curve"]["lr"]) == len(high.numbers["curve"]["loss"]) > 10
    fine = run_probe("lr_range_test", regress(FINE, tmp_path, steps=60))
    assert fine.verdict == REFUTED
    low = run_probe("lr_range_test", regress(1e-5, tmp_path, steps=60))
    too_low = "learning rate too low, or the schedule already decayed it"
    assert REGISTRY["lr_range_test"].verdict_for(low, too_low) == CONFIRMED
    assert REGISTRY["lr_range_test"].verdict_for(fine, too_low) == REFUTED


def test_grad_flow_names_frozen_and_detached_layers(tmp_path):
    r = run_probe("grad_flow", classify(toys.Frozen, tmp_path))
    assert r.verdict == CONFIRMED
    assert r.numbers["flagged"] == {"frozen": "frozen", "side": "no_grad"}
    assert r.numbers["layers"]["head"]["status"] == "ok"
    assert run_probe("grad_flow", classify(toys.mlp, tmp_path)).verdict == REFUTED


def test_grad_flow_sees_a_fully_detached_loss_and_an_optimizer_missing_params(tmp_path):
    class Detached(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.lin = nn.Linear(toys.FEATURES, toys.CLASSES)

        def forward(self, x):
            return self.lin(x).detach()

    r = run_probe("grad_flow", classify(Detached, tmp_path))
    assert r.verdict == CONFIRMED and r.numbers["loss_detached"]
    model = toys.mlp()
    partial = torch.optim.SGD(model[2].parameters(), lr=0.1)
    r = run_probe("grad_flow", classify(toys.mlp, tmp_path, model=model, optimizer=partial))
    assert r.numbers["flagged"] == {"0": "not_in_optimizer"}


def test_grad_flow_flags_vanishing_gradients_in_a_deep_saturated_net(tmp_path):
    r = run_probe(
        "grad_flow",
        classify(lambda: toys.deep_sigmoid(depth=12, gain=8.0), tmp_path),
        vanishing_ratio=1e-2,
    )
    assert r.verdict == CONFIRMED
    assert "vanishing" in r.numbers["flagged"].values()


def test_activation_health_sees_saturated_sigmoids_and_dead_relus(tmp_path):
    sat = run_probe("activation_health", classify(toys.deep_sigmoid, tmp_path))
    assert sat.verdict == CONFIRMED and sat.numbers["saturated"]

    def dead_relu() -> nn.Module:
        net = toys.mlp()
        with torch.no_grad():
            net[0].bias.fill_(-100.0)
        return net

    dead = run_probe("activation_health", classify(dead_relu, tmp_path))
    assert dead.verdict == CONFIRMED and dead.numbers["dead"] == {"1": 1.0}
    assert run_probe("activation_health", classify(toys.mlp, tmp_path)).verdict == REFUTED


def test_nan_origin_blames_the_module_doing_log_of_zero(tmp_path):
    r = run_probe("nan_origin", classify(toys.LogOfZero, tmp_path))
    assert r.verdict == CONFIRMED
    assert r.numbers["kind"] == "numerics" and r.numbers["module"] == "log"
    assert r.numbers["input_nonfinite"] is False and r.numbers["step"] == 0
    spec = REGISTRY["nan_origin"]
    assert spec.verdict_for(r, "a layer's numerics: log(0), divide by zero") == CONFIRMED
    assert spec.verdict_for(r, "NaN or inf already in the inputs or labels") == REFUTED


def test_nan_origin_and_batch_inspect_blame_nan_inputs_on_the_data(tmp_path):
    data = toys.blobs()
    data[0][0][3, 2] = float("nan")
    origin = run_probe("nan_origin", classify(toys.mlp, tmp_path, data=data))
    assert origin.verdict == CONFIRMED and origin.numbers["kind"] == "data"
    assert origin.numbers["nonfinite_values"] == 1
    inspect = run_probe("batch_inspect", classify(toys.mlp, tmp_path, data=data))
    assert inspect.verdict == CONFIRMED and "nonfinite" in inspect.numbers["flags"]
    assert inspect.numbers["batches"][0]["x"][0]["nan"] == 1


def test_nan_origin_refutes_on_a_healthy_run_and_sees_an_lr_blow_up(tmp_path):
    assert run_probe("nan_origin", classify(toys.mlp, tmp_path)).verdict == REFUTED
    r = run_probe("nan_origin", regress(5.0, tmp_path))
    assert r.verdict == CONFIRMED and r.numbers["kind"] == "optimisation"
    assert (
        REGISTRY["nan_origin"].verdict_for(r, "optimisation blow-up: learning rate too high")
        == CONFIRMED
    )


def test_batch_inspect_flags_scale_labels_and_sorted_batches(tmp_path):
    assert run_probe("batch_inspect", classify(toys.mlp, tmp_path)).verdict == REFUTED
    raw = toys.blobs(scale=1e4)
    scale = run_probe("batch_inspect", classify(toys.mlp, tmp_path, data=raw))
    assert scale.verdict == CONFIRMED and list(scale.numbers["flags"]) == ["scale"]
    shifted = [(x, y + 1) for x, y in toys.blobs()]  # labels 1..3 for a 3-class head
    labels = run_probe("batch_inspect", classify(toys.mlp, tmp_path, data=shifted))
    assert "label_range" in labels.numbers["flags"] and labels.numbers["model_classes"] == 3
    x = torch.cat([b[0] for b in toys.blobs()])
    y = torch.cat([b[1] for b in toys.blobs()])
    order = torch.argsort(y, stable=True)
    ordered = [(x[order][i : i + 16], y[order][i : i + 16]) for i in range(0, 96, 16)]
    sorted_ = run_probe("batch_inspect", classify(toys.mlp, tmp_path, data=ordered))
    unshuffled = "data sorted (by class, length or source) and not shuffled"
    assert REGISTRY["batch_inspect"].verdict_for(sorted_, unshuffled) == CONFIRMED
    clean = run_probe("batch_inspect", classify(toys.mlp, tmp_path))
    assert REGISTRY["batch_inspect"].verdict_for(clean, unshuffled) == REFUTED


def test_train_eval_parity_flags_heavy_dropout(tmp_path):
    r = run_probe("train_eval_parity", classify(toys.dropout_heavy, tmp_path))
    assert r.verdict == CONFIRMED and r.numbers["mode_dependent_modules"] == ["Dropout"]
    healthy = run_probe("train_eval_parity", classify(toys.mlp, tmp_path))
    assert healthy.verdict == REFUTED and healthy.numbers["output_gap"] == 0.0


def test_every_result_is_json_safe(tmp_path):
    r = run_probe("lr_drop", regress(5.0, tmp_path, steps=20))
    text = json.dumps(r.to_dict(), allow_nan=False)
    assert json.loads(text)["probe"] == "lr_drop"
