"""RunSeries.curve is the run's course: a session that restarted the step counter supersedes
what earlier sessions logged from its first step on."""

import numpy as np
from lossforensics.classifiers.diagnose import diagnose
from lossforensics.classifiers.frame import make_frame
from lossforensics.classifiers.run import RunSeries


def _sessions(*sessions: tuple[np.ndarray, np.ndarray]):
    """One run's train loss written in `sessions` (steps, values), one segment each."""
    steps = np.concatenate([s for s, _ in sessions])
    values = np.concatenate([v for _, v in sessions])
    segment = np.concatenate([np.full(len(s), i) for i, (s, _) in enumerate(sessions)])
    return make_frame("r", ["loss"] * len(steps), steps, values, segment=segment)


def test_a_shorter_restart_supersedes_the_tail_of_the_session_before_it():
    # a session ran to step 280, then a restart from step 10 was aborted at step 50: the run's
    # course is the restart's, not the restart followed by the old session's steps 60-280
    old, new = np.arange(10, 290, 10), np.arange(10, 60, 10)
    run = RunSeries(_sessions((old, np.full(len(old), 8.0)), (new, np.full(len(new), 0.7))))
    curve = run.curve("train_loss")
    assert curve.steps.tolist() == new.tolist() and np.all(curve.values == 0.7)
    # the writes keep every session, for the checks that read restarts
    assert len(run.writes("loss", "train_loss")) == len(old) + len(new)


def test_a_session_that_replays_an_earlier_ones_rows_exactly_is_left_out():
    # epochs 1-49 of a model, then its epochs 1-10 appended again byte for byte (a rerun's
    # rows written twice): the course is the 49 epochs, not the 10-epoch replay
    ep = np.arange(1, 50)
    loss = 1.2 * np.exp(-ep / 15) + 0.3 + 0.01 * np.sin(ep)
    run = RunSeries(_sessions((ep, loss), (ep[:10], loss[:10].copy())))
    assert run.curve("train_loss").steps.tolist() == ep.tolist()
    assert len(run.writes("loss", "train_loss")) == 59  # the restarts' readers still see it
    # near miss: a restart whose values differ by one is a course of its own
    other = loss[:10].copy()
    other[3] += 0.01
    rerun = RunSeries(_sessions((ep, loss), (ep[:10], other)))
    assert rerun.curve("train_loss").steps.tolist() == ep[:10].tolist()


def test_a_restart_that_logged_one_or_two_points_and_stopped_supersedes_nothing():
    # epochs 0-10 flat at 1.5-1.7, then a row `0,2.835` (a rerun aborted after its first log):
    # the course stays the 11 epochs, not one point nothing can judge
    ep = np.arange(11)
    loss = 1.6 + 0.1 * np.sin(ep)
    run = RunSeries(_sessions((ep, loss), (np.array([0]), np.array([2.835]))))
    assert run.curve("train_loss").steps.tolist() == ep.tolist()
    assert len(run.writes("loss", "train_loss")) == 12  # the restart readers still see it
    # nor does one that logged two (epochs 1-2 again after 10)
    two = RunSeries(_sessions((ep, loss), (np.array([0, 1]), np.array([2.835, 2.5]))))
    assert two.curve("train_loss").steps.tolist() == ep.tolist()
    # near miss: a restart that logged three points is a course of its own
    three = np.array([0, 1, 2])
    rerun = RunSeries(_sessions((ep, loss), (three, np.array([2.835, 2.5, 2.2]))))
    assert rerun.curve("train_loss").steps.tolist() == [0, 1, 2]


def test_a_resume_from_a_checkpoint_keeps_the_course_before_it():
    first, resumed = np.arange(0, 101), np.arange(50, 201)
    run = RunSeries(_sessions((first, np.full(101, 2.0)), (resumed, np.full(151, 1.0))))
    curve = run.curve("train_loss")
    assert curve.steps.tolist() == list(range(201))
    assert np.all(curve.values[:50] == 2.0) and np.all(curve.values[50:] == 1.0)


def test_a_new_segment_that_kept_counting_supersedes_nothing():
    a, b = np.arange(0, 50), np.arange(50, 100)
    run = RunSeries(_sessions((a, np.full(50, 2.0)), (b, np.full(50, 1.0))))
    assert run.curve("train_loss").steps.tolist() == list(range(100))


def test_appended_aborted_runs_are_no_blow_up():
    # three launches appended to one log, each restarting its step at 10: two stuck near 8,
    # the last aborted after five points at chance (ln 2); its 0.68 and the second launch's
    # 7.8 at later steps are two courses, not a rise from one to the other; and a launch that
    # started far lower than the one before it is no failed resume: the stuck launches remain
    rng = np.random.default_rng(3)
    a = np.arange(10, 290, 10)
    b = np.arange(10, 290, 10)
    c = np.arange(10, 60, 10)
    frame = _sessions(
        (a, 8.5 + 0.8 * rng.standard_normal(len(a))),
        (b, 8.0 + 0.8 * rng.standard_normal(len(b))),
        (c, np.array([0.707, 0.698, 0.683, 0.688, 0.699])),
    )
    d = diagnose(frame)
    labels = {f.label for f in d.findings}
    assert "exploding" not in labels and "resume_discontinuity" not in labels
    assert labels == {"plateau"}


def test_fit_called_again_carries_the_course_on():
    # Keras fit(epochs=5) called four times: each call logs epochs 1-5 again while the loss
    # carries on from where the call before stopped; the course is all 20 epochs, in order,
    # and the diagnosis says how it counted them
    loss = 0.1 + 2.3 * np.exp(-np.arange(20) / 5)
    calls = [(np.arange(1, 6), loss[5 * i : 5 * i + 5]) for i in range(4)]
    run = RunSeries(_sessions(*calls))
    assert run.carried_on is not None
    curve = run.curve("train_loss")
    assert curve.steps.tolist() == list(range(1, 21))
    assert np.allclose(curve.values, loss)
    notes = diagnose(run.frame).warnings
    assert any("4 sessions" in n and "carried on" in n for n in notes)


def test_a_restart_to_the_first_step_that_jumps_or_drops_far_is_not_carried_on():
    # the loss starting again at the untrained level (a new run, or a resume that lost the
    # weights) or far below the one before (another run's level): a later session supersedes
    first = 2.3 * np.exp(-np.arange(10) / 4)
    again = RunSeries(_sessions((np.arange(10), first), (np.arange(10), first)))
    assert again.carried_on is None
    assert again.curve("train_loss").steps.tolist() == list(range(10))
    lower = RunSeries(_sessions((np.arange(10), first + 8), (np.arange(5), first[:5] / 20)))
    assert lower.carried_on is None
    # and a resume from a checkpoint (a step past the start) is a resume, whatever the loss
    resumed = RunSeries(
        _sessions((np.arange(10), first), (np.arange(5, 15), first[-1] * 0.97 ** np.arange(10)))
    )
    assert resumed.carried_on is None
