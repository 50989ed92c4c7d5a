"""Which hyper-parameter a label follows: clean splits with support are told, weak ones not."""

from __future__ import annotations

import numpy as np
from lossforensics.audit.sweep import find_effects


def _sweep(lrs_bad, lrs_good, per=3, label="exploding"):
    runs = [
        ((label,), {"lr": lr, "batch_size": 32.0 * (1 + i % 2)})
        for lr in lrs_bad
        for i in range(per)
    ]
    runs += [
        ((), {"lr": lr, "batch_size": 32.0 * (1 + i % 2)}) for lr in lrs_good for i in range(per)
    ]
    return runs


def test_clean_high_lr_split_is_reported_with_counts() -> None:
    effects = find_effects(_sweep([1e-2, 3e-2], [1e-4, 3e-4, 1e-3, 3e-3]))
    assert len(effects) == 1
    e = effects[0]
    assert (e.label, e.param, e.direction, e.threshold) == ("exploding", "lr", ">=", 1e-2)
    assert (e.labelled_in, e.n_in, e.labelled_out, e.n_out) == (6, 6, 0, 12)
    assert e.sentence() == "all runs with lr >= 0.01 exploded (6/6); none below (0/12)"
    assert e.p_value < 1e-3


def test_low_side_direction() -> None:
    runs = _sweep([1e-6, 1e-5], [1e-3, 1e-2], label="plateau")
    (e,) = find_effects(runs)
    assert (e.direction, e.threshold) == ("<=", 1e-5)
    assert e.sentence().startswith("all runs with lr <= 1e-05 plateaued (6/6); none above")


def test_one_exception_still_reported_but_counted() -> None:
    runs = _sweep([1e-2, 3e-2], [1e-4, 3e-4, 1e-3, 3e-3], per=4)
    labels, hp = runs[-1]
    runs[-1] = (("exploding",), hp)  # one run below the cut also exploded
    (e,) = find_effects(runs)
    assert (e.labelled_in, e.n_in, e.labelled_out, e.n_out) == (8, 8, 1, 16)
    assert "1 of 16 below" in e.sentence()


def test_too_little_support_is_not_reported() -> None:
    # a perfect 2/2 vs 0/2 split proves nothing
    assert find_effects(_sweep([1e-2], [1e-4], per=2)) == []


def test_unrelated_parameter_is_not_reported() -> None:
    rng = np.random.default_rng(0)
    runs = [
        (("overfit",) if rng.random() < 0.4 else (), {"wd": float(rng.uniform(0, 1))})
        for _ in range(40)
    ]
    assert find_effects(runs) == []


def test_label_on_every_run_or_constant_param_is_skipped() -> None:
    runs = [(("exploding",), {"lr": float(lr)}) for lr in range(10)]
    assert find_effects(runs) == []
    runs = [(("exploding",) if i < 5 else (), {"lr": 0.1}) for i in range(10)]
    assert find_effects(runs) == []
