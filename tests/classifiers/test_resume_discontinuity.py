import io

import numpy as np
import pandas as pd
import pytest
from lossforensics.classifiers.frame import make_frame
from lossforensics.classifiers.resume_discontinuity import ResumeDiscontinuity
from lossforensics.classifiers.run import RunSeries
from lossforensics.ingest.console import read_stream

from tests.classifiers._labelled import assert_matches_real_labels, judge

RNG = np.random.default_rng(13)


def _loss(steps):
    return 0.5 + 2.0 * np.exp(-steps / 2000) + 0.02 * RNG.standard_normal(len(steps))


def _run(steps, values, lr=None):
    names, st, vals = ["loss"] * len(steps), list(steps), list(values)
    if lr is not None:
        names += ["lr"] * len(lr[0])
        st += list(lr[0])
        vals += list(lr[1])
    return RunSeries(make_frame("r", names, st, vals))


def test_resume_without_optimizer_state_fires_at_the_restart():
    first, second = np.arange(0, 6000, 10), np.arange(4000, 10000, 10)
    after = _loss(second) + np.where(second < 5000, 1.2, 0.0)
    f = judge(ResumeDiscontinuity(), _run(np.r_[first, second], np.r_[_loss(first), after]))
    assert f is not None and f.label == "resume_discontinuity"
    assert f.span.start_step == 4000 and f.evidence["resumed_from_step"] == 5990
    assert f.evidence["loss_jump"] > 6 and f.evidence["restarts"] == 1


def test_faithful_resume_from_the_latest_checkpoint_is_quiet():
    first, second = np.arange(0, 6000, 10), np.arange(5900, 10000, 10)
    run = _run(np.r_[first, second], np.r_[_loss(first), _loss(second)])
    assert judge(ResumeDiscontinuity(), run) is None


def test_stale_checkpoint_loses_progress_and_says_so():
    first, second = np.arange(0, 6000, 10), np.arange(2000, 8000, 10)
    run = _run(np.r_[first, second], np.r_[_loss(first), _loss(second)])
    f = judge(ResumeDiscontinuity(), run)
    assert f is not None and f.evidence["matches_earlier_run"] is True
    assert f.evidence["loss_after"] > f.evidence["loss_before"]


def test_counter_reset_that_kept_training_is_quiet():
    first, second = np.arange(0, 6000, 10), np.arange(0, 4000, 10)
    run = _run(np.r_[first, second], np.r_[_loss(first), _loss(second + 6000)])
    assert judge(ResumeDiscontinuity(), run) is None


def test_fit_called_again_on_a_slowing_descent_is_quiet():
    # Keras' fit(epochs=5) called in a loop: the epoch counter starts again at 1 each call and
    # the loss carries on, falling more slowly than before. The descent before the restart
    # projects a bigger fall than follows, but a loss no higher than before is no jump up
    loss = 0.1 + 2.3 * np.exp(-np.arange(25) / 4)
    steps = np.tile(np.arange(1, 6), 5)
    run = _run(steps, loss)
    assert judge(ResumeDiscontinuity(), run) is None
    # near miss: the same log whose third call starts 0.2 above where the second ended
    jumped = loss + np.where(np.arange(25) >= 10, 0.2, 0.0) * (np.arange(25) < 15)
    f = judge(ResumeDiscontinuity(), _run(steps, jumped))
    assert f is not None and f.evidence["loss_after"] > f.evidence["loss_before"]


def test_duplicate_steps_with_the_same_values_are_quiet():
    steps = np.repeat(np.arange(50), 2)
    run = _run(steps, np.repeat(_loss(np.arange(50) * 100), 2))
    assert judge(ResumeDiscontinuity(), run) is None


def test_the_same_series_written_twice_is_quiet():
    steps = np.arange(50)
    values = _loss(steps * 100)
    assert judge(ResumeDiscontinuity(), _run(np.r_[steps, steps], np.r_[values, values])) is None


def test_scheduler_restart_is_reported_with_the_jump():
    first, second = np.arange(0, 6000, 10), np.arange(4000, 10000, 10)
    after = _loss(second) + np.where(second < 5000, 1.2, 0.0)
    lr_steps = np.r_[first, second]
    lr = np.r_[np.full(len(first), 1e-4), np.full(len(second), 1e-3)]
    f = judge(ResumeDiscontinuity(), _run(lr_steps, np.r_[_loss(first), after], lr=(lr_steps, lr)))
    assert f is not None and f.evidence["lr_jump"] is True


def test_interleaved_writers_are_not_resumes():
    steps = np.r_[np.arange(0, 1000, 10), np.arange(0, 1000, 10)]
    order = np.argsort(np.r_[np.arange(100) * 2, np.arange(100) * 2 + 1])
    values = np.r_[_loss(np.arange(0, 1000, 10)), _loss(np.arange(0, 1000, 10)) + 1.0]
    assert judge(ResumeDiscontinuity(), _run(steps[order], values[order])) is None


def test_points_that_never_leave_one_step_are_no_resume():
    """Eight bar states of one pasted line, all read at step 0, one of them far above the rest:
    a counter that never moves has no course on either side of a "restart"."""
    values = [1.79, 1.77, 1.80, 1.76, 1.78, 1.75, 1.77, 4.2]
    assert ResumeDiscontinuity().detect(_run(np.zeros(8, dtype=int), values)) is None


def test_no_restart_no_finding():
    steps = np.arange(0, 5000, 10)
    assert judge(ResumeDiscontinuity(), _run(steps, _loss(steps))) is None


@pytest.mark.slow
def test_real_runs_agree_with_their_labels(real_runs):
    assert_matches_real_labels(real_runs, ResumeDiscontinuity())


def test_lr_jump_is_read_at_the_reported_restart_among_appended_runs():
    # three runs appended to one log, all counting from step 0; only the jump into the third
    # (LR 1e-5 -> 1e-4, loss back up, trained further than the others) is large. The LR check
    # must read that restart, not the first one that also goes back to step 0
    ep, longer = np.arange(10), np.arange(15)
    loss = np.r_[1.0 - 0.05 * ep, 0.55 - 0.01 * ep, 1.6 - 0.05 * longer]
    lr = np.r_[np.full(10, 1e-5), np.full(10, 1e-5), np.full(15, 1e-4)]
    steps = np.r_[ep, ep, longer]
    f = judge(ResumeDiscontinuity(), _run(steps, loss, lr=(steps, lr)))
    assert f is not None and f.evidence["resumed_from_step"] == 9
    assert f.evidence["loss_after"] > f.evidence["loss_before"]
    assert f.evidence["lr_jump"] is True


def _epoch_log(steps: list[int], loss: np.ndarray) -> RunSeries:
    return RunSeries(make_frame("r", ["loss"] * len(steps), np.array(steps), loss))


def test_second_fit_call_that_continues_the_descent_is_not_a_resume():
    # Keras: fit(epochs=2) then fit(epochs=48) on the same model; the epoch counter restarts
    # after 2 rows but the loss keeps falling at the same rate (no jump)
    loss = 7.3 * np.exp(-0.09 * np.arange(50)) + 0.2
    steps = [0, 1] + list(range(48))
    assert judge(ResumeDiscontinuity(), _epoch_log(steps, loss)) is None


def test_a_restart_where_the_loss_drops_is_not_a_resume():
    # fit() called again after one logged epoch: the counter restarts at 0 with the trained
    # weights, and the loss, logged once before the restart, is already far lower after it.
    # Every resume failure (lost optimizer, scheduler or sampler state, a stale checkpoint,
    # weights not restored) leaves the loss worse than where it stopped, never better
    loss = 7.3 * np.exp(-0.09 * np.arange(0, 100, 2)) + 0.2
    steps = [0] + list(range(49))
    assert judge(ResumeDiscontinuity(), _epoch_log(steps, loss)) is None


def test_early_restart_with_a_jump_up_is_a_resume():
    loss = 7.3 * np.exp(-0.09 * np.arange(50)) + 0.2
    loss[2:] += 3.0  # the optimizer state was lost: the loss jumps up and stays up
    steps = [0, 1] + list(range(48))
    f = judge(ResumeDiscontinuity(), _epoch_log(steps, loss))
    assert f is not None and f.evidence["loss_jump"] > 0


def test_a_schedule_restarted_with_the_counter_is_a_resume_when_the_replayed_steps_differ():
    # epochs 1-25 with the LR halved at 24, then the script restarts at epoch 21 with the LR
    # back at 1e-4 (scheduler state lost): epochs 21-25 log well below their first pass.
    # Its own generator: the gap is 3-5 standard errors, so the noise drawn must not depend on
    # which tests ran before
    rng = np.random.default_rng(0)
    first, second = np.arange(1, 26), np.arange(21, 31)
    loss1 = 0.5 + 1.4 * np.exp(-first / 8) + 0.008 * rng.standard_normal(len(first))
    # the resumed run carries on from where the first stopped, no jump at the restart
    loss2 = loss1[-1] - 0.03 * (second - 20) + 0.008 * rng.standard_normal(len(second))
    lr1 = np.where(first >= 24, 5e-5, 1e-4)
    steps, values = np.r_[first, second], np.r_[loss1, loss2]
    lr = (steps, np.r_[lr1, np.full(len(second), 1e-4)])
    f = judge(ResumeDiscontinuity(), _run(steps, values, lr))
    assert f is not None and f.evidence["lr_jump"] and abs(f.evidence["replay_gap"]) >= 4
    # the same restart with the schedule carried on is a counter reset, not a finding
    kept = (steps, np.r_[lr1, np.full(len(second), 5e-5)])
    assert judge(ResumeDiscontinuity(), _run(steps, values, kept)) is None


def test_a_counter_back_to_the_first_step_replays_the_untrained_start_and_is_no_replay_gap():
    # three sessions of a PyTorch loop that each print `step: N` from 0 again with a fresh
    # warmup, every one carrying on from where the last stopped (0.69 -> 0.55 -> 0.50): the
    # first session's steps 0-1350 hold its untrained start (6.5 -> 0.9), far above any
    # trained model, so the resumed loss sits far below them without a state lost
    rng = np.random.default_rng(4)
    s1, s2, s3 = np.arange(0, 4000, 50), np.arange(0, 3000, 50), np.arange(0, 2000, 50)
    l1 = 0.68 + 5.8 * np.exp(-s1 / 250) + 0.01 * rng.standard_normal(len(s1))
    l2 = np.linspace(0.69, 0.57, len(s2)) + 0.01 * rng.standard_normal(len(s2))
    l3 = np.linspace(0.573, 0.5, len(s3)) + 0.01 * rng.standard_normal(len(s3))
    warm = lambda s: 1e-4 * np.minimum(1.0, (s + 50) / 500)  # noqa: E731 - each session's warmup
    steps, values = np.r_[s1, s2, s3], np.r_[l1, l2, l3]
    lr = (steps, np.r_[warm(s1), warm(s2), warm(s3)])
    run = _run(steps, values, lr)
    assert ResumeDiscontinuity().measure(run)["replay_gap"] <= -4
    assert judge(ResumeDiscontinuity(), run) is None


def test_only_the_rows_of_the_training_role_are_read():
    # the same name logged under a second role (a hand-built frame): its rows, which go back
    # to step 3000 a loss unit higher, are not the training loss's and make no restart
    steps, extra = np.arange(0, 6000, 10), np.arange(3000, 3500, 10)
    frame = make_frame(
        "r",
        ["loss"] * (len(steps) + len(extra)),
        np.r_[steps, extra],
        np.r_[_loss(steps), _loss(extra) + 1.0],
    )
    role = np.r_[np.full(len(steps), "train_loss"), np.full(len(extra), "other")]
    run = RunSeries(frame.assign(role=pd.Categorical(role, dtype=frame["role"].dtype)))
    assert len(run.writes("loss", "train_loss")) == len(steps)
    assert len(run.write_segments("loss", "train_loss")) == len(steps)
    assert judge(ResumeDiscontinuity(), run) is None
    assert judge(ResumeDiscontinuity(), RunSeries(frame)) is not None  # one role: a restart


def _two_fits(second_terms):
    """A console log of two `fit` calls: 30 epochs logging Loss, Recon and Divers, then 20
    epochs from epoch 1 whose loss starts 40% above where the first ended."""
    first = [
        f"Epoch {e}/30 | Loss: {0.15 + 3 * np.exp(-e):.4f} | "
        f"Recon: {0.03 + 0.02 * np.exp(-e / 5):.4f} | Divers: {0.3 * np.exp(-e / 3):.4f}"
        for e in range(1, 31)
    ]
    second = [
        f"Epoch {e}/20 | Loss: {0.18 + 0.03 * np.exp(-e / 4):.4f} | Recon: 0.0345 | "
        + " | ".join(f"{t}: {0.1 + e / 1000:.4f}" for t in second_terms)
        for e in range(1, 21)
    ]
    text = "\n".join(first + second) + "\n"
    return RunSeries(read_stream(io.BytesIO(text.encode()), name="fits").frame)


def test_a_second_phase_that_logs_other_terms_is_no_resume():
    # the second fit drops Divers and logs Sal: a loss redefined (or another model), not a
    # resume of the first; the same terms on both sides is the resume near miss
    phase = judge(ResumeDiscontinuity(), _two_fits(["Sal"]))
    assert phase is None
    resumed = judge(ResumeDiscontinuity(), _two_fits(["Divers"]))
    assert resumed is not None and resumed.evidence["metrics_changed"] is False


def test_a_restart_from_scratch_is_said_so_and_a_stale_checkpoint_mid_run_too():
    # an interrupted run, the counter back to the first step and the loss back at the earlier
    # run's untrained start, taken further than before: the weights were not restored; not "a
    # stale checkpoint". Its own generator: "matches" is a 2-standard-error test, which one
    # draw in five of this noise misses, so the draw must not depend on the tests run before
    rng = np.random.default_rng(3)
    curve = lambda s: 0.5 + 2.0 * np.exp(-s / 2000) + 0.02 * rng.standard_normal(len(s))  # noqa: E731
    first, second = np.arange(0, 3000, 10), np.arange(0, 6000, 10)
    f = judge(ResumeDiscontinuity(), _run(np.r_[first, second], np.r_[curve(first), curve(second)]))
    assert f is not None and f.evidence["matches_earlier_run"]
    assert "began again from scratch" in f.summary and "stale checkpoint" not in f.summary
    # near miss: back to step 3000 of a trained run, matching what it logged there: stale
    longer, stale = np.arange(0, 6000, 10), np.arange(3000, 8000, 10)
    f = judge(ResumeDiscontinuity(), _run(np.r_[longer, stale], np.r_[curve(longer), curve(stale)]))
    assert f is not None and "(a stale checkpoint)" in f.summary


def test_a_complete_run_followed_by_another_from_scratch_is_two_runs_not_a_resume():
    # two `fit` calls written to one CSV log, each 50 epochs from a fresh model (a sweep's
    # trials, or a script run twice): the second starts at the first's untrained loss and ends
    # where the first did. Nothing was interrupted, so nothing was resumed
    rng = np.random.default_rng(5)
    ep = np.arange(50)
    fit = lambda: 0.44 + 0.15 * np.exp(-ep / 8) + 0.004 * rng.standard_normal(50)  # noqa: E731
    steps, values = np.r_[ep, ep], np.r_[fit(), fit()]
    assert judge(ResumeDiscontinuity(), _run(steps, values)) is None
    # near misses: the first fit stopped at epoch 20 and the second went on to 50 (interrupted,
    # started again without its weights); or the second began from the first's trained weights
    # with a lost optimizer state (well below the untrained start, above where the first ended)
    cut = np.r_[ep[:20], ep]
    f = judge(ResumeDiscontinuity(), _run(cut, np.r_[fit()[:20], fit()]))
    assert f is not None and "began again from scratch" in f.summary
    warm = 0.46 + 0.02 * np.exp(-ep / 8) + 0.004 * rng.standard_normal(50)
    f = judge(ResumeDiscontinuity(), _run(steps, np.r_[fit(), warm]))
    assert f is not None and not f.evidence["matches_earlier_run"]
