"""Line shapes met in real training logs that the console reader must read as the numbers they
print: values printed inside the object that holds them, logger prefixes before the message."""

from __future__ import annotations

import io

import numpy as np
import pytest
from lossforensics.classifiers.errors import UnknownFormatError
from lossforensics.classifiers.run import RunSeries
from lossforensics.ingest import load_run
from lossforensics.ingest.console import STYLES, read_stream
from lossforensics.ingest.console._engine import Parser, to_points
from lossforensics.ingest.console._plan import skeletons


def _read(text: str):
    return read_stream(io.BytesIO(text.encode()), name="pasted")


def _roles(result) -> dict[str, str]:
    frame = result.frame
    return dict(zip(frame["metric"], frame["role"].astype(str), strict=False))


def _series(result, metric):
    f = result.frame
    part = f[f["metric"] == metric].sort_values("seq")
    return part["step"].tolist(), part["value"].round(6).tolist()


def _same_with_and_without_plans(text: str) -> None:
    lines = text.split("\n")
    for style in STYLES:
        slow = Parser(style, plans=False)
        slow.feed_block(lines, skeletons(text))
        fast = Parser(style)
        fast.feed_block(lines, skeletons(text))
        a, b = to_points(slow.finish()), to_points(fast.finish())
        assert a.names == b.names and a.value.tolist() == b.value.tolist(), style.name


@pytest.mark.parametrize(
    ("line", "metric"),
    [
        ("Epoch {e} Loss [ {v}]", "Loss"),  # a one-element numpy array, printed with its pad
        ("epoch: {e}, loss: [{v}], lr: [0.001]", "loss"),  # a one-element list
        ("epoch={e} loss=[{v}]", "loss"),
        ("epoch {e} | loss: np.float64({v})", "loss"),  # a numpy 2 scalar
        ("Epoch {e} loss: array([{v}], dtype=float32)", "loss"),
        ("Epoch {e} loss = tensor({v}, device='cuda:0', grad_fn=<NllLossBackward0>)", "loss"),
        ("{{'epoch': {e}, 'loss': [{v}]}}", "loss"),  # a printed dict
    ],
)
def test_a_value_printed_in_its_holder_is_read_as_the_number(line, metric):
    values = [0.6931, 0.52, 0.4811, 0.45]
    text = "".join(line.format(e=e, v=v) + "\n" for e, v in enumerate(values, 1))
    result = _read(text)
    assert _series(result, metric)[1] == values
    assert "device" not in set(result.frame["metric"])  # the tensor's arguments are no metric
    _same_with_and_without_plans(text)


def test_a_file_of_comma_separated_bracketed_values_is_console_not_csv(tmp_path):
    """`epoch: 1, loss: [0.69], val_loss: [0.71]` has a comma count a CSV header would have;
    its bracketed decimals make it a log line, so the console reader gets it."""
    path = tmp_path / "train.log"
    path.write_text(
        "".join(f"epoch: {e}, loss: [0.{9 - e}1], val_loss: [0.{9 - e}5]\n" for e in range(1, 6))
    )
    result = load_run(path)
    assert result.format == "console"
    assert _series(result, "val_loss") == ([1, 2, 3, 4, 5], [0.85, 0.75, 0.65, 0.55, 0.45])


def test_an_array_of_several_values_is_not_one_value():
    with pytest.raises(UnknownFormatError):
        _read("".join(f"Epoch {e} loss: [0.{9 - e}1 0.{9 - e}3]\n" for e in range(1, 5)))


@pytest.mark.parametrize(
    "prefix",
    [
        "2023-01-01 12:00:0{e} INFO train.py:88\n",  # the prefix alone, the message below it
        "2023-01-01 12:00:0{e} INFO train.py:88 - ",
        "[2023-01-01 12:00:0{e},123] INFO (train.py:88)\n",
        "2023-01-01 12:00:0{e} [INFO] train.py:88 - ",
        "2023-01-01 12:00:0{e},123 INFO     [train.py:88] ",
        "[2023-01-01 12:00:0{e},123][train.py][line:88][INFO] ",
        "2023-01-01 12:00:0{e},123 - train.py[line:88] - INFO: ",  # %(filename)s[line:%(lineno)d]
        "INFO train.py:88 ",
    ],
)
def test_where_the_logger_was_called_is_no_metric(prefix):
    text = "".join(f"{prefix.format(e=e)}epoch {e} loss {1 / e:.4f}\n" for e in range(1, 6))
    result = _read(text)
    assert set(result.frame["metric"]) == {"loss"}
    assert _series(result, "loss") == ([1, 2, 3, 4, 5], [1.0, 0.5, 0.3333, 0.25, 0.2])
    _same_with_and_without_plans(text)


def test_an_epoch_ending_in_a_colon_counts_the_metrics_after_it():
    """`Epoch 3: train loss = 0.52, val loss = 0.61`: the colon ends the counter, as a space
    would; a time of day (`Epoch 0:10:00`) is still no epoch."""
    text = "".join(
        f"Epoch {e}: train loss = {1 / e:.4f}, val loss = {1.2 / e:.4f}\n" for e in range(1, 5)
    )
    result = _read(text)
    assert _series(result, "train loss") == ([1, 2, 3, 4], [1.0, 0.5, 0.3333, 0.25])
    assert _series(result, "val loss")[0] == [1, 2, 3, 4]
    batches = _read("".join(f"Epoch 1 Batch {b}: loss {1 / b:.2f}\n" for b in range(1, 4)))
    assert _series(batches, "loss")[1] == [1.0, 0.5, 0.33]
    # a time of day is no epoch: with no counter left, the lines are read in order
    timed = _read("".join(f"epoch 0:1{e}:00 loss: 0.{9 - e}\n" for e in range(4)))
    assert "without a counter" in timed.detail
    assert _series(timed, "loss") == ([0, 1, 2, 3], [0.9, 0.8, 0.7, 0.6])


def test_a_loguru_line_without_its_time_is_cut_at_its_level():
    """loguru's format without `{time}` starts the line with `| INFO     | module:func:line - `:
    the line number after the function is no metric."""
    text = "".join(
        f"| INFO     | __main__:train:82 - [Step {s}/6644] Loss: {1 / (s + 1):.4f} Speed: 6.5\n"
        for s in range(0, 50, 10)
    )
    result = _read(text)
    assert set(result.frame["metric"]) == {"Loss", "Speed"}
    assert _series(result, "Loss")[0] == [0, 10, 20, 30, 40]


def test_a_validation_loss_printed_only_at_each_epoch_end_stays_the_validation_loss():
    """Batch lines, then `Epoch: N  Training Loss: x  Validation Loss: y` (a course notebook's
    loop): the epoch-end training loss is kept apart from the batch losses, but the validation
    loss, printed nowhere else, is the run's validation curve, not an `epoch/` aside."""
    text = ""
    for e, (train, val) in enumerate([(2.497172, 0.806791), (1.271454, 0.589309)], 1):
        text += "".join(f"\tEpoch {e}, Batch {b} loss: {3 / (e + b / 300):.6f}\n" for b in (1, 101))
        text += f"\tEpoch: {e} \tTraining Loss: {train} \tValidation Loss: {val}\n"
        text += f"\tValidation loss decreased (inf --> {val}).  Saving model ...\n"
    result = _read(text)
    roles = dict(zip(result.frame["metric"], result.frame["role"], strict=True))
    assert roles == {
        "loss": "train_loss",
        "epoch/Training Loss": "other",
        "Validation Loss": "val_loss",
    }
    assert _series(result, "Validation Loss")[1] == [0.806791, 0.589309]
    both = _read(
        "".join(
            f"Epoch {e} Batch 1 loss: 0.{9 - e} val_loss: 0.{8 - e}\n"
            f"Epoch {e} loss: 0.{9 - e}5 val_loss: 0.{8 - e}5\n"
            for e in range(1, 4)
        )
    )
    assert "epoch/val_loss" in set(both.frame["metric"])  # printed on batch lines too: kept apart


def test_a_score_on_a_validation_line_is_the_validation_score():
    """`Epoch: 3  Validation Loss: 0.41, Accuracy: 0.87` (train and validation on their own
    lines): the accuracy is the validation one; beside a training loss it stays training's."""
    text = "".join(
        f"Epoch: {e} \tTraining Loss: {1 / e:.6f}\n"
        f"Epoch: {e} \tValidation Loss: {1.2 / e:.6f}, Accuracy: {0.8 + e / 100:.6f}\n"
        for e in range(1, 5)
    )
    _same_with_and_without_plans(text)
    roles = dict(zip(_read(text).frame["metric"], _read(text).frame["role"], strict=True))
    assert roles == {
        "Training Loss": "train_loss",
        "Validation Loss": "val_loss",
        "Validation/Accuracy": "val_score",
    }
    both = _read(
        "".join(
            f"Epoch {e}: loss 0.{9 - e}, val_loss 0.{8 - e}, acc 0.{e}, lr 0.1\n"
            for e in range(1, 4)
        )
    )
    assert set(both.frame["metric"]) == {"loss", "val_loss", "acc", "lr"}
    lr = _read("".join(f"Epoch {e}: val_loss 0.{8 - e}, lr 0.1\n" for e in range(1, 4)))
    assert set(lr.frame["metric"]) == {"val_loss", "lr"}  # a learning rate has no split


def test_an_epoch_summary_after_step_lines_is_not_one_more_step():
    """`[Epoch 1 | Step 10/111] Loss:` lines, then `[Epoch 1] Loss: 0.2147 | Val AUC: 0.93`: the
    epoch's average is its own series, not the loss at step 111; the validation AUC, printed
    only there, keeps its name."""
    text = "".join(f"[Epoch 1 | Step {s}/111] Loss: {1 / s:.4f}\n" for s in (10, 20, 111))
    text += "[Epoch 1] Loss: 0.2147 | Val AUC: 0.9300\n"
    result = _read(text)
    assert _series(result, "Loss") == ([10, 20, 111], [0.1, 0.05, 0.009])
    assert _series(result, "epoch/Loss")[1] == [0.2147]
    roles = dict(zip(result.frame["metric"], result.frame["role"], strict=True))
    assert roles["Val AUC"] == "val_score" and roles["epoch/Loss"] == "other"


def test_a_sentence_before_a_metric_is_not_part_of_its_name():
    """`Epoch 3 finished. Avg loss: 0.5`, `Training done. Best AUC: 0.95`: a key holds no
    sentence end; the metric is named by the words after the last one."""
    text = "".join(f"Epoch {e} finished. Avg loss: {1 / e:.4f}\n" for e in range(1, 4))
    _same_with_and_without_plans(text)
    result = _read(text)
    assert _series(result, "Avg loss") == ([1, 2, 3], [1.0, 0.5, 0.3333])
    done = _read(text + "Training done. Best AUC: 0.9488\n")
    assert set(done.frame["metric"]) == {"Avg loss", "Best AUC"}


@pytest.mark.parametrize("counter", ["Step", "Iteration", "step", "it"])
def test_a_step_ending_in_a_colon_counts_the_metrics_after_it(counter):
    """`Step 100: loss 2.1` (print(f'Step {s}: ...')): the colon ends the step counter."""
    text = "".join(f"{counter} {s}: loss {2 / (s + 1):.4f}, lr 0.001\n" for s in (0, 100, 200))
    result = _read(text)
    assert _series(result, "loss") == ([0, 100, 200], [2.0, 0.0198, 0.01])


@pytest.mark.parametrize(
    ("line", "metric"),
    [
        ("2017-08-18 02:43:53,914:\tLoss at step {s}: {v}", "Loss"),  # a logging call's format
        ("train loss at iteration {s} = {v}", "train loss"),
        ("loss @ step {s}: {v}", "loss"),
    ],
)
def test_a_counter_inside_the_metric_s_name_is_cut_with_its_at(line, metric):
    """`Loss at step 100: 2.1`: the counter sits between the key and its separator; cut with
    its `at`, the key meets its value (and the plan and the full patterns agree)."""
    text = "".join(line.format(s=s, v=f"{8 / (s + 1):.6f}") + "\n" for s in (1, 2, 3, 4))
    result = _read("Start training epoch 1.\n" + text)
    assert _series(result, metric) == ([1, 2, 3, 4], [4.0, 2.666667, 2.0, 1.6])
    _same_with_and_without_plans(text)


def test_a_split_printed_by_its_bare_name_is_that_split_s_loss():
    """`Epoch 001: train=2.5584, val=2.3731, ppl=10.73`: the numbers under the splits' names are
    their losses; with a loss printed, the perplexity is not read as one."""
    text = "".join(
        f"Epoch {e:03d}: train={2.6 - e / 10:.4f}, val={2.4 - e / 20:.4f}, ppl={10.7 - e:.2f}\n"
        for e in range(1, 6)
    )
    frame = _read(text).frame
    roles = frame.groupby("metric", observed=True)["role"].first().astype(str).to_dict()
    assert roles == {"train": "train_loss", "val": "val_loss", "ppl": "other"}


def test_a_stray_batch_counter_above_epoch_lines_sets_no_axis():
    """A banner printing `[batch:256]` beside a setting is no batch-level log: the epoch lines
    that carry the loss decide the axis (it was batch, and the loss became `epoch/loss`)."""
    text = "wandb: Syncing run [Training][batch:256][input:128][2022-08-28 00:08:54]\n" + "".join(
        f"[epoch:{e}/1200] [loss:{1 / e:.4f}] [lr:{0.01 - e / 1000:.4f}]\n" for e in range(1, 6)
    )
    result = _read(text)
    assert _series(result, "loss") == ([1, 2, 3, 4, 5], [1.0, 0.5, 0.3333, 0.25, 0.2])


def test_a_line_opening_with_a_bracketed_number_counts_it_as_the_epoch():
    """`[01] train_loss 2.8654 | test_loss 2.3644 | test_acc 0.87` (f"[{epoch:02d}] ..."): the
    bracketed number is the epoch, so the spaced pairs after it are a record; a named counter
    on the line takes its place (`[0]` a tag before `epoch 3`)."""
    text = "".join(
        f"[{e:02d}] train_loss {2 / e:.4f} | test_loss {2.2 / e:.4f} | test_acc 0.9\n"
        for e in range(1, 6)
    )
    result = _read(text)
    assert _series(result, "train_loss") == ([1, 2, 3, 4, 5], [2.0, 1.0, 0.6667, 0.5, 0.4])
    assert _series(result, "test_loss")[0] == [1, 2, 3, 4, 5]
    _same_with_and_without_plans(text)
    tagged = "".join(f"[0] epoch {e}: loss={1 / e:.4f}\n" for e in range(3, 7))
    assert _series(_read(tagged), "loss")[0] == [3, 4, 5, 6]


def test_nanogpt_lines_stay_with_the_nanogpt_style():
    """nanoGPT's `iter N: loss` and `step N: train loss, val loss` lines are read by the fallback
    too (its evaluation's `train loss` counted as one more curve), but its own style, which
    knows that estimate is no training curve, reads them; evaluation lines alone have no other
    training curve, and the fallback keeps reading them."""
    text = "".join(
        f"step {s}: train loss {4 - s / 100:.4f}, val loss {4.1 - s / 100:.4f}\n"
        + "".join(
            f"iter {i}: loss {4 - i / 100:.4f}, time 30.12ms, mfu 10.50%\n" for i in (s, s + 10)
        )
        for s in (0, 100, 200)
    )
    assert "nanogpt" in _read(text).detail
    evals_only = "".join(f"step {s}: train loss 0.{9 - s}, val loss 0.{8 - s}\n" for s in range(4))
    result = _read(evals_only)
    assert "generic" in result.detail
    roles = dict(zip(result.frame["metric"], result.frame["role"], strict=True))
    assert roles == {"train loss": "train_loss", "val loss": "val_loss"}


def test_build_nanogpt_step_split_value_lines():
    """build-nanogpt's `log/log.txt`: `<step> <split> <value>` a line, no key separator; `train`
    is the training loss, `val` the validation loss every few steps, `hella` a held-out score."""
    text = "".join(
        (f"{s} val {4.1 - s / 100:.4f}\n{s} hella 0.{24 + s // 10}\n" if s % 10 == 0 else "")
        + f"{s} train {4 - s / 100:.6f}\n"
        for s in range(21)
    )
    result = _read(text)
    assert "build-nanogpt" in result.detail
    roles = dict(zip(result.frame["metric"], result.frame["role"], strict=True))
    assert roles == {"train": "train_loss", "val": "val_loss", "hella": "val_score"}
    assert _series(result, "val") == ([0, 10, 20], [4.1, 4.0, 3.9])
    assert _series(result, "train")[0] == list(range(21))
    _same_with_and_without_plans(text)


def test_hf_dicts_written_over_the_training_bar_are_at_its_position():
    """The HF Trainer writes each log dict over its tqdm bar (`tqdm.write`: a blank redraw, then
    the dict): the bar's last position is the global step; the evaluation, written after its
    own bar closed, sits at the train log before it. Without a bar the step is the log's index."""
    blank = "\r" + " " * 46 + "\r"
    text = ""
    for s in (2, 4):
        text += f"\r {s * 6}%|#  | {s - 1}/16 [00:01<00:19]\r {s * 6}%|#  | {s}/16 [00:02<00:14]"
        text += f"{blank}{{'loss': 0.69{s}, 'learning_rate': 4e-05, 'epoch': {s / 8}}}\n"
    text += "\r100%|##########| 2/2 [00:00<00:00,  6.62it/s]\x1b[A\n"
    text += f"{blank}{{'eval_loss': 0.7, 'epoch': 0.5}}\n"
    result = _read(text)
    assert _series(result, "loss") == ([2, 4], [0.692, 0.694])
    assert _series(result, "eval_loss")[0] == [4]
    assert _series(result, "epoch") == ([2, 4, 4], [0.25, 0.5, 0.5])
    plain = _read("".join(f"{{'loss': 0.6{i}, 'epoch': 0.{i}}}\n" for i in range(3)))
    assert _series(plain, "loss")[0] == [0, 1, 2]


@pytest.mark.parametrize(
    "prefix",
    [
        "INFO 2023-01-01 12:00:{s:02d},123 train.py:88] ",  # the level before the timestamp
        "Jan 01 12:00:{s:02d} gpu-node3 train[4321]: ",  # syslog / journald
    ],
)
def test_a_logger_layout_with_the_level_first_or_syslog_is_cut(prefix):
    text = "".join(prefix.format(s=e) + f"epoch {e} loss: {1 / e:.4f}\n" for e in range(1, 4))
    _same_with_and_without_plans(text)
    result = _read(text)
    assert set(result.frame["metric"]) == {"loss"}
    assert _series(result, "loss") == ([1, 2, 3], [1.0, 0.5, 0.3333])


@pytest.mark.parametrize(
    ("line", "steps"),
    [
        # mmengine counts epochs from 1: epoch 1's batches are steps 10..190
        (
            "Epoch(train)  [{e}][{b:3d}/196]  lr: 3.3333e-04  eta: 0:13:14  loss: {v}",
            [10, 190, 206, 386],
        ),
        # torchvision's MetricLogger counts them from 0
        ("Epoch: [{e0}]  [{b:3d}/196]  eta: 0:00:06  loss: {v} (1.2820)", [10, 190, 206, 386]),
    ],
)
def test_the_epoch_length_printed_beside_the_batch_sets_the_steps(line, steps):
    """`[1][ 10/196]` prints the epoch's length: epoch 2's batch 10 is step 196 + 10, not
    (largest batch logged + 1) x 2 + 10, which depends on how often the log printed."""
    rows = [(1, 10, 2.5), (1, 190, 2.0), (2, 10, 1.8), (2, 190, 1.7)]
    text = "".join(line.format(e=e, e0=e - 1, b=b, v=v) + "\n" for e, b, v in rows)
    assert _series(_read(text), "loss") == (steps, [2.5, 2.0, 1.8, 1.7])
    _same_with_and_without_plans(text)


TIMM_EPOCHS = """\
Train: 0 [   0/73 (  1%)]  Loss: 6.86 (6.86)  LR: 1.000e-05
Train: 0 [  50/73 ( 70%)]  Loss: 6.77 (6.83)  LR: 1.000e-05
Test: [   0/30]  Time: 6.593 (6.593)  Loss:   6.723 ( 6.723)  Acc@1:   0.000 (  0.000)
Test: [  30/30]  Time: 3.856 (0.732)  Loss:   6.615 ( 6.691)  Acc@1:   0.000 (  0.076)
Train: 1 [   0/73 (  1%)]  Loss: 6.69 (6.69)  LR: 1.001e-02
Train: 1 [  50/73 ( 70%)]  Loss: 3.23 (4.10)  LR: 1.001e-02
Test: [   0/30]  Time: 0.663 (0.663)  Loss:   1.926 ( 1.926)  Acc@1:  46.094 ( 46.094)
Test: [  30/30]  Time: 0.022 (0.126)  Loss:   1.462 ( 1.867)  Acc@1:  63.529 ( 39.261)
"""


def test_a_timm_evaluation_is_one_point_its_last_line_s_averages():
    """timm prints an evaluation batch by batch with running averages: its result is the
    averages on the last `Test:` line, one val point per evaluation, at the last train step;
    a train line keeps the latest value."""
    result = _read(TIMM_EPOCHS)
    assert _series(result, "test/Loss") == ([50, 123], [6.691, 1.867])
    assert _series(result, "test/Acc@1") == ([50, 123], [0.076, 39.261])
    assert _series(result, "Loss") == ([0, 50, 73, 123], [6.86, 6.77, 6.69, 3.23])
    _same_with_and_without_plans(TIMM_EPOCHS)


FAIRSEQ_JSON = """\
2021-03-08 12:31:36 | INFO | train_inner | {"epoch": 1, "update": 0.0, "loss": "16.475", \
"ppl": "91120.8", "num_updates": "1", "lr": "2e-05", "gnorm": "20.751", "loss_scale": "4"}
2021-03-08 12:32:33 | INFO | train_inner | {"epoch": 1, "update": 0.0, "loss": "16.446", \
"ppl": "89281.6", "num_updates": "2", "lr": "4e-05", "gnorm": "19.777", "loss_scale": "4"}
2021-03-08 12:33:12 | INFO | fairseq.trainer | NOTE: gradient overflow detected, ignoring gradient
2021-03-08 12:34:45 | INFO | train_inner | {"epoch": 1, "update": 0.001, "loss": "25.22", \
"ppl": "3.90691e+07", "num_updates": "3", "lr": "6e-05", "gnorm": "131.281", "loss_scale": "1"}
2021-03-08 12:43:15 | INFO | valid | {"epoch": 1, "valid_loss": "17.953", "valid_ppl": "253807", \
"valid_num_updates": "3"}
2021-03-08 12:43:15 | INFO | train | {"epoch": 1, "train_loss": "19.351", "train_ppl": "668509", \
"train_num_updates": "3"}
"""


def test_fairseq_json_lines_read_their_quoted_values_at_num_updates():
    """`--log-format json`: values quoted as text, the step in `num_updates`; the evaluation's
    `valid_*` at its update, the epoch's `train_*` averages not a second train loss."""
    result = _read(FAIRSEQ_JSON)
    assert result.detail.startswith("console log, fairseq json")
    assert _series(result, "loss") == ([1, 2, 3], [16.475, 16.446, 25.22])
    assert _series(result, "valid_loss") == ([3], [17.953])
    roles = dict(zip(result.frame["metric"], result.frame["role"], strict=True))
    assert roles["gnorm"] == "grad_norm" and roles["ppl"] == "other"
    assert roles["train_loss"] == "other" and roles["valid_loss"] == "val_loss"
    assert "num_updates" not in roles and "epoch" not in roles
    _same_with_and_without_plans(FAIRSEQ_JSON)


@pytest.mark.parametrize(
    ("text", "roles"),
    [
        (  # XGBoost: <split>-<metric>, the round first
            "[0]\ttrain-rmse:0.30410\tvalid-rmse:0.33725\n"
            "[10]\ttrain-rmse:0.13610\tvalid-rmse:0.16009\n"
            "[20]\ttrain-rmse:0.06457\tvalid-rmse:0.12204\n",
            {"train-rmse": "train_loss", "valid-rmse": "val_loss"},
        ),
        (  # sklearn API: validation_N
            "[0]\tvalidation_0-logloss:0.66\tvalidation_0-auc:0.71\n"
            "[10]\tvalidation_0-logloss:0.52\tvalidation_0-auc:0.80\n"
            "[20]\tvalidation_0-logloss:0.49\tvalidation_0-auc:0.82\n",
            {"validation_0-logloss": "val_loss", "validation_0-auc": "val_score"},
        ),
        (  # LightGBM: <split>'s <metric>
            "[0]\ttraining's l2: 0.41\tvalid_1's l2: 0.52\n"
            "[10]\ttraining's l2: 0.31\tvalid_1's l2: 0.45\n"
            "[20]\ttraining's l2: 0.25\tvalid_1's l2: 0.44\n",
            {"training's l2": "train_loss", "valid_1's l2": "val_loss"},
        ),
    ],
)
def test_boosting_rounds_are_steps_and_their_splits_losses(text, roles):
    result = _read(text)
    assert result.detail.startswith("console log, xgboost / lightgbm")
    assert dict(zip(result.frame["metric"], result.frame["role"], strict=True)) == roles
    for metric in roles:
        assert _series(result, metric)[0] == [0, 10, 20]
    _same_with_and_without_plans(text)


_MXNET_PERPLEXITY = """\
Epoch[0] Batch [50]\tSpeed: 1717.76 samples/sec\tTrain-Perplexity=4311.345018
Epoch[0] Batch [100]\tSpeed: 1573.17 samples/sec\tTrain-Perplexity=844.092421
Epoch[0] Batch [150]\tSpeed: 1663.17 samples/sec\tTrain-Perplexity=498.080716
Epoch[0] Train-Perplexity=336.210212
Epoch[0] Time cost=33.529
Epoch[0] Validation-Perplexity=282.453883
Epoch[1] Batch [50]\tSpeed: 1717.76 samples/sec\tTrain-Perplexity=250.0
Epoch[1] Validation-Perplexity=200.0
"""


def test_perplexity_is_read_as_the_loss_when_no_loss_is_printed():
    """Perplexity is exp(cross-entropy): a log that tracks only it holds its loss curves, read
    as ln(perplexity) so that a loss keeps its level (ln of the vocabulary size at chance)."""
    result = _read(_MXNET_PERPLEXITY)
    roles = dict(zip(result.frame["metric"], result.frame["role"], strict=True))
    assert roles["ln(Train-Perplexity)"] == "train_loss"
    assert roles["ln(Validation-Perplexity)"] == "val_loss"
    assert roles["epoch/ln(Train-Perplexity)"] == "other"
    steps, values = _series(result, "ln(Train-Perplexity)")
    assert values == pytest.approx([8.369005, 6.738262, 6.210762, 5.521461], abs=1e-6)
    assert _series(result, "ln(Validation-Perplexity)")[1] == pytest.approx(
        [5.643515, 5.298317], abs=1e-6
    )
    assert any("perplexity" in w.message for w in result.warnings)


def test_bare_ppl_is_the_training_loss_and_an_eval_split_the_held_out_one():
    text = "".join(
        f"step {s}: ppl {p}, val_ppl {v}\n" for s, p, v in ((1, 90.0, 95.0), (2, 60.0, 70.0))
    )
    roles = dict(zip(*(_read(text).frame[c] for c in ("metric", "role")), strict=True))
    assert roles["ln(ppl)"] == "train_loss" and roles["ln(val_ppl)"] == "val_loss"


def test_perplexity_beside_a_loss_stays_as_printed():
    text = "".join(f"step {s}: loss {x}, ppl {p}\n" for s, x, p in ((1, 4.5, 90.0), (2, 4.1, 60.3)))
    result = _read(text)
    roles = dict(zip(result.frame["metric"], result.frame["role"], strict=True))
    assert roles["ppl"] == "other" and roles["loss"] == "train_loss"
    assert _series(result, "ppl")[1] == [90.0, 60.3]


def test_a_held_out_perplexity_beside_a_training_loss_is_the_held_out_loss():
    """A split that prints only its perplexity has its loss in it, whatever the other split
    prints: the training loss stays as printed, the validation perplexity is read as its log."""
    rows = ((1, 4.5, 90.0, 95.0), (2, 4.1, 60.3, 70.0))
    text = "".join(f"step {s}: loss {x}, ppl {p}, val_ppl {v}\n" for s, x, p, v in rows)
    result = _read(text)
    roles = dict(zip(result.frame["metric"], result.frame["role"], strict=True))
    assert roles["loss"] == "train_loss" and roles["ppl"] == "other"
    assert roles["ln(val_ppl)"] == "val_loss"
    assert _series(result, "ln(val_ppl)")[1] == pytest.approx(np.log([95.0, 70.0]))
    # near miss: beside a validation loss of its own, the validation perplexity is derived
    both = _read(text.replace("val_ppl", "val_loss 4.6, val_ppl"))
    roles = dict(zip(both.frame["metric"], both.frame["role"], strict=True))
    assert roles["val_ppl"] == "other" and roles["val_loss"] == "val_loss"


def test_a_perplexity_not_above_zero_is_no_perplexity():
    text = "".join(f"step {s}: ppl {p}\n" for s, p in ((1, 0.5), (2, -0.1), (3, 0.2)))
    with pytest.raises(UnknownFormatError):
        _read(text)


def test_xgboost_best_round_printed_after_early_stopping_is_no_new_session():
    """`Stopping. Best iteration:` then the best round again, as logged: a repeat, not a step
    that goes back (a second one-point session)."""
    rounds = [0.69, 0.6, 0.55, 0.56, 0.57]
    text = "".join(f"[{i}]\tvalidation_0-logloss:{v}\n" for i, v in enumerate(rounds))
    result = _read(text + "Stopping. Best iteration:\n[2]\tvalidation_0-logloss:0.55\n")
    assert _series(result, "validation_0-logloss") == ([0, 1, 2, 3, 4], rounds)
    assert set(result.frame["segment"]) == {0}
    resumed = _read(text + "[0]\tvalidation_0-logloss:0.5\n[1]\tvalidation_0-logloss:0.45\n")
    assert set(resumed.frame["segment"]) == {0, 1}  # other values: a new session, kept


def test_lightgbm_best_round_never_logged_before_is_no_step_back():
    """LightGBM logging every 100 rounds: `Early stopping, best iteration is:` then round 1393,
    which was never printed; read as a record, 1400 -> 1393 went back into a second session."""
    text = "Training until validation scores don't improve for 50 rounds\n" + "".join(
        f"[{i}]\ttraining's l2: {1 / i:.6f}\tvalid_1's l2: {2 / i + i / 1e4:.6f}\n"
        for i in range(100, 1500, 100)
    )
    text += (
        "Early stopping, best iteration is:\n[1393]\ttraining's l2: 0.000718\tvalid_1's l2: 0.1\n"
    )
    result = _read(text)
    assert _series(result, "valid_1's l2")[0] == list(range(100, 1500, 100))
    assert set(result.frame["segment"]) == {0}
    assert not any("sessions" in w.message for w in result.warnings)


def test_a_rate_per_epoch_in_a_config_line_is_no_epoch_counter():
    # a header line `Samples/Epoch: 1000` printed before training: per epoch is a unit, so the
    # line is no record at epoch 1000 and the steps after it do not 'go back' into a session
    text = "Epochs: 3, Learning Rate: 0.005, Samples/Epoch: 1000\n" + "".join(
        f"  Epoch {e}/3 | Step {s}/1000 | Loss: {2.2 - 0.1 * e - s / 2000:.4f} | Accuracy: 21.0%\n"
        for e in (1, 2, 3)
        for s in (100, 200, 300)
    )
    result = _read(text)
    assert not any("sessions" in w.message for w in result.warnings)
    assert set(result.frame["metric"]) == {"Loss", "Accuracy"}
    assert len(_series(result, "Loss")[0]) == 9


def test_pytorch_mnist_example_lines_keep_both_accuracies():
    # the train line's value ends in a colon before tqdm's bar; the test line prints a count
    # out of a total before its percentage (pytorch/examples mnist): the percentage is read
    text = "".join(
        f"EPOCH: {e}\n"
        f"Loss={1 / e:.4f} Batch_id=468 Accuracy={90 + e:.2f}: 100%|##| 469/469 [00:09<00:00]\n"
        f"Test set: Average loss: {1.1 / e:.4f}, Accuracy: {9000 + 100 * e}/10000 "
        f"({90 + e:.2f}%)\n"
        for e in range(1, 5)
    )
    result = _read(text)
    assert _series(result, "Accuracy")[1] == [91.0, 92.0, 93.0, 94.0]
    assert _series(result, "Test/Accuracy")[1] == [91.0, 92.0, 93.0, 94.0]
    roles = _roles(result)
    assert roles["Test/Accuracy"] == "val_score" and roles["Test/Average loss"] == "val_loss"
    # near miss: a time of day after a number is still no value end
    with pytest.raises(UnknownFormatError):
        _read("".join(f"epoch {e} 0:1{e}:00 loss: 0:{9 - e}\n" for e in range(4)))


def test_comma_separated_key_value_records_are_console_lines_not_a_csv(tmp_path):
    # a TF2 custom loop's print: commas between pairs made the first line look like a header
    path = tmp_path / "log.txt"
    path.write_text(
        "".join(
            f"Epoch={e},Loss:{0.44 / e:.4f},Accuracy:{0.77 + e / 100:.4f},"
            f"Valid Loss:{0.32 + 0.05 * e:.4f},Valid Accuracy:{0.86 - e / 200:.4f}\n"
            for e in range(1, 7)
        )
    )
    result = load_run(path)
    assert result.format == "console"
    roles = _roles(result)
    assert roles["Loss"] == "train_loss" and roles["Valid Loss"] == "val_loss"
    assert len(result.frame[result.frame["metric"] == "Valid Loss"]) == 6


def test_loss_lines_without_any_counter_are_read_in_order():
    # a logging call every N iterations that prints no iteration: the line order is the step
    text = "".join(
        f"2018-03-23 15:{29 + i}:33,355:INFO: train loss:{v}\n"
        for i, v in enumerate(["1.10886", "1.53702", "0.866067", "1.32708", "nan", "nan"])
    )
    result = _read(text)
    steps, values = _series(result, "train loss")
    assert steps == [0, 1, 2, 3, 4, 5] and values[:2] == [1.10886, 1.53702]
    assert any("no step, iteration or epoch" in w.message for w in result.warnings)
    # near miss: a log that prints a counter on some lines keeps the counter as the step
    counted = _read("step 10: loss 0.9\nstep 20: loss 0.8\nstep 30: loss 0.7\n")
    assert _series(counted, "loss")[0] == [10, 20, 30]


def test_a_keras_callback_message_is_no_metric():
    # Keras 1 verbose 2 lines with a leading space, and ModelCheckpoint's message between them
    text = "".join(
        f"Epoch {e:05d}: val_acc did not improve from 0.10000\n"
        f"Epoch {e + 1}/300\n - 80s - loss: {2.0 / e:.4f} - acc: 0.1 - val_loss: {2.1 / e:.4f}\n"
        for e in range(1, 6)
    )
    result = _read(text)
    assert set(result.frame["metric"]) == {"loss", "acc", "val_loss"}


@pytest.mark.parametrize("batch_line", ["batch {b}: loss {v}", "  Step {b}/500 | Loss: {v}"])
def test_batches_printed_under_an_epoch_header_belong_to_that_epoch(batch_line):
    # `Epoch 3/10` on a line of its own, then lines that print only the batch: each epoch's
    # batches come after the last epoch's (one session, every point kept), read alike with
    # plans and with the patterns alone
    lines = []
    for e in range(1, 11):
        lines.append(f"Epoch {e}/10")
        lines += [batch_line.format(b=b * 100, v=f"{2.0 / (e + b / 5):.4f}") for b in range(1, 6)]
    text = "\n".join(lines) + "\n"
    result = _read(text)
    steps, values = _series(result, "loss" if "loss {v}" in batch_line else "Loss")
    assert len(steps) == 50 and steps == sorted(steps) and len(set(steps)) == 50
    assert not any("sessions" in w.message for w in result.warnings)
    for plans in (True, False):
        parser = Parser(next(s for s in STYLES if s.name == "generic key-value lines"), plans=plans)
        parser.feed_block(text.split("\n"), skeletons(text))
        assert to_points(parser.finish()).step.tolist() == steps


def test_a_colon_after_is_still_separates_the_name_from_its_value():
    """`epoch: 3,  loss is: 0.249, acc is: 0.914` (a PaddlePaddle script's print)."""
    losses = [0.6286, 0.3675, 0.2923, 0.2490]
    text = "".join(f"epoch: {e},  loss is: {v}, acc is: 0.{7 + e}\n" for e, v in enumerate(losses))
    result = _read(text)
    assert _series(result, "loss") == ([0, 1, 2, 3], losses)
    assert set(result.frame["metric"]) == {"loss", "acc"}


def test_keras_verbose_2_keeps_an_epoch_whose_line_comes_after_other_output():
    """TensorFlow's library messages between `Epoch 1/3` and its line, and EarlyStopping's
    message (numbered from 0, printed before the last epoch's line by stdout buffering)."""
    tf = "2021-05-09 18:27:56.180959: I tensorflow/stream_executor/dso_loader.cc:49] "
    text = (
        "Epoch 1/50\n"
        f"{tf}Successfully opened dynamic library cublas64_11.dll\n"
        f"{tf}Successfully opened dynamic library cudnn64_8.dll\n"
        "225s - loss: 0.6100 - acc: 0.8104 - val_loss: 0.5090 - val_acc: 0.8441\n"
        "Epoch 2/50\n"
        "225s - loss: 0.4897 - acc: 0.8609 - val_loss: 0.3591 - val_acc: 0.8987\n"
        "Epoch 3/50\n"
        "Epoch 00002: early stopping\n"
        "225s - loss: 0.4847 - acc: 0.8622 - val_loss: 0.2958 - val_acc: 0.9164\n"
    )
    result = _read(text)
    assert _series(result, "val_loss") == ([1, 2, 3], [0.509, 0.3591, 0.2958])


def test_a_value_printed_as_its_change_is_read_as_the_new_value():
    """`--> Learning Rate Reduced: 0.001 -> 0.0001` (a script's ReduceLROnPlateau message): the
    learning rate from here on is the new value, not the old one."""
    text = "".join(f"Epoch {e}: loss: {0.6 - 0.05 * e:.2f}\n" for e in range(1, 4))
    text += "--> Learning Rate Reduced: 0.001 -> 0.0001\n"
    text += "".join(f"Epoch {e}: loss: {0.6 - 0.05 * e:.2f}\n" for e in range(4, 6))
    result = _read(text)
    assert _series(result, "Learning Rate Reduced") == ([3], [0.0001])
    _same_with_and_without_plans(text)


def test_a_linking_word_before_a_key_is_prose_not_part_of_the_name():
    """`Saving model at Epoch 2 with Validation Accuracy: 52.49%` names the metric the epoch
    line prints (`Validation Accuracy`), not a second one called `with Validation Accuracy`."""
    text = "".join(
        f"Epoch {e}/50 - Train Loss: {t}, Validation Loss: {v}, Validation Accuracy: {a}%\n"
        f"Saving model at Epoch {e} with Validation Accuracy: {a}%\n"
        for e, t, v, a in ((1, 0.98, 1.38, 33.73), (2, 0.91, 1.21, 52.49), (3, 0.85, 1.1, 60.0))
    )
    result = _read(text)
    metrics = set(result.frame["metric"])
    assert "Validation Accuracy" in metrics and not any(m.startswith("with") for m in metrics)
    assert sorted(set(_series(result, "Validation Accuracy")[1])) == [33.73, 52.49, 60.0]
    # a key that is one linking word and nothing else is left as printed
    assert set(_read("step 1: to 0.5, loss 2.0\nstep 2: to 0.4, loss 1.5\n").frame["metric"]) >= {
        "to"
    }


_KERAS3_BAR = "69121/69121 \u2501\u2501\u2501\u2501 3159s 46ms/step - loss: {t} - val_loss: {v}"
_KERAS2_LINE = "12/12 - 0s - 3ms/step - loss: {t} - val_loss: {v}"


@pytest.mark.parametrize("line", [_KERAS3_BAR, _KERAS2_LINE])
def test_a_keras_log_cut_above_its_first_header_keeps_the_epoch_before_it(line):
    """A notebook's output truncated at the top starts mid-epoch: the bar above the first
    `Epoch 2/4` is epoch 1's, not a line without a counter to drop."""
    losses = [(0.9192, 0.8692), (0.8806, 0.8629), (0.8745, 0.8601), (0.8715, 0.8584)]
    text = line.format(t=losses[0][0], v=losses[0][1]) + "\n"
    for e, (t, v) in enumerate(losses[1:], 2):
        text += f"Epoch {e}/4\n" + line.format(t=t, v=v) + "\n"
    result = _read(text)
    assert _series(result, "loss") == ([1, 2, 3, 4], [t for t, _ in losses])
    assert _series(result, "val_loss") == ([1, 2, 3, 4], [v for _, v in losses])
    _same_with_and_without_plans(text)


def test_keras_lines_above_a_first_header_of_epoch_1_are_not_placed():
    """Above `Epoch 1/3` no epoch came before: a line there is no epoch's."""
    text = (
        _KERAS2_LINE.format(t=9.9, v=9.9)
        + "\n"
        + "".join(
            f"Epoch {e}/3\n" + _KERAS2_LINE.format(t=0.5 - 0.1 * e, v=0.5) + "\n" for e in (1, 2, 3)
        )
    )
    assert _series(_read(text), "loss") == ([1, 2, 3], [0.4, 0.3, 0.2])
    _same_with_and_without_plans(text)


def test_a_keras_callback_message_above_the_first_header_is_no_header():
    """`Epoch 00001: val_loss improved ...` is printed after the epoch it names: between the
    cut top's line and `Epoch 2/3` it does not stop that line being epoch 1's."""
    text = (
        _KERAS2_LINE.format(t=0.5, v=0.6)
        + "\nEpoch 00001: val_loss improved\n"
        + "".join(
            f"Epoch {e}/3\n" + _KERAS2_LINE.format(t=0.5 - 0.1 * e, v=0.5) + "\n" for e in (2, 3)
        )
    )
    assert _series(_read(text), "loss") == ([1, 2, 3], [0.5, 0.3, 0.2])
    _same_with_and_without_plans(text)


def test_keras_lines_held_above_a_first_header_are_bounded():
    """A log with more metric lines than a cut top holds before any header has no header to
    place them by: they are dropped, not held without bound."""
    from lossforensics.ingest.console import _parser
    from lossforensics.ingest.console.styles.keras_verbose2 import STYLE

    lines = [_KERAS2_LINE.format(t=0.9, v=0.9)] * (_parser._MAX_LEADING + 1)
    for e in (2, 3):
        lines += [f"Epoch {e}/3", _KERAS2_LINE.format(t=0.5 - 0.1 * e, v=0.5)]
    for plans in (True, False):
        parser = Parser(STYLE, plans=plans)
        parser.feed_block(lines, skeletons("\n".join(lines)))
        assert sorted(set(to_points(parser.finish()).step.tolist())) == [2, 3]


def _epochs_with(heading: str) -> str:
    return "".join(
        f"Epoch {e}: loss: {1 / e:.3f}\n{heading}\n"
        f" accuracy: {0.5 + e / 20:.3f}, loss: {1.2 / e:.3f}\n"
        for e in range(1, 5)
    )


@pytest.mark.parametrize("heading", ["Test Error:", "Validating...", "=== Validation ==="])
def test_a_split_heading_names_the_split_of_the_line_under_it(heading):
    frame = _read(_epochs_with(heading)).frame
    roles = dict(zip(frame["metric"], frame["role"], strict=True))
    split = "test" if "Test" in heading else "val"
    assert roles[f"{split}/loss"] == "val_loss" and roles[f"{split}/accuracy"] == "val_score"
    assert _series(_read(_epochs_with(heading)), "loss")[1] == [1.0, 0.5, 0.333, 0.25]


@pytest.mark.parametrize("heading", ["Test results for the whole run:", "Validation 3"])
def test_prose_or_a_numbered_line_is_no_split_heading(heading):
    """Four words are a sentence, and a number makes the line a record of its own: the line
    under it keeps the training split."""
    frame = _read(_epochs_with(heading)).frame
    assert not any(str(m).startswith(("val/", "test/")) for m in set(frame["metric"]))


def _pyg_log() -> str:
    """PyTorch Geometric's examples (`torch_geometric.logging.log`): the loss, then each
    split's accuracy under the split's bare name."""
    return "".join(
        f"Epoch: {e:03d}, Loss: {1.9 * 0.93**e:.4f}, Train: {min(1, 0.3 + e * 0.03):.4f}, "
        f"Val: {min(0.78, 0.3 + e * 0.02):.4f}, Test: {min(0.8, 0.31 + e * 0.02):.4f}\n"
        for e in range(1, 31)
    )


def test_bare_split_names_beside_a_loss_are_the_splits_scores():
    """`Loss: 0.52, Train: 0.95, Val: 0.78`: with a loss on the line, the bare split names are
    accuracies. Read as losses, a validation accuracy climbing to 0.78 was a validation loss
    rising 142%: a healthy GNN run called overfit."""
    frame = _read(_pyg_log()).frame
    roles = dict(zip(frame["metric"], frame["role"], strict=True))
    assert roles == {
        "Loss": "train_loss",
        "Train": "train_score",
        "Val": "val_score",
        "Test": "val_score",
    }


def test_bare_split_names_alone_on_their_line_are_the_splits_losses():
    """nanoGPT-style evaluation lines print no loss key of their own: `train` and `val` there
    are the splits' losses, though other lines print a `loss`."""
    text = "".join(
        f"iter {i}: loss {3 - i / 100:.4f}\n"
        + (f"step {i}: train {3 - i / 100:.4f} val {3.1 - i / 120:.4f}\n" if i % 50 == 0 else "")
        for i in range(0, 201, 10)
    )
    frame = _read(text).frame
    roles = dict(zip(frame["metric"], frame["role"], strict=True))
    assert roles["train"] == "train_loss" and roles["val"] == "val_loss"


def _steps_bar(steps: int, desc: str = "Steps", level: float = 0.3) -> str:
    """diffusers' training scripts: one tqdm bar over the run's steps (`desc="Steps"`), its
    postfix set every step (`step_loss`, `lr`), redrawn with carriage returns."""
    draws = "".join(
        f"\r{desc}: {100 * s // steps:3d}%|{'#' * (10 * s // steps):10s}| {s}/{steps} "
        f"[00:{s // 60:02d}<00:10,  1.50it/s, lr=0.0001, "
        f"step_loss={level * 0.99**s + 0.01 * (s % 3):.4g}]"
        for s in range(1, steps + 1)
    )
    return (
        "Loading pipeline components...: 100%|##########| 7/7 [00:01<00:00,  5.10it/s]\n"
        + draws
        + "\n"
    )


def test_a_bar_over_the_runs_steps_gives_a_point_for_every_state_drawn():
    """The bar's last state alone was one point: no curve, and the log was refused. Each
    state drawn is a step of the run, at the bar's position."""
    steps, values = _series(_read(_steps_bar(120)), "step_loss")
    assert len(steps) >= 110 and steps == sorted(steps) and steps[0] == 1 and steps[-1] == 120
    assert values[0] == pytest.approx(0.3 * 0.99 + 0.01)


def test_3d_gaussian_splatting_training_progress_bar_is_a_steps_bar():
    """3D Gaussian Splatting's `Training progress: 7%|█ | 7000/100000 [.., Loss=0.0159089]`:
    one bar over the run's iterations, read as the lines' order (steps 1, 2, 3)."""
    draws = "".join(
        f"\rTraining progress: {100 * s // 3000:3d}%|{'#' * (10 * s // 3000):10s}| {s}/3000 "
        f"[00:{s // 600:02d}<00:10, 87.37it/s, Loss={0.3 * 0.999**s:.7f}, "
        f"Depth Loss={0.1 * 0.998**s:.7f}]"
        for s in range(10, 3010, 10)
    )
    result = _read("Optimizing ./output/lego/\n" + draws + "\n")
    steps, values = _series(result, "Loss")
    assert len(steps) >= 290 and steps == sorted(steps) and steps[-1] == 3000
    assert len(_series(result, "Depth Loss")[0]) >= 290  # a postfix key of two words
    # its evaluations, printed between the bar's states: the test split's L1 is a val loss
    evals = "".join(
        f"\n[ITER {it}] Evaluating test: L1 {0.05 - it / 1e5} PSNR {25 + it / 1000} "
        f"[01/01 14:02:40]\n\n[ITER {it}] Evaluating train: L1 0.03 PSNR 29.0 [01/01 14:02:40]\n"
        for it in (1000, 2000)
    )
    result = _read("Optimizing ./output/lego/\n" + draws + evals)
    roles = _roles(result)
    assert roles["test/L1"] == "val_loss" and roles["test/PSNR"] == "val_score"
    assert _series(result, "test/L1")[0] == [1000, 2000]


def test_a_bar_over_an_epochs_batches_keeps_its_last_state():
    """A bar named after its epoch is redrawn over that epoch's batches: its last state is the
    epoch's point, as before."""
    text = "".join(
        _steps_bar(50, desc=f"Epoch {e}", level=0.3 - e / 20).split("\n", 1)[1] for e in range(3)
    )
    steps, _ = _series(_read(text), "step_loss")
    assert steps == [0, 1, 2]


def _basicsr_log(iters: range, gan: bool) -> str:
    """BasicSR's MessageLogger lines and its validation block, as `basicsr/utils/logger.py` and
    `base_model._log_validation_metric_values` print them."""
    text = "2023-01-01 10:00:00,000 INFO: Start training from epoch: 0, iter: 0\n"
    for it in iters:
        losses = f"l_pix: {1 / it:.4e} "
        if gan:
            losses = f"l_g_pix: {1 / it:.4e} l_g_gan: {0.05:.4e} l_d_real: {0.69 + it / 1e5:.4e} "
            losses += f"out_d_real: {1.0:.4e} l_d_fake: {0.69:.4e} out_d_fake: {-1.0:.4e} "
        text += (
            f"2023-01-01 10:00:00,000 INFO: [train..][epoch:{it // 50:3d}, iter:{it:8,d}, "
            f"lr:({1e-4:.3e},{1e-4:.3e},)] [eta: 1 day, 2:00:00, time (data): 0.250 (0.002)] "
            f"{losses}\n"
        )
        if it % 1000 == 0:
            text += (
                "2023-01-01 10:00:00,000 INFO: Validation Set5\n"
                f"\t # psnr: {20 + it / 1000:.4f}\tBest: {20 + it / 1000:.4f} @ {it} iter\n"
                f"\t # ssim: {0.5 + it / 10000:.4f}\tBest: {0.5:.4f} @ 1000 iter\n"
            )
    return text


def test_basicsr_losses_by_global_iteration_with_their_validation():
    result = _read(_basicsr_log(range(100, 3100, 100), gan=False))
    assert "basicsr" in result.detail
    roles = _roles(result)
    assert roles == {
        "l_pix": "train_loss",
        "lr": "lr",
        "val/psnr": "val_score",
        "val/ssim": "val_score",
    }
    f = result.frame
    pix = f[f["metric"] == "l_pix"]
    assert list(pix["step"]) == list(range(100, 3100, 100))  # `   1,000` is 1000
    psnr = f[f["metric"] == "val/psnr"]
    assert list(psnr["step"]) == [1000, 2000, 3000] and list(psnr["value"]) == [21, 22, 23]


def test_basicsr_gan_is_judged_on_the_generator_term_not_the_discriminator():
    result = _read(_basicsr_log(range(100, 3100, 100), gan=True))
    roles = _roles(result)
    assert roles["out_d_real"] == "other" and roles["l_d_real"] == "train_loss"
    assert RunSeries(result.frame).primary("train_loss") == "l_g_pix"


def test_flair_evaluation_lines_belong_to_the_epoch_just_ended():
    """Flair 0.10 on: `DEV : loss .. - f1-score (micro avg)  0.91` after `EPOCH n done`; the
    batch counter's total is the epoch's length."""
    text = ""
    for e in range(1, 4):
        for it in (15, 30, 45):
            text += (
                f"epoch {e} - iter {it}/50 - loss {2 / (e + it / 50):.8f} - time (sec): 3.2 - "
                f"samples/sec: 400.5 - lr: 0.100000 - momentum: 0.000000\n"
            )
        text += f"EPOCH {e} done: loss {2 / e:.4f} - lr: 0.100000\n"
        text += f"DEV : loss {1 / e:.8f} - f1-score (micro avg)  {0.5 + e / 10:.4f}\n"
    result = _read(text)
    assert "flair" in result.detail
    roles = _roles(result)
    assert roles["DEV/loss"] == "val_loss" and roles["DEV/f1-score (micro avg)"] == "val_score"
    assert roles["loss"] == "train_loss" and roles["lr"] == "lr"
    assert "momentum" not in roles and "samples/sec" not in roles
    f = result.frame
    dev = f[f["metric"] == "DEV/loss"]
    assert list(dev["step"]) == [50, 100, 150]  # each epoch's end: batches 1 to 50
    assert list(f[f["metric"] == "loss"]["step"])[:3] == [15, 30, 45]


def test_marian_updates_and_validations():
    """Marian's newer `L.r.` field and older `Cost X * N after M` form; a validation metric a
    line, its best so far beside it ignored."""
    text = ""
    for up in range(1000, 6000, 1000):
        text += (
            f"[2022-12-02 10:48:36] Ep. 1 : Up. {up} : Sen. 106,869 : Cost {3 / (up / 1000):.8f}"
            f" * 1,234,567 after 12,345,678 : Time 109.94s : 4642.64 words/s : L.r. 3.0000e-04\n"
        )
        if up % 2000 == 0:
            text += (
                f"[2022-12-02 10:48:40] [valid] Ep. 1 : Up. {up} : cross-entropy : "
                f"{2 / (up / 1000):.5f} : stalled 1 times (last best: 0.5)\n"
                f"[2022-12-02 10:48:41] [valid] Ep. 1 : Up. {up} : chrf : 45.1 : new best\n"
            )
    result = _read(text)
    assert "marian" in result.detail
    roles = _roles(result)
    assert roles == {
        "Cost": "train_loss",
        "L.r.": "lr",
        "valid/cross-entropy": "val_loss",
        "valid/chrf": "val_score",
    }
    f = result.frame
    assert list(f[f["metric"] == "Cost"]["step"]) == [1000, 2000, 3000, 4000, 5000]
    assert list(f[f["metric"] == "valid/cross-entropy"]["value"]) == [1.0, 0.5]


def test_a_run_counter_on_every_line_makes_each_run_its_own():
    """OGB's examples train one seed after another, `Run: 02, Epoch: 01, ...` on every line: the
    epochs counting again are a new model, not a resume of the first."""
    text = ""
    for run in (1, 2, 3):
        for epoch in range(1, 11):
            text += (
                f"Run: {run:02d}, Epoch: {epoch:02d}, Loss: {1 / epoch + run / 100:.4f}, "
                f"Train: {50 + epoch:.2f}%, Valid: {45 + epoch:.2f}% Test: {44 + epoch:.2f}%\n"
            )
        text += f"Run {run:02d}:\nHighest Train: 60.00\nHighest Valid: 55.00\n"
    result = _read(text)
    f = result.frame
    assert sorted(set(f["run"])) == ["console#run 1", "console#run 2", "console#run 3"]
    assert "Run" not in set(f["metric"]) and set(f["segment"]) == {0}
    loss = f[(f["run"] == "console#run 2") & (f["metric"] == "Loss")]
    assert list(loss["step"]) == list(range(1, 11))
    # one value throughout is no run counter: nothing is split
    one = _read(text.replace("Run: 02", "Run: 01").replace("Run: 03", "Run: 01"))
    assert set(one.frame["run"]) == {"console"}


def test_a_validation_loop_counting_its_own_batches_restarts_nothing():
    """A reid-strong-baseline-style trainer logs its validation batches with their own
    `Iteration[k/10]` after the epoch's `Iteration[29/29]`: the validation loss's count going
    back is no session; the training loss's steps decide."""
    text = ""
    for e in range(1, 4):
        for it in range(1, 30, 4):
            text += (
                f"2020-09-22 15:12:35,354 cls.train INFO: Epoch[{e}/100] Iteration[{it}/29] "
                f"Train_Loss: {1 / (e + it / 29):.3f}, Train_Acc: 0.5, Base Lr: 3.27e-05\n"
            )
        for it in range(1, 11):
            text += (
                f"2020-09-22 15:12:49,118 cls.train INFO: Epoch[{e}/100] Iteration[{it}/10] "
                f"Val_Loss: {0.5 + it / 100:.3f}, Val_Acc: 0.969\n"
            )
    result = _read(text)
    assert set(result.frame["segment"]) == {0}
    assert not any("sessions" in w.message for w in result.warnings)
    roles = _roles(result)
    assert roles["Val_Loss"] == "val_loss" and roles["Train_Loss"] == "train_loss"


def test_insightfaces_mxnet_lossvalue_is_the_training_loss():
    """insightface's MXNet recipes track their loss as a metric named `lossvalue`: no general
    rule names it, so the file held no loss and was refused."""
    text = "".join(
        f"INFO:root:Epoch[{e}] Batch [{b}]\tSpeed: 256.09 samples/sec\t"
        f"lossvalue={0.04 - b / 1e4:.6f}\n"
        for e in (1, 2)
        for b in range(2, 40, 2)
    )
    result = _read(text)
    assert "mxnet" in result.detail and _roles(result)["lossvalue"] == "train_loss"
    assert len(_series(result, "lossvalue")[0]) == 38


def test_ignite_epoch_lines_are_not_mxnet_s():
    """PyTorch Ignite's handlers print `Epoch[50] Loss:[0.69]`: the MXNet style reads only MXNet's
    own lines (`Batch [`, `Train-`, `Validation-`, `Time cost=`), so the evaluator's averages
    on the line under it are read too."""
    text = "".join(
        f"Epoch[{e}] Loss:[{1 / e:.2f}]\nEVALUATOR: Training Results - Epoch: {e}  "
        f"Avg accuracy: 0.51  Avg loss: {0.9 / e:.4f}\n"
        for e in range(50, 1050, 50)
    )
    result = _read(text)
    assert "mxnet" not in result.detail
    assert len(_series(result, "Avg loss")[0]) == 20 and len(_series(result, "Loss")[0]) == 20


def test_a_relaunch_from_epoch_one_is_a_session_of_a_step_counted_within_the_epoch():
    """StyleTTS: `Epoch [e/5], Step [s/62]`, the step counting within the epoch, relaunched
    twice from epoch 1. Where the epoch goes back with the step, the run restarted; the step
    stays a batch counter (taken for a global step, every epoch was a session of its own)."""
    text = ""
    for ends in (3, 5, 2):  # three launches, each from epoch 1
        for e in range(1, ends + 1):
            for s in (10, 20, 30, 40, 50, 60):
                text += (
                    f"INFO:2026-03-05 23:25:42,758: Epoch [{e}/5], Step [{s}/62], "
                    f"Mel Loss: {1 / (e + s / 62):.5f}, Adv Loss: 0.64536\n"
                )
    result = _read(text)
    assert set(result.frame["segment"]) == {0, 1, 2}
    steps, _ = _series(result, "Mel Loss")
    assert steps[:6] == sorted(steps[:6]) and steps[6] > steps[5]  # epoch 2 follows epoch 1


def test_a_checkpoint_message_is_no_record():
    """`Saving model at Epoch N with Validation Accuracy: ..` repeats the epoch's own value: read
    as a record it was an extra point, and it made the axis `epoch x 2 + place`."""
    text = ""
    for e in range(1, 21):
        acc = 30 + e
        if e % 3 == 1:
            text += f"Saving model at Epoch {e} with Validation Accuracy: {acc:.2f}%\n"
        text += (
            f"Epoch {e}/50 - Train Loss: {1 / e:.4f}, Train Accuracy: 50.15%, "
            f"Validation Loss: {1.2 / e:.4f}, Validation Accuracy: {acc:.2f}%\n"
        )
        if e % 5 == 0:
            text += f"  \u2192 Saved best model (Dice: 0.{e:04d})\n"
    result = _read(text)
    assert _series(result, "Validation Accuracy")[0] == list(range(1, 21))
    assert "Dice" not in set(result.frame["metric"])
    # a record that mentions saving after its metrics is still a record
    kept = _read("".join(f"Epoch {e}: loss {1 / e:.3f} (checkpoint saved)\n" for e in range(1, 9)))
    assert len(_series(kept, "loss")[0]) == 8


@pytest.mark.parametrize("gap", ["", " "])
def test_swin_transformer_train_and_test_meters(gap):
    """Swin Transformer's logger: `[time name](main.py 225): INFO Train: [e/E][b/B]\\t...` with
    running averages beside each meter, then `Test: [b/B]` lines and the ` * Acc@1` summary. Its
    log file's format puts a space before the place (`[time name] (main.py 225): INFO `): the
    prefix was not taken off, and the log was refused."""
    prefix = f"[2021-03-27 10:04:38 swin_tiny_patch4_window7_224]{gap}(main.py {{}}): INFO "
    text = ""
    for e in range(3):
        for b in (0, 250, 500, 750, 1000, 1250):
            loss = 6.9 - e - b / 1000
            text += prefix.format(225) + (
                f"Train: [{e}/300][{b}/1251]\teta 0:08:23 lr 0.000100\ttime 0.3965 (0.4128)\t"
                f"loss {loss:.4f} ({loss + 0.1:.4f})\tgrad_norm 2.3001 (2.9112)\tmem 12345MB\n"
            )
        text += prefix.format(87) + f"EPOCH {e} training takes 0:08:23\n"
        for b in (0, 50):
            text += prefix.format(270) + (
                f"Test: [{b}/98]\tTime 0.981 (0.981)\tLoss {2 - e / 10:.4f} (2.0000)\t"
                f"Acc@1 {50 + e:.3f} (50.000)\tAcc@5 80.000 (80.000)\tMem 12345MB\n"
            )
    result = _read(text)
    assert "pytorch meters" in result.detail
    roles = _roles(result)
    assert roles["loss"] == "train_loss" and roles["grad_norm"] == "grad_norm"
    assert roles["lr"] == "lr"
    steps, values = _series(result, "loss")
    assert len(steps) == 18 and steps == sorted(steps) and values[0] == 6.9
    assert "test/Loss" in roles and roles["test/Loss"] == "val_loss"


def test_catboost_verbose_learn_and_test():
    """CatBoost's `fit(verbose=10)`: `10:\\tlearn: ..\\ttest: ..\\tbest: .. (10)\\ttotal: ..ms
    \\tremaining: ..`; the best so far and the timings are no metrics (the log was refused)."""
    text = "Learning rate set to 0.05\n" + "".join(
        f"{i}:\tlearn: {0.69 - i / 1000:.7f}\ttest: {0.69 - i / 2000:.7f}\t"
        f"best: {0.69 - i / 2000:.7f} ({i})\ttotal: {57.2 + i:.1f}ms\tremaining: 1m 2s\n"
        for i in range(0, 300, 10)
    )
    text += "\nbestTest = 0.5412\nbestIteration = 290\n\nShrink model to first 291 iterations.\n"
    result = _read(text)
    assert "catboost" in result.detail
    roles = _roles(result)
    assert roles == {"learn": "train_loss", "test": "val_loss"}
    assert _series(result, "test")[0] == list(range(0, 300, 10))


def test_a_batch_id_is_the_batch_counter():
    """PaddlePaddle's tutorial loop prints `epoch: 0, batch_id: 500, loss is: [0.52]`: the batch's
    id is its counter within the epoch, not a metric."""
    text = "".join(
        f"epoch: {e}, batch_id: {b}, loss is: [{1 / (e + 1 + b / 1000):.4f}], acc is: [0.5]\n"
        for e in range(3)
        for b in range(0, 1000, 100)
    )
    result = _read(text)
    assert not {"batch_id", "batch"} & set(result.frame["metric"])
    steps, _ = _series(result, "loss")
    assert len(steps) == 30 and steps == sorted(steps) and len(set(steps)) == 30


def test_a_split_metric_value_line_borrows_the_last_counter():
    """DGL's GraphSAGE example prints `Eval Acc 0.9248` on a line of its own after the epoch's
    `Epoch 00005 | Step 00040 | Loss ..` lines: a `key value` pair with no counter of its own,
    dropped as prose; a line of prose with a number stays no record."""
    text = ""
    for e in range(6):
        for s in range(0, 60, 20):
            text += (
                f"Epoch {e:05d} | Step {s:05d} | Loss {1 / (e + 1 + s / 60):.4f} | Train Acc 0.5 | "
                f"Speed (samples/sec) nan | GPU 1234.5 MB\n"
            )
        text += f"Epoch Time(s): 7.0880\nEval Acc {0.9 + e / 100:.4f}\nTest Acc: 0.88\n"
        text += "Eval took 3 seconds\n"
    result = _read(text)
    roles = _roles(result)
    assert roles["Eval Acc"] == "val_score" and len(_series(result, "Eval Acc")[0]) == 6
    assert "Eval took" not in roles


def test_sklearn_mlp_validation_scores_are_read():
    """scikit-learn's MLPClassifier(verbose=True, early_stopping=True) prints Caffe's
    `Iteration 3, loss = 0.41` and a `Validation score: 0.85` under it: the Caffe style read the
    loss and dropped the held-out score."""
    text = "".join(
        f"Iteration {i}, loss = {1 / i:.8f}\nValidation score: {0.8 + i / 100:.6f}\n"
        for i in range(1, 16)
    )
    text += "Validation score did not improve more than tol=0.000100 for 10 consecutive epochs.\n"
    result = _read(text)
    roles = _roles(result)
    assert roles == {"loss": "train_loss", "Validation score": "val_score"}
    assert _series(result, "Validation score")[0] == list(range(1, 16))


def test_trax_loop_lines_name_their_split_before_the_metric():
    """Trax's `training.Loop`: `Step 10: train CrossEntropyLoss |  5.27`, one metric a line,
    the split the word after the step; the loop's `Ran 9 train steps` line is no metric."""
    text = ""
    for step, (train, val, acc) in zip(
        (1, 10, 20), ((2.97, 5.96, 0.85), (5.27, 5.19, 0.85), (6.68, 4.00, 0.81)), strict=True
    ):
        text += f"\nStep {step:6d}: Ran {max(step - 1, 1)} train steps in 815.40 secs\n"
        text += f"Step {step:6d}: train CrossEntropyLoss |  {train:.8f}\n"
        text += f"Step {step:6d}: eval  CrossEntropyLoss |  {val:.8f}\n"
        text += f"Step {step:6d}: eval          Accuracy |  {acc:.8f}\n"
    result = _read(text)
    assert "trax" in result.detail
    roles = _roles(result)
    assert roles == {
        "CrossEntropyLoss": "train_loss",
        "eval/CrossEntropyLoss": "val_loss",
        "eval/Accuracy": "val_score",
    }
    assert _series(result, "CrossEntropyLoss") == ([1, 10, 20], [2.97, 5.27, 6.68])
    assert _series(result, "eval/Accuracy") == ([1, 10, 20], [0.85, 0.85, 0.81])


def test_tf_estimator_evaluation_dict_is_the_held_out_result_at_its_step():
    """`tf.estimator`: `loss = 3.15, step = 101 (0.726 sec)` while training, and the
    evaluation's `Saving dict for global step 1000: accuracy = .., loss = ..` (a save message
    whose numbers are the evaluation's); the speed and the final step's loss are no series."""
    text = "INFO:tensorflow:Create CheckpointSaverHook.\n"
    text += "INFO:tensorflow:loss = 6.93147, step = 1\n"
    for step, loss in ((101, 3.15373), (201, 4.95333), (301, 4.80319)):
        text += "INFO:tensorflow:global_step/sec: 137.825\n"
        text += f"INFO:tensorflow:loss = {loss}, step = {step} (0.726 sec)\n"
    text += (
        "INFO:tensorflow:Saving checkpoints for 400 into /tmp/tmp2y21bt5i/model.ckpt.\n"
        "INFO:tensorflow:Loss for final step: 6.10011.\n"
        "INFO:tensorflow:Starting evaluation at 2018-01-30-07:06:29\n"
        "INFO:tensorflow:Finished evaluation at 2018-01-30-07:06:31\n"
        "INFO:tensorflow:Saving dict for global step 400: accuracy = 0.727273, "
        "accuracy_baseline = 0.649351, auc = 0.799712, average_loss = 0.527243, "
        "global_step = 400, label/mean = 0.350649, loss = 5.07471, prediction/mean = 0.348325\n"
    )
    result = _read(text)
    assert "tf.estimator" in result.detail
    roles = _roles(result)
    assert roles["loss"] == "train_loss" and roles["eval/average_loss"] == "val_loss"
    assert roles["eval/accuracy"] == "val_score" and roles["eval/accuracy_baseline"] == "other"
    assert "global_step" not in roles and "eval/global_step" not in roles
    assert _series(result, "loss") == ([1, 101, 201, 301], [6.93147, 3.15373, 4.95333, 4.80319])
    assert _series(result, "eval/accuracy") == ([400], [0.727273])


def test_a_key_never_starts_on_a_numbers_unit():
    """The TF Object Detection API prints `Step 500 per-step time 0.490s loss=0.257`: the `s`
    of the time's unit started a key `s loss`."""
    text = "".join(
        f"I0124 15:51:03.956643 140032611187584 model_lib_v2.py:648] Step {s} per-step time "
        f"0.490s loss={v}\n"
        for s, v in ((100, 0.9), (200, 0.5), (300, 0.4))
    )
    result = _read(text)
    roles = _roles(result)
    assert roles == {"loss": "train_loss"}
    assert _series(result, "loss") == ([100, 200, 300], [0.9, 0.5, 0.4])


def test_deepspeed_rank_tag_and_its_learning_rate_per_parameter_group():
    """DeepSpeed's `log_dist` line: `[Rank 0]` after its level and place, and the learning
    rate printed once a parameter group (`lr=[5.79e-07, 5.79e-07]`): the tag was a metric and
    the list dropped."""
    text = ""
    for step in (10, 20, 30):
        lr = f"{step * 1e-7:.2e}"
        text += (
            f"[2023-05-10 12:00:{step:02d},123] [INFO] [logging.py:96:log_dist] [Rank 0] "
            f"step={step}, skipped=0, lr=[{lr}, {lr}], mom=[(0.9, 0.95), (0.9, 0.95)]\n"
            f"Epoch 0 step {step} loss: {2 - step / 100:.2f}\n"
        )
    result = _read(text)
    roles = _roles(result)
    assert "Rank" not in roles
    assert roles["lr"] == "lr" and roles["loss"] == "train_loss"
    assert _series(result, "lr") == ([10, 20, 30], [1e-06, 2e-06, 3e-06])


def test_a_ray_workers_tag_is_no_metric():
    """Ray prefixes each line a remote task prints with its worker (`(main_task pid=13624)`,
    verl's and TinyZero's trainers): `pid` was a metric."""
    text = "".join(
        f"(main_task pid=13624) step:{s} - actor/pg_loss:{0.5 / s:.4f} - actor/lr:1e-06\n"
        for s in (1, 2, 3)
    )
    result = _read(text)
    roles = _roles(result)
    assert roles == {"actor/pg_loss": "train_loss", "actor/lr": "lr"}
    assert _series(result, "actor/pg_loss")[0] == [1, 2, 3]


def test_monai_ignite_prefix_and_engine_messages():
    """MONAI's workflows log through ignite: `[time] [pid] [thread] [INFO] (logger:line) - `
    before the message; the best value so far and the engine's state are no records (their
    `at epoch: 1` put a metric back at epoch 1)."""
    p = "[2023-09-13 08:31:58,232] [19180] [MainThread] [INFO] "
    trainer, evaluator = (
        "(ignite.engine.engine.SupervisedTrainer",
        "(ignite.engine.engine.SupervisedEvaluator",
    )
    text = ""
    for e in (1, 2, 3):
        for i in (1, 2, 3):
            loss = 1 - e / 10 - i / 100
            text += f"{p}{trainer}:294) - Epoch: {e}/3, Iter: {i}/3 -- train_loss: {loss:.4f}\n"
        text += f"{p}{trainer}:234) - Key metric: train_mean_dice best value: 0.0036 at epoch: 1\n"
        resuming = f"Engine run resuming from iteration 0, epoch {e - 1} until {e} epochs"
        text += f"{p}{evaluator}:876) - {resuming}\n"
        text += f"{p}{evaluator}:223) - Epoch[{e}] Metrics -- val_mean_dice: {0.5 + e / 10:.4f}\n"
        text += f"{p}{evaluator}:234) - Key metric: val_mean_dice best value: 0.8 at epoch: {e}\n"
        text += f"{p}{evaluator}:988) - Engine run complete. Time taken: 00:00:00.282\n"
    result = _read(text)
    roles = _roles(result)
    assert roles == {"train_loss": "train_loss", "val_mean_dice": "val_score"}
    assert _series(result, "train_loss")[0] == [1, 2, 3, 4, 5, 6, 7, 8, 9]
    assert _series(result, "val_mean_dice") == ([3, 6, 9], [0.6, 0.7, 0.8])
    assert result.frame["segment"].nunique() == 1


def test_udacity_prints_trail_their_values_with_dots():
    """Udacity's Intro to PyTorch: `Epoch: 1/3..  Training Loss: 4.739..  Test Loss: 3.941..
    Test Accuracy: 0.185`; the dots after each number read as a decimal point cut short, and the
    log was refused."""
    text = ""
    for e, (tr, te, acc) in enumerate(((4.739, 3.941, 0.185), (1.764, 1.364, 0.641)), start=1):
        for k in range(3):
            text += (
                f"Epoch: {e}/2..  Training Loss: {tr - k / 10:.3f}..  Test Loss: {te:.3f}..  "
                f"Test Accuracy: {acc:.3f}\n"
            )
    result = _read(text)
    roles = _roles(result)
    assert roles == {
        "Training Loss": "train_loss",
        "Test Loss": "val_loss",
        "Test Accuracy": "val_score",
    }
    assert _series(result, "Training Loss")[1] == [4.739, 4.639, 4.539, 1.764, 1.664, 1.564]


@pytest.mark.parametrize("counter", ["epoch", "iteration"])
def test_a_cost_printed_after_its_counter_is_the_loss(counter):
    """The Coursera deep-learning courses print `Cost after epoch 0: 1.971088`: the counter
    inside the key after `after`, and the loss named a cost."""
    text = (
        "".join(f"Cost after {counter} {n * 100}: {2 / (n + 1):.6f}\n" for n in range(5))
        + "Train Accuracy: 0.93\nTest Accuracy: 0.81\n"
    )
    result = _read(text)
    roles = _roles(result)
    assert roles["Cost"] == "train_loss"
    assert _series(result, "Cost")[0] == [0, 100, 200, 300, 400]


def test_a_score_printed_only_once_an_epoch_keeps_its_name():
    """CS231n's Solver: `(Iteration 1 / 4900) loss: 2.30` and, each epoch, `(Epoch 1 / 10)
    train acc: 0.45; val_acc: 0.42`. The train accuracy has no per-iteration series to be kept
    apart from: it stays `train acc`, a training score, not `epoch/train acc` (other)."""
    text = ""
    it = 0
    for e in range(3):
        text += f"(Epoch {e} / 3) train acc: {0.1 + e / 10:.6f}; val_acc: {0.1 + e / 12:.6f}\n"
        for _ in range(4):
            it += 1
            text += f"(Iteration {it} / 12) loss: {2.3 - it / 10:.6f}\n"
    result = _read(text)
    roles = _roles(result)
    assert roles == {"train acc": "train_score", "val_acc": "val_score", "loss": "train_loss"}


def test_segmentation_models_pytorch_bars_name_their_split_and_print_key_dash_value():
    """segmentation_models_pytorch's epoch runners (verbose): `train: 100%|####| 70/70 [...,
    dice_loss - 0.7113, iou_score - 0.1892]` then the same bar named `valid:`; the ` - `
    between name and value was no separator, and the log was refused."""
    text = ""
    for e in range(1, 4):
        text += (
            f"\nEpoch: {e}\n"
            f"train: 100%|██████████| 70/70 [02:23<00:00,  2.06s/it, "
            f"dice_loss - 0.{71 - e}13, iou_score - 0.1{e}92]\n"
            f"valid: 100%|██████████| 21/21 [00:47<00:00,  2.26s/it, "
            f"dice_loss - 0.6{e}16, iou_score - 0.2{e}7]\n"
        )
    result = _read(text)
    roles = _roles(result)
    assert roles == {
        "dice_loss": "train_loss",
        "iou_score": "train_score",
        "valid/dice_loss": "val_loss",
        "valid/iou_score": "val_score",
    }
    assert _series(result, "valid/dice_loss")[1] == [0.6116, 0.6216, 0.6316]


def test_a_logging_record_glued_to_a_bars_number_is_a_line_of_its_own():
    """Pytorch-UNet logs its validation while tqdm's bar has not ended its line:
    `..., loss (batch)=0.198INFO: Validation Dice score: 0.6432`. The bar's loss read as
    `0.198INFO`, no number, and its key has a qualifier in brackets."""
    text = ""
    for e in (1, 2):
        for k, (pos, loss) in enumerate(((916, 0.198), (1832, 0.116), (2748, 0.127)), start=1):
            text += (
                f"Epoch {e}/2:  {20 * k}%|███▌   | {pos}/4580 [01:57<07:43,  7.90img/s, "
                f"loss (batch)={loss / e:.4g}INFO: Validation Dice score: {0.6 + k / 100}\n"
            )
    result = _read(text)
    roles = _roles(result)
    assert roles["loss (batch)"] == "train_loss"
    assert _series(result, "loss (batch)")[1] == [0.198, 0.116, 0.127, 0.099, 0.058, 0.0635]


def test_the_kaggle_templates_bracketed_epoch_and_batch():
    """The Kaggle training template many notebooks copy: `Epoch: [1][0/391] Elapsed 0m 2s
    (remain 17m 13s) Loss: 2.8918(2.8918) Grad: 78659.0469 LR: 0.00002000`, then `Epoch 1 -
    avg_train_loss: 0.4871  avg_val_loss: 0.3924  time: 519s`. The batch in brackets was not
    read (the steps were each line's place in its epoch), and `Grad` is the clipped norm."""
    text = ""
    for e in (1, 2, 3):
        for b in (0, 200, 390):
            loss = 2.0 / (e + b / 391)
            text += (
                f"Epoch: [{e}][{b}/391] Elapsed 0m 2s (remain 17m 13s) "
                f"Loss: {loss:.4f}({loss:.4f}) Grad: {1000 / e:.4f} LR: 0.00002000 \n"
            )
        text += (
            f"Epoch {e} - avg_train_loss: {1 / e:.4f}  avg_val_loss: {0.9 / e:.4f}  time: 519s\n"
        )
    result = _read(text)
    roles = _roles(result)
    assert roles["Loss"] == "train_loss" and roles["Grad"] == "grad_norm"
    assert roles["avg_val_loss"] == "val_loss"
    assert _series(result, "Loss")[0] == [0, 200, 390, 391, 591, 781, 782, 982, 1172]


def test_a_bare_epoch_with_the_examples_seen_in_brackets_places_each_batch():
    """pytorch-cifar100's `Training Epoch: 4 [20/59]\tLoss: 2.8998\tLR: 0.010000` and the
    MNIST example's `Train Epoch: 1 [640/60000 (1%)]\tLoss: 0.29`: the bracket is the place in
    the epoch. Unread, two batches that printed the same loss and rate (`[20/59]`, `[30/59]`
    both `Loss: 2.8998`) were taken for a line and its echo, and one point was lost."""
    text = ""
    for e in (1, 2):
        for seen, loss in ((0, 3.1), (10, 2.8998), (20, 2.8998), (30, 2.7)):
            text += f"Training Epoch: {e} [{seen}/59]\tLoss: {loss / e:.4f}\tLR: 0.010000\n"
        text += f"Test set: Epoch: {e}, Average loss: {0.05 / e:.4f}, Accuracy: 0.{30 + e}, "
        text += "Time consumed:3.12s\n\n"
    for e in (1, 2):
        for seen in (0, 640):
            text += f"Train Epoch: {e} [{seen}/60000 ({seen // 600}%)]\tLoss: {0.3 / e:.6f}\n"
    result = _read(text[: text.index("Train Epoch")])
    steps, values = _series(result, "Loss")
    assert steps == [0, 10, 20, 30, 59, 69, 79, 89]
    assert values[1:3] == [2.8998, 2.8998]
    assert _series(result, "Test/Average loss")[0] == [30, 89]
    mnist = _read(text[text.index("Train Epoch") :])
    assert _series(mnist, "Loss")[0] == [0, 640, 60000, 60640]
    _same_with_and_without_plans(text)


def test_minimind_epoch_of_all_then_batch_of_the_epochs():
    """minimind's `Epoch:[0/19](100/24681) loss:5.251 lr:0.00020000 epoch_Time:98.0min:`: the
    batch in parentheses went unread, and the 19 epochs of the run were taken as lines of one
    epoch (steps 0..18 where the batches ran 0..1800)."""
    text = "".join(
        f"Epoch:[{e}/2]({b}/24681) loss:{8 / (1 + e + b / 500):.3f} lr:0.00020000 "
        f"epoch_Time:{98 - b // 100}.0min:\n"
        for e in (0, 1)
        for b in (0, 100, 200)
    )
    result = _read(text)
    assert set(_roles(result)) == {"loss", "lr"}
    assert _series(result, "loss")[0] == [0, 100, 200, 24681, 24781, 24881]
    _same_with_and_without_plans(text)


def test_keras_tuner_trials_and_folds_are_runs_of_their_own():
    """KerasTuner prints `Search: Running Trial #2` before each trial's `fit`; a k-fold loop
    prints `===== FOLD 2 =====`. Read by the Keras style, which knew no trial header, every
    trial was a session of one run and the epoch going back a resume."""
    text = ""
    for trial in (1, 2, 3):
        text += f"\nSearch: Running Trial #{trial}\n\nValue  |Best Value So Far |Hyperparameter\n"
        text += f"{32 * trial}     |32                |units\n\n"
        for e in (1, 2):
            loss = 0.7 / (e + trial)
            text += (
                f"Epoch {e}/2\n391/391 - 6s - 15ms/step - accuracy: 0.{60 + e} - "
                f"loss: {loss:.4f} - val_accuracy: 0.{55 + e} - val_loss: {loss + 0.1:.4f}\n"
            )
        text += f"\nTrial {trial} Complete [00h 02m 07s]\nval_accuracy: 0.57\n"
    result = _read(text)
    frame = result.frame
    assert sorted(set(frame["run"])) == ["console#trial 1", "console#trial 2", "console#trial 3"]
    assert set(frame["segment"]) == {0}
    first = frame[(frame["run"] == "console#trial 1") & (frame["metric"] == "loss")]
    assert first["step"].tolist() == [1, 2]


def test_federated_rounds_count_and_an_evaluation_heading_keeps_the_record():
    """PFLlib: `-------------Round number: 3-------------`, then `Evaluate global model` and the
    round's `Averaged Train Loss: 2.30` lines. A round was no counter and the three-word heading
    ended the record, so the lines were read in order with the run's settings among them."""
    text = "Local batch size: 16\nGlobal rounds: 2000\n"
    for r in range(4):
        text += (
            f"\n-------------Round number: {r}-------------\n\nEvaluate global model\n"
            f"Averaged Train Loss: {2.3 - r / 10:.4f}\n"
            f"Averaged Test Accurancy: {0.1 + r / 20:.4f}\n"
            f"------------------------- time cost ------------------------- 14.04\n"
        )
    result = _read(text)
    roles = _roles(result)
    assert roles == {"Averaged Train Loss": "train_loss", "Averaged Test Accurancy": "val_score"}
    assert _series(result, "Averaged Train Loss")[0] == [0, 1, 2, 3]


def test_a_validation_heading_with_its_epoch_lends_it_to_the_results_under_it():
    """TransReID (and reid-strong-baseline, CLIP-ReID): `transreid.train INFO: Validation Results
    - Epoch: 2` then `mAP: 78.4%` and `CMC curve, Rank-1  :90.8%` on lines of their own; the
    heading ended the record and the results were dropped."""
    p = "2026-03-07 05:10:16 transreid.train INFO: "
    text = ""
    for e in (1, 2):
        for i in (60, 120, 180):
            loss = 6 - e / 2 - i / 1000
            text += f"{p}Epoch[{e}] Iter[{i}/186] Loss: {loss:.3f}, Acc: 0.117, Lr: 3.64e-04\n"
        text += (
            f"{p}Epoch {e} done. Time: 20s, Speed: 583.1[samples/s], ETA: 0h37m (110 epochs left)\n"
        )
    text += f"{p}Validation Results - Epoch: 2\n{p}mAP: 78.4%\n{p}CMC curve, Rank-1  :90.8%\n"
    result = _read(text)
    roles = _roles(result)
    assert roles["mAP"] == "val_score" and roles["Rank-1"] == "val_score"
    assert roles["Loss"] == "train_loss"
    assert _series(result, "mAP") == ([372], [78.4])


def test_a_counter_ended_by_a_full_stop():
    """zylo117's EfficientDet trainer: `Step: 100. Epoch: 0/500. Iteration: 101/103. Cls loss:
    0.51. Reg loss: 0.3. Total loss: 0.81`; the full stop after each counter hid them all, the
    step was read as a metric and the lines as uncounted."""
    text = "".join(
        f"Step: {e * 103 + i}. Epoch: {e}/500. Iteration: {i}/103. Cls loss: 0.5{i}. "
        f"Reg loss: 0.3{e}. Total loss: 0.8{i}\n"
        for e in range(2)
        for i in (10, 50, 100)
    )
    result = _read(text)
    roles = _roles(result)
    assert roles == {"Cls loss": "train_loss", "Reg loss": "train_loss", "Total loss": "train_loss"}
    assert _series(result, "Total loss")[0] == [10, 50, 100, 113, 153, 203]


def test_a_validation_bar_with_a_metrics_dict_in_its_postfix():
    """pytorch-widedeep's bars: `epoch 1: 100%|####| 153/153 [.., loss=0.783, metrics={'acc':
    0.6151}]` then `valid: 100%|####| 39/39 [.., loss=0.469, metrics={'acc': 0.6493}]`. The
    valid bar prints no counter, and the dict's words counted as prose on it: every
    validation point was dropped."""
    text = "".join(
        f"epoch {e}: 100%|██████████| 153/153 [00:03<00:00, 44.53it/s, loss=0.{80 - e}3, "
        f"metrics={{'acc': 0.61{e}}}]\n"
        f"valid: 100%|██████████| 39/39 [00:00<00:00, 116.60it/s, loss=0.4{e}9, "
        f"metrics={{'acc': 0.64{e}}}]\n"
        for e in range(1, 4)
    )
    result = _read(text)
    assert _series(result, "valid/loss") == ([1, 2, 3], [0.419, 0.429, 0.439])
    assert _series(result, "loss") == ([1, 2, 3], [0.793, 0.783, 0.773])


def test_the_pytorch_tutorials_unnamed_loss_print():
    """*NLP From Scratch*'s seq2seq and char-RNN loops print `13m 10s (- 184m 30s) (5000 6%)
    2.8535`: the times, the iteration and its share of the run, then the loss with no name; no
    key-value pair, so the log was refused."""
    text = "".join(
        f"{m}m {m % 60}s (- {200 - m}m 30s) ({it} {it // 750}%) {3 - it / 40000:.4f}\n"
        for m, it in ((13, 5000), (32, 10000), (52, 15000), (70, 20000))
    )
    result = _read(text)
    assert "pytorch tutorial" in result.detail
    assert _series(result, "loss") == ([5000, 10000, 15000, 20000], [2.875, 2.75, 2.625, 2.5])


def _cifar_bar(current: int, total: int, msg: str, tot_ms: int) -> str:
    """What kuangliu's pytorch-cifar `utils.progress_bar` writes for one update, byte for byte
    at its 80-column fallback: the bar, `Step` and `Tot` durations and the message, padding,
    backspaces to the bar's middle, the count, then a carriage return (a newline at the last)."""
    cur = int(65 * current / total)
    out = " [" + "=" * cur + ">" + "." * (65 - cur - 1) + "]"
    text = f"  Step: 55ms | Tot: {tot_ms // 1000}s{tot_ms % 1000}ms | {msg}"
    out += text + " " * max(0, 80 - 65 - len(text) - 3) + "\b" * (80 - 32 + 2)
    return out + f" {current + 1}/{total} " + ("\r" if current < total - 1 else "\n")


def _cifar_log() -> str:
    text = "==> Preparing data..\n==> Building model..\n"
    for e in range(3):
        text += f"\nEpoch: {e}\n"
        for batches, level in ((20, 2.0), (10, 1.8)):  # the training pass, then the test
            seen = correct = 0
            for b in range(batches):
                seen += 128
                correct += 40 + 20 * e
                loss = level / (e + 1) - b / 400
                msg = f"Loss: {loss:.3f} | Acc: {100 * correct / seen:.3f}% ({correct}/{seen})"
                text += _cifar_bar(b, batches, msg, 55 * (b + 1))
        text += "Saving..\n"
    return text


def test_kuangliu_pytorch_cifars_progress_bar():
    """kuangliu's pytorch-cifar draws each epoch's training pass and then its test pass with the
    same bar (`Loss: 2.338 | Acc: 7.422% (19/256)`, running averages), redrawn with carriage
    returns after backspacing over its middle. The log was refused (`Step: 55ms | Tot: 1s104ms`
    read as prose); read, the test pass would have joined the training curve. Each pass's last
    state is its epoch's point; a bar whose count starts again in the epoch is the test's."""
    text = _cifar_log()
    for form in (text, text.replace("\r", "\n")):  # as written, and with every redraw kept
        result = _read(form)
        assert "pytorch-cifar progress bar" in result.detail
        assert _roles(result) == {
            "Loss": "train_loss",
            "Acc": "train_score",
            "test/Loss": "val_loss",
            "test/Acc": "val_score",
        }
        steps, values = _series(result, "Loss")
        # each epoch's pass at its last batch: the mean over the pass
        assert values == [float(f"{2.0 / (e + 1) - 19 / 400:.3f}") for e in range(3)]
        test_loss = [float(f"{1.8 / (e + 1) - 9 / 400:.3f}") for e in range(3)]
        assert _series(result, "test/Loss") == (steps, test_loss)
        assert _series(result, "test/Acc")[1] == [31.25, 46.875, 62.5]
    _same_with_and_without_plans(text.replace("\b", "").replace("\r", "\n"))


def _darts_log(stamp: str) -> str:
    """DARTS' `train_search.py` through its logging format (`%(asctime)s %(message)s`, dates
    as `%m/%d %I:%M:%S %p`; the file handler's default `2019-03-25 10:10:10,123` in `stamp`)."""
    text = f"{stamp} args = Namespace(batch_size=64, learning_rate=0.025, report_freq=50)\n"
    text += f"{stamp} param size = 1.930842MB\n"
    for e in range(3):
        text += f"{stamp} epoch {e} lr {0.025 * (1 - e / 10):e}\n"
        text += f"{stamp} genotype = Genotype(normal=[('sep_conv_3x3', 0)], normal_concat=[2])\n"
        for split, level in (("train", 2.0), ("valid", 2.2)):
            for b in (0, 50, 100):
                loss, top1 = level / (e + 1) - b / 1000, 40 + 10 * e + b / 100
                text += f"{stamp} {split} {b:03d} {loss:e} {top1:f} {90 + e:f}\n"
            text += f"{stamp} {split}_acc {41 + 10 * e:f}\n"
    return text


@pytest.mark.parametrize("stamp", ["11/29 00:54:24 AM", "2026-11-29 00:54:24,013"])
def test_darts_logs_keyless_rows_under_an_epoch_line_with_its_rate(stamp):
    """DARTS (and PC-DARTS, P-DARTS, SGAS ...): `epoch 3 lr 2.5e-02`, then `train 050 1.87e-02
    99.57 100.0` (the batch, then running averages of the loss, top-1 and top-5), `train_acc`,
    and the same for `valid`. No key names the values, and the batch rows print no epoch: the
    log was refused. Each epoch's last running average is its point, the epoch lent by the line
    that prints it with the learning rate."""
    text = _darts_log(stamp)
    result = _read(text)
    assert "darts" in result.detail
    roles = _roles(result)
    assert roles["loss"] == "train_loss" and roles["valid/loss"] == "val_loss"
    assert roles["top1"] == "train_score" and roles["valid/top1"] == "val_score"
    assert roles["lr"] == "lr"
    assert _series(result, "loss") == ([0, 1, 2], [1.9, 0.9, 0.566667])
    assert _series(result, "valid/loss")[1] == [2.1, 1.0, 0.633333]
    assert _series(result, "lr") == ([0, 1, 2], [0.025, 0.0225, 0.02])
    _same_with_and_without_plans(text)


_CENTERNET_KEYS = ("loss", "hm_loss", "wh_loss", "off_loss")


def test_centernets_log_txt_prints_the_validation_under_the_training_names():
    """CenterNet's `log.txt`: `2019-04-20-10-20: epoch: 5 |loss 2.69 | hm_loss 1.85 | ... |
    time 1.51 | loss 3.08 | hm_loss 1.92 | ... | time 0.51 |`, the epoch's training averages
    and, every `val_intervals` epochs, the validation's under the same names on the same line.
    The repeats joined the training series (two points an epoch)."""
    text = ""
    for e in range(1, 7):
        text += f"2019-04-20-10-{e:02d}: epoch: {e} |"
        for k, key in enumerate((*_CENTERNET_KEYS, "time")):
            text += f"{key} {(4 - k) / e:8f} | "
        if e % 3 == 0:
            for k, key in enumerate((*_CENTERNET_KEYS, "time")):
                text += f"{key} {(4.5 - k) / e:8f} | "
        text += "\n"
    result = _read(text)
    roles = _roles(result)
    assert roles["loss"] == roles["hm_loss"] == "train_loss"
    assert roles["val/loss"] == roles["val/hm_loss"] == "val_loss"
    assert _series(result, "loss") == ([1, 2, 3, 4, 5, 6], [4.0, 2.0, 1.333333, 1.0, 0.8, 0.666667])
    assert _series(result, "val/loss") == ([3, 6], [1.5, 0.75])
    # a lone key printed twice, with nothing to say which split, keeps its name
    lone = _read("".join(f"epoch: {e} | loss {1 / e:.4f} | acc 0.5 | loss 2.0\n" for e in (1, 2)))
    assert set(_roles(lone)) == {"loss", "acc"}
    _same_with_and_without_plans(text)


def test_centernets_progress_line_with_its_phase_epoch_and_batch():
    """CenterNet's trainer with `--print_iter`: `ctdet/coco_dla| train: [1][0/61]|Tot: 0:00:23
    |ETA: 0:00:00 |loss 253.66 |hm_loss 252.24 |wh_loss 12.76 |off_loss 0.15 |Data
    0.789s(0.789s) |Net 23.530s` and `val: [5][12/2110]|..`. The counter after the phase went
    unread and the times counted as prose: the log was refused."""
    text = ""
    for e in (1, 2):
        for phase, total in (("train", 61), ("val", 20)):
            for b in (0, 30, total - 1):
                text += f"ctdet/coco_dla| {phase}: [{e}][{b}/{total}]|Tot: 0:00:2{b % 10} "
                text += "|ETA: 0:00:00 "
                for k, key in enumerate(_CENTERNET_KEYS):
                    text += f"|{key} {(4 - k) / e + b / 1000:.4f} "
                text += f"|Data 0.789s({0.7 + b / 1000:.3f}s) |Net {23.5 - b / 10:.3f}s \n"
    result = _read(text)
    roles = _roles(result)
    assert {m: roles[m] for m in _CENTERNET_KEYS} == dict.fromkeys(_CENTERNET_KEYS, "train_loss")
    assert roles["val/loss"] == "val_loss"
    assert _series(result, "loss")[0] == [0, 30, 60, 61, 91, 121]
    assert _series(result, "val/loss")[0] == [60, 60, 60, 121, 121, 121]
    _same_with_and_without_plans(text)


def test_the_pytorch_name_classification_tutorials_print():
    """*NLP From Scratch*'s name classifier prints `35000 35% (1m 4s) 2.1451 Minitsky / Polish ✗
    (Russian)`: the iteration and its share, the time, the loss, then a name and the guess (the
    log of a run whose loss went NaN at 35000 was refused)."""
    rows = [
        (5000, "2.4177", "Coelho / Portuguese ✓"),
        (10000, "2.5862", "Desro / Dutch ✗ (French)"),
        (15000, "1.1451", "Minitsky / Polish ✗ (Russian)"),
        (20000, "nan", "Nam / Russian ✓"),
    ]
    text = "".join(f"{i} {i // 1000}% (0m {i // 1000}s) {v} {guess}\n" for i, v, guess in rows)
    result = _read(text)
    assert "pytorch tutorial" in result.detail
    steps, values = _series(result, "loss")
    assert steps == [5000, 10000, 15000, 20000]
    assert values[:3] == [2.4177, 2.5862, 1.1451] and np.isnan(values[3])


def test_a_rate_unit_before_a_key_is_the_numbers():
    """tf-pose-estimation's `epoch=14.60 step=111100, 21.7206 examples/sec lr=0.000000,
    loss=383.56`: the rate's unit opened the next key, read as one metric `examples/sec lr`
    (role other) and no learning rate."""
    text = "".join(
        f"[2018-10-12 21:2{i}:25,087] [train] [INFO] epoch=14.{60 + i} step={111100 + 100 * i}, "
        f"21.72{i} examples/sec lr=0.000100, loss={383.5 - i:.2f}, loss_ll={63.8 - i:.4f}, q=100\n"
        for i in range(6)
    )
    result = _read(text)
    roles = _roles(result)
    assert roles["lr"] == "lr" and roles["loss"] == "train_loss"
    assert not any("examples" in m for m in roles)
    assert _series(result, "lr")[0] == [111100 + 100 * i for i in range(6)]
    _same_with_and_without_plans(text)


def test_a_step_number_glued_to_its_word_by_an_underscore():
    """pytorch-YOLOv4's `Train step_54720: loss : 2443.02,loss xy : 10.43,...`: the step went
    unread and the lines were placed in order (0..4); a key that only opens with the word
    (`step_time`) is no counter."""
    text = "".join(
        f"2020-07-02 02:1{i}:47,659 train.py[line:388] DEBUG: Train step_{54720 + 320 * i}: "
        f"loss : {2443.0 + i:.3f},loss xy : 10.43,step_time : 0.5{i},lr : 0.0001\n"
        for i in range(5)
    )
    result = _read(text)
    assert _series(result, "loss")[0] == [54720 + 320 * i for i in range(5)]
    assert "step_time" in _roles(result)
    _same_with_and_without_plans(text)


def test_a_bare_step_before_a_bar_and_torchtunes_epoch_step_description():
    """modded-nanogpt's `10 | loss 9.3750 | lr 3.000000e-04 | 13597.70ms` (no word names the
    step: refused) and torchtune's bar description `1|25|Loss: 1.2622:  26%|██▌ | 26/101 [..]`
    (read in line order, each step's redraw a point of its own)."""
    modded = "".join(
        f"{s} | loss {11.6 - s / 40:.4f} | lr 3.000000e-04 | {13597.7 + s:.2f}ms\n"
        for s in range(0, 60, 10)
    )
    result = _read(modded)
    assert _roles(result) == {"loss": "train_loss", "lr": "lr"}
    assert _series(result, "loss")[0] == [0, 10, 20, 30, 40, 50]
    torchtune = ""
    for step in range(25, 30):
        loss = 1.3 - step / 100
        for pos in (step, step + 1):  # the bar drawn at its old position, then its new one
            torchtune += f"1|{step}|Loss: {loss}:  {pos * 100 // 101}%|██▌       | {pos}/101 "
            torchtune += "[06:45<17:27, 13.96s/it]\n"
    steps, values = _series(_read(torchtune), "Loss")
    assert steps == [25, 26, 27, 28, 29] and values[0] == 1.05
    _same_with_and_without_plans(modded + torchtune)


def test_a_number_before_a_percent_sign_is_no_counter():
    """simpletransformers' `Current iteration:  71%|███ | 1322/1875 [09:51<04:06, 2.24it/s]
    Running loss: 0.607`: `iteration: 71` was read as the step out of the bar's percentage,
    so thirteen batches sat at steps 70 and 71 and the step going back read as a resume."""
    text = "".join(
        f"Current iteration:  {n * 100 // 1875}%|███████   | {n}/1875 [09:50<04:06,  2.25it/s]"
        f"Running loss: {0.5 + (n % 3) / 10:.6f}\n"
        for n in range(1321, 1334)
    )
    steps, values = _series(_read(text), "Running loss")
    assert len(values) == 13 and steps == sorted(steps) and len(set(steps)) == 13


def test_a_print_after_a_bars_bracket_is_read_at_the_bars_position():
    """simpletransformers prints `Running loss: 0.607` with `end=""` between the redraws of its
    bar over an epoch's iterations: the value lands right after the bar's bracket. It is the
    loss at the bar's position (iterations 1321-1333 of a window), not at the line order."""
    text = "".join(
        f"Current iteration:  {n * 100 // 1875}%|███████   | {n}/1875 [09:50<04:06,  2.25it/s]"
        f"Running loss: {0.5 + (n % 3) / 10:.6f}\n"
        for n in range(1321, 1334)
    )
    steps, values = _series(_read(text), "Running loss")
    assert steps == list(range(1321, 1334)) and values[:2] == [0.6, 0.7]


def test_a_ctime_stamp_is_no_metric():
    """A script's `print(time.ctime(), ...)`: `Sun Nov 29 00:57:11 2026 Epoch 3 ...`; the
    stamp's day was read as a metric `Sun Nov`."""
    text = "".join(
        f"Sun Nov 29 00:5{e}:11 2026 Epoch {e} train_loss: {1 / e:.4f} val_loss: {1.1 / e:.4f}\n"
        for e in range(1, 5)
    )
    result = _read(text)
    roles = _roles(result)
    assert roles == {"train_loss": "train_loss", "val_loss": "val_loss"}
    assert _series(result, "train_loss")[0] == [1, 2, 3, 4]


def test_an_epoch_heading_with_its_time_opens_the_epochs_lines():
    """bentrevett's pytorch-sentiment-analysis: `Epoch: 01 | Epoch Time: 0m 53s`, then the
    epoch's indented `Train Loss: 0.692 | Train Acc: 73.75%` and `Val. Loss: ..` lines. The
    heading's words (`Epoch`, `Epoch`, `Time`) read as prose that ends a record, so the lines
    under it had no epoch and were read in order."""
    text = ""
    for e in range(1, 4):
        text += (
            f"Epoch: {e:02d} | Epoch Time: 0m {40 + e}s\n"
            f"\tTrain Loss: {0.7 / e:.3f} | Train Acc: {70 + e}.75%\n"
            f"\t Val. Loss: {0.5 / e:.3f} |  Val. Acc: {80 + e}.94%\n"
        )
    result = _read(text)
    assert _series(result, "Train Loss")[0] == [1, 2, 3]
    roles = _roles(result)
    assert roles["Val/Loss"] == "val_loss" and roles["Train Acc"] == "train_score"


def test_a_split_heading_over_an_indented_block_names_every_line_of_it():
    """`Train results:` / `Val results:` over indented `    Loss : 0.68` and `    Accuracy :
    0.59` lines: the heading named only the line right under it, and the validation's accuracy,
    precision and recall joined the training series at the same steps."""
    text = ""
    for it in (53, 118, 183):
        text += f"Iter {it} (16.0 / 16.0):\nTrain results: \n"
        text += f"    Loss : {0.70 - it / 10000:.4f}\n    Accuracy : {0.5 + it / 1000:.4f}\n\n"
        text += "Val results: \n"
        text += f"    Loss : {0.68 - it / 10000:.4f}\n    Accuracy : {0.55 + it / 1000:.4f}\n\n\n"
    result = _read(text)
    roles = _roles(result)
    assert roles == {
        "Loss": "train_loss",
        "Accuracy": "train_score",
        "val/Loss": "val_loss",
        "val/Accuracy": "val_score",
    }
    assert _series(result, "val/Accuracy") == ([53, 118, 183], [0.603, 0.668, 0.733])


def test_epochs_counted_from_1_start_at_step_0_when_the_epoch_length_is_not_printed():
    """DeepSpeed-Chat prints `Epoch 1, Step 0, Loss: 0.9741` with no batches per epoch: the
    length is taken from the largest step logged, and epochs counted from 1 (no epoch 0 in the
    log) put the run's first batch at step 0, not one epoch in (a log that seemed to start
    mid-run had its stuck loss set aside as a window)."""

    def log(epochs):
        return "".join(
            f"Epoch {e}, Step {s}, Loss: {1.0 + 0.01 * s:.4f}:   1%|▏  | 2/144 [00:02<02:20]\n"
            for e in epochs
            for s in range(8)
        )

    steps, values = _series(_read(log((1, 2))), "Loss")
    assert steps == list(range(16)) and values[:2] == [1.0, 1.01]
    assert _series(_read(log((0, 1))), "Loss")[0] == list(range(16))
    assert _series(_read(log((5, 6))), "Loss")[0][0] == 32  # a window from epoch 5


def test_a_line_whose_only_value_is_nan_is_read():
    """`Validation loss: nan` on a line of its own holds no digit, and lines without one were
    passed over as prose: a validation loss gone non-finite (the case the nan check reports
    as validation-only) was lost, while `Validation loss: 1.5` was read."""
    text = (
        "Epoch 1 ; Iter 50/213 ; loss 2.0 ;\nEpoch 1 ; Iter 100/213 ; loss 1.9 ;\n"
        "Validation loss: 1.7\n"
        "Epoch 2 ; Iter 50/213 ; loss 1.8 ;\nEpoch 2 ; Iter 100/213 ; loss 1.7 ;\n"
        "Validation loss: nan\n"
        "Epoch 3 ; Iter 50/213 ; loss 1.6 ;\nEpoch 3 ; Iter 100/213 ; loss 1.5 ;\n"
        "Validation loss: inf\n"
    )
    steps, values = _series(_read(text), "Validation loss")
    assert steps == [100, 313, 526] and values[0] == 1.7
    assert np.isnan(values[1]) and values[2] == np.inf


def test_pytorchs_reduce_lr_on_plateau_message_is_no_metric():
    """`Epoch 00003: reducing learning rate of group 0 to 1.0000e-04.` was read as a learning
    rate `learning rate of group` at 0 (the group's index) and a metric `to`."""
    text = (
        "Epoch 1 train loss: 1.5 val loss: 1.6\nEpoch 2 train loss: 1.4 val loss: 1.5\n"
        "Epoch 00003: reducing learning rate of group 0 to 1.0000e-04.\n"
        "Epoch 3 train loss: 1.3 val loss: 1.45\n"
    )
    assert set(_read(text).frame["metric"]) == {"train loss", "val loss"}


def test_keras_2_1_verbose_2_lines_open_with_a_space():
    """Keras 2.1's `fit(verbose=2)` prints ` - 498s - loss: 1.5765 - val_loss: 1.7122` under
    `Epoch 38/20000`: the leading space kept the keras style off, and the generic fallback read
    the epochs at the line order (a window from epoch 37 read as a run's start)."""
    text = "".join(
        f"Epoch {e}/20000\nEpoch {e:05d}: val_loss did not improve\n"
        f" - 498s - loss: {1.6 - 0.01 * e:.4f} - val_loss: {1.7 + 0.01 * e:.4f}\n"
        for e in range(37, 43)
    )
    result = _read(text)
    assert "keras verbose 2" in result.source["detail"]
    assert _series(result, "loss")[0] == list(range(37, 43))


def test_a_multi_node_launchers_host_tags_keep_one_hosts_lines():
    """DeepSpeed's pdsh runner prefixes each line with its host, and every node prints the same
    Trainer dict: four hosts' tags hid every dict (the file was refused), and read together
    each log would count four times."""
    hosts = ("10.96.202.43", "10.96.202.17", "10.96.202.16", "10.96.202.40")
    text = "".join(
        f"{host}: {{'loss': {loss}, 'learning_rate': 5e-05, 'epoch': {epoch}}}\n"
        for loss, epoch in ((1.8673, 0.01), (0.7744, 0.02), (0.6309, 0.03))
        for host in hosts
    )
    steps, values = _series(_read(text), "loss")
    assert values == [1.8673, 0.7744, 0.6309] and steps == [0, 1, 2]


def test_host_tags_keep_the_busiest_hosts_lines_and_one_address_is_a_host():
    """The HF Trainer logs on its main process only: under DeepSpeed's launcher its dicts come
    from one host, another prints a warning now and then. The first host seen printed only the
    warning (its lines were kept and every dict dropped), or, seen once, hid the tags (the file
    was refused)."""
    dicts = [
        f"192.168.50.170: {{'loss': {1.3 - i / 100:.4f}, 'learning_rate': {i * 1e-6:.3g}, "
        f"'epoch': 0.0}}\n"
        for i in range(1, 15)
    ]
    warning = "192.168.50.171:   total_norm_cuda = get_accelerator().FloatTensor([1.0])\n"
    for text in (
        warning + "".join(dicts),
        warning + "".join(dicts[:5]) + warning + "".join(dicts[5:]),
    ):
        steps, values = _series(_read(text), "loss")
        assert steps == list(range(14)) and values[0] == 1.29


def test_near_miss_a_scripts_own_counter_before_a_colon_is_no_host():
    """`iter100: loss 2.1` lines name a different counter on each record, whose lines never come
    back after the next one's: no host tags to take off."""
    text = "".join(
        f"iter{i}: loss {2.0 - i / 1000:.3f}\niter{i}: acc {i / 1000:.3f}\n"
        for i in range(100, 600, 100)
    )
    from lossforensics.ingest.console import other_hosts

    assert other_hosts(text) is None
    # lightweight-human-pose's accumulator: `stage1_pafs_loss:     38.92` under each `Iter: 100`,
    # names that come back every record (an underscore and a bare number: metrics, no host)
    poses = "".join(
        f"Iter: {i}\nstage1_pafs_loss:     {38.9 - i / 100:.4f}\n"
        f"stage2_pafs_loss:     {39.2 - i / 100:.4f}\n"
        for i in range(100, 600, 100)
    )
    assert other_hosts(poses) is None
    assert _series(_read(poses), "stage1_pafs_loss")[0] == list(range(100, 600, 100))


def test_darknets_classifier_lines_with_their_epoch():
    """`./darknet classifier train` prints the epoch after the iteration, `40245, 4.021:
    6.907692, 6.910023 avg, 0.081346 rate, ...`: the detector's pattern (`40245: ...`) refused
    the file."""
    text = "".join(
        f"{i}, {i * 128 / 1281167:.3f}: {6.9077 + (i % 3) / 1000:.6f}, 6.910023 avg, "
        f"0.081346 rate, 0.385639 seconds, {i * 128} images\n"
        for i in range(40245, 40255)
    )
    result = _read(text)
    assert "darknet" in result.source["detail"]
    steps, values = _series(result, "loss")
    assert steps == list(range(40245, 40255)) and values[0] == 6.9077
    assert set(result.frame["metric"]) == {"loss", "avg loss", "lr"}


def test_a_plural_iterations_counter_is_the_step():
    """`iterations:57, train acc:0.391, train loss:109.953, ...` (an ESPnet-style custom loop):
    the plural was read as a metric and the steps became the line order, losing the gap
    between the pasted stretches (11 -> 57)."""
    text = "".join(
        f"iterations:{i}, train acc:0.3, train loss:{100 - i:.3f}, train loss ctc:{90 - i}.0,\n"
        for i in (*range(1, 5), *range(57, 61))
    )
    result = _read(text)
    assert _series(result, "train loss")[0] == [1, 2, 3, 4, 57, 58, 59, 60]
    assert "iterations" not in set(result.frame["metric"])


def test_hf_dicts_an_evaluation_before_every_train_log_keeps_its_place():
    """A pasted window of Trainer dicts opening on an evaluation: it sat at the first train
    log's place, and the evaluation after that train log, at the same place, overwrote it (the
    validation minimum, 1.018, was lost)."""
    text = (
        "{'eval_test_loss': 1.0181, 'epoch': 277.78}\n"
        "{'loss': 0.0408, 'learning_rate': 4e-05, 'epoch': 305.56}\n"
        "{'eval_test_loss': 1.0402, 'epoch': 305.56}\n"
        "{'loss': 0.0348, 'learning_rate': 3e-05, 'epoch': 333.33}\n"
        "{'eval_test_loss': 1.1167, 'epoch': 333.33}\n"
    )
    result = _read(text)
    assert _series(result, "eval_test_loss") == ([0, 1, 2], [1.0181, 1.0402, 1.1167])
    assert _series(result, "loss")[0] == [1, 2]


def test_hf_dicts_that_carry_their_own_step_are_at_that_step():
    """TFTrainer prints `{'loss': 18.64, 'learning_rate': 5e-05, 'epoch': 0.09, 'step': 10}`:
    the dict's own step was kept as a metric and the axis was the line order."""
    text = "".join(
        f"{{'loss': {20 - s / 10:.2f}, 'learning_rate': 5e-05, 'epoch': {s / 110:.2f}, "
        f"'step': {s}}}\n"
        for s in range(10, 60, 10)
    )
    result = _read(text)
    assert _series(result, "loss")[0] == [10, 20, 30, 40, 50]
    assert "step" not in set(result.frame["metric"])


def test_catboost_lines_whose_tabs_were_pasted_as_spaces():
    """CatBoost's `34:\\tlearn: ..\\ttest: ..` pasted into an issue comes back with spaces: the
    fallback read it at the line order (`best` a metric), losing the iterations."""
    text = "".join(
        f"{i}:     learn: {0.95 - i / 1e4:.7f}        test: {0.82 + i / 1e4:.7f} best: "
        f"0.8356368 (1)     total: 17.5s    remaining: 1h 39m 38s\n"
        for i in range(34, 40)
    )
    result = _read(text)
    assert "catboost" in result.source["detail"]
    assert _series(result, "learn")[0] == list(range(34, 40))
    assert set(result.frame["metric"]) == {"learn", "test"}


def test_word_language_models_batches_lasagnes_epoch_of_and_total_step_are_counters():
    """PyTorch's word_language_model prints `| epoch   6 |   200/ 2983 batches | ... | loss
    4.95 |` (the batch before the word), Lasagne's examples `Epoch 3 of 500 took 1.234s` (an
    `of` metric at 500), InsightFace_TF `epoch 0, total_step 22050, total loss is 48.44`: each
    was read at the line order or beside a junk metric."""
    wlm = "".join(
        f"| epoch   6 | {b:5d}/ 2983 batches | lr 5.00 | ms/batch 32.47 | loss  {5 - b / 1e4:.2f}"
        f" | ppl   140.84\n"
        for b in range(200, 1200, 200)
    )
    steps = _series(_read(wlm), "loss")[0]
    assert steps == [(6 - 1) * 2983 + b for b in range(200, 1200, 200)]  # epochs from 1
    lasagne = "".join(
        f"Epoch {e} of 500 took 1.234s\n  training loss:\t\t{2.3 - e / 100:.6f}\n"
        f"  validation loss:\t\t{2.3 - e / 200:.6f}\n"
        for e in range(1, 6)
    )
    result = _read(lasagne)
    assert _series(result, "training loss")[0] == [1, 2, 3, 4, 5]
    assert "of" not in set(result.frame["metric"])
    face = "".join(
        f"epoch 0, total_step {s}, total loss is {48 - s / 1e4:.2f} , training accuracy is 0.0\n"
        for s in range(22050, 22300, 50)
    )
    assert _series(_read(face), "total loss")[0] == list(range(22050, 22300, 50))


def test_keras_gans_leading_iteration_before_its_groups_is_the_step():
    """The Keras-GAN implementations print `13882 [D loss: 7.97 | D Accuracy: 50.0] [G loss:
    1.2e-07]`: the leading iteration was no counter, so a run whose losses froze printed the
    same record at every line, each taken for an echo of the one before, and the file was
    refused; the frozen losses are what the thread is about."""
    frozen = "".join(
        f"{i} [D loss: 7.971192359924316 | D Accuracy: 50.0] [G loss: 1.192093321833454e-07]\n"
        for i in range(13882, 13890)
    )
    steps, values = _series(_read(frozen), "D loss")
    assert steps == list(range(13882, 13890)) and set(values) == {7.971192}


def test_a_bars_postfix_written_as_key_value_words():
    """WS-DAN's `set_postfix_str`: `Epoch 85/300: 100%|###| 8144/8144 [1:24:14<00:00, 1.61
    batches/s, Loss 6.2739, Raw Acc (0.39, 2.49), Val Loss 44.7789, Val Acc (0.52, 2.70)]` was
    refused (a postfix pair needed `=`); the loss frozen at 6.2739 is what the thread is about.
    A tuple is no value."""
    text = "".join(
        f"Epoch {e}/300: 100%|##########| 8144/8144 [1:24:14<00:00,  1.61 batches/s, "
        f"Loss 6.2739, Raw Acc (0.39, 2.49), Val Loss {44.7 + e / 1000:.4f}, "
        "Val Acc (0.52, 2.70)]\n"
        for e in range(85, 90)
    )
    result = _read(text)
    assert set(result.frame["metric"]) == {"Loss", "Val Loss"}
    steps, values = _series(result, "Loss")
    assert steps == list(range(85, 90)) and set(values) == {6.2739}


def test_keys_quoted_among_bare_ones_are_keys_but_a_printed_config_dict_is_not_read():
    """PaddleOCR 1.x quotes the keys of its `outs` dict among the bare ones of its line:
    `epoch: 0, iter: 550, lr: 0.001000, 'loss': 14040.8, 'acc': 0.0, time: 1.228`. The loss is
    read with the others; the config dict printed above the run (braces, every key quoted) is
    not a record."""
    text = "{'epoch_num': 300, 'batch_size': 256, 'lr': 0.001}\n"
    for i, it in enumerate(range(10, 130, 10)):
        text += (
            f"2020-11-10 17:29:{i:02d},549-INFO: epoch: 0, iter: {it}, lr: 0.001000, "
            f"'loss': {14040.8 - 100 * i:.1f}, 'acc': 0.0, time: 1.228\n"
        )
    result = _read(text)
    roles = _roles(result)
    assert roles["loss"] == "train_loss" and roles["acc"] == "train_score"
    assert "batch_size" not in roles and "epoch_num" not in roles
    steps, values = _series(result, "loss")
    assert steps == list(range(10, 130, 10)) and values[0] == 14040.8


def test_a_key_printed_with_its_tensors_item_call_is_the_tensors_name():
    """Python's `f"{train_loss.item()=}"` prints `train_loss.item()=2.295`: the call's
    parentheses ended no key, and the file was refused."""
    text = "".join(f"train_loss.item()={2.3 - i / 100:.16f}\n" for i in range(12))
    result = _read(text)
    assert _roles(result) == {"train_loss": "train_loss"}
    assert len(_series(result, "train_loss")[0]) == 12


def test_a_tensorflow_tensor_printed_as_a_value_is_read_as_its_number():
    """TensorFlow 2's custom loops print the tensor: `step 100: mean loss = tf.Tensor(0.125,
    shape=(), dtype=float32)`. The brackets of its shape ended no value: the file was refused."""
    text = "Start of epoch 0\n" + "".join(
        f"step {s}: mean loss = tf.Tensor({0.35 - s / 5000:.8f}, shape=(), dtype=float32)\n"
        for s in range(0, 1000, 100)
    )
    steps, values = _series(_read(text), "mean loss")
    assert steps == list(range(0, 1000, 100)) and values[0] == 0.35


def test_old_fairseq_epoch_summaries_give_their_lr_and_gradient_norm_roles():
    """fairseq-py 0.x prints only `| epoch 001 | train loss 740.61 | .. | lr 0.33 | clip 100% |
    gnorm 918.19` and its validation: with the training loss read from the same line, the lr and
    gnorm were left as `summary/*` with no role, and over_clipping and the LR checks said no
    gradient norm and no learning rate were logged."""
    text = ""
    for e in range(1, 7):
        text += (
            f"| epoch {e:03d} | train loss {7.0 - e / 2:.2f} | train ppl 111.00 | s/checkpoint 61 "
            f"| words/s   1288 | bsz    64 | lr 0.330000 | clip 100% | gnorm {0.9 - e / 20:.4f}\n"
            f"| epoch {e:03d} | valid on 'valid' subset | valid loss {7.1 - e / 3:.2f} "
            "| valid ppl 1111.00\n"
        )
    roles = _roles(_read(text))
    assert roles["summary/gnorm"] == "grad_norm" and roles["summary/lr"] == "lr"
    assert roles["train loss"] == "train_loss" and roles["summary/bsz"] == "other"


def test_yolov5_rows_cut_after_their_total_loss_are_read():
    """YOLOv5 and YOLOv7 rows pasted from a narrow terminal stop after the total loss, under the
    header printed again above each row: `36/299  5.12G  0.2173  0.0001538  0  0.2174`. Without
    the label count and image size after them no style knew the rows, and the file was refused."""
    text = "".join(
        f"     Epoch   gpu_mem       box       obj       cls     total\n"
        f"    {e}/299     5.12G    {0.2173 + e / 1e4:.4f} 0.0001538         0    "
        f"{0.2174 + e / 1e4:.4f}\n"
        for e in range(36, 46)
    )
    result = _read(text)
    assert "yolov5" in result.detail
    steps, totals = _series(result, "total")
    assert steps == list(range(36, 46)) and totals[0] == 0.221
    assert _roles(result)["box"] == "train_loss"
