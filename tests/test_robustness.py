"""benchmarks/robustness.py: each rewrite changes a real frame the way its name says, and the
report flags a verdict that moves to another problem."""

from __future__ import annotations

import numpy as np
import pandas as pd
from lossforensics.ingest import load_run

from benchmarks.robustness import (
    REWRITES,
    _to_another_problem,
    _verdict,
    every_other,
    mean_over,
    without_first_evaluation,
)
from tests.conftest import SAMPLE_RUNS


def _frame() -> pd.DataFrame:
    """A per-step training loss with a validation loss beside it (sample_runs)."""
    return load_run(SAMPLE_RUNS / "loss_spikes_tensorboard").frame


def _series(frame: pd.DataFrame, role: str) -> pd.DataFrame:
    return frame[frame["role"] == role].sort_values("seq")


def test_mean_over_averages_per_step_training_series_and_leaves_validation_alone():
    frame = _frame()
    train = _series(frame, "train_loss")
    assert (np.diff(train["step"].to_numpy()) == 1).all()  # the premise: one point a step
    out = mean_over(5)(frame)
    got = _series(out, "train_loss")
    block_ends = np.minimum(np.arange(5, len(train) + 5, 5), len(train)) - 1
    assert got["step"].tolist() == train["step"].to_numpy()[block_ends].tolist()
    assert np.isclose(got["value"].iloc[0], train["value"].iloc[:5].mean())
    pd.testing.assert_frame_equal(
        _series(out, "val_loss").reset_index(drop=True),
        _series(frame, "val_loss").reset_index(drop=True),
    )


def test_every_other_keeps_the_odd_numbered_points_of_every_series():
    frame = _frame()
    out = every_other(frame)
    for role in ("train_loss", "val_loss"):
        before, after = _series(frame, role), _series(out, role)
        assert after["value"].tolist() == before["value"].iloc[::2].tolist()


def test_without_first_evaluation_drops_only_the_first_validation_point():
    frame = _frame()
    out = without_first_evaluation(frame)
    val = _series(frame, "val_loss")
    assert _series(out, "val_loss")["step"].tolist() == val["step"].iloc[1:].tolist()
    assert len(_series(out, "train_loss")) == len(_series(frame, "train_loss"))


def test_the_as_logged_reference_is_unchanged_and_flips_are_sorted_by_kind():
    assert REWRITES["as logged"] is None
    assert _to_another_problem({"as_logged": "overfit", "rewritten": "distribution_mismatch"})
    assert not _to_another_problem({"as_logged": "loss_spikes", "rewritten": "healthy"})
    assert not _to_another_problem({"as_logged": "healthy", "rewritten": "overfit"})


def test_a_multi_run_files_verdict_does_not_depend_on_which_run_comes_first():
    from benchmarks.scoring import Outcome

    first = Outcome("w", ["plateau"], "ok", verdicts=["lr_decayed_too_early", "plateau"])
    again = Outcome("w", ["plateau"], "ok", verdicts=["plateau", "lr_decayed_too_early"])
    assert _verdict(first) == _verdict(again) == "lr_decayed_too_early, plateau"
    assert _verdict(Outcome("one", ["nan"], "ok", verdicts=["nan"])) == "nan"
    assert _verdict(Outcome("bad", ["nan"])) == "crash"
    # one run of the file lost to healthy is no problem named as another
    lost = {"as_logged": "exploding, nan, oscillating", "rewritten": "exploding, healthy, nan"}
    assert not _to_another_problem(lost)
    renamed = {"as_logged": "exploding, nan", "rewritten": "exploding, plateau"}
    assert _to_another_problem(renamed)
