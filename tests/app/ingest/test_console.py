"""The console reader: framework-written fixtures, the real console logs, the traps of pasted
text (noise, ANSI codes, carriage returns), and fuzzed text as a typed error."""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lossforensics.classifiers.errors import InputError, UnknownFormatError
from lossforensics.discover import discover_runs
from lossforensics.ingest import detect_format, load_run
from lossforensics.ingest.console import STYLES, read_stream
from lossforensics.ingest.console._engine import Parser, to_points
from lossforensics.ingest.console._plan import skeletons
from lossforensics.ingest.console._prefix import strip_prefix
from lossforensics.ingest.console._text import _states, clean

from tests.app.ingest._console_text import roles_of

FIXTURES = Path(__file__).parent / "console_fixtures"
_REAL_MORE = Path(__file__).resolve().parents[4] / "shared" / "real_runs_more"


def _series(result, metric):
    f = result.frame
    part = f[f["metric"] == metric].sort_values("seq")
    return part["step"].tolist(), part["value"].round(6).tolist()


@pytest.mark.parametrize(
    ("name", "style", "loss", "points", "first", "last"),
    [
        ("keras_verbose1.log", "keras verbose 1", "loss", 4, 0.7718, 0.7361),
        ("keras_verbose2.log", "keras verbose 2", "loss", 4, 0.7718, 0.7361),
        ("hf_trainer.log", "hf trainer printed dicts", "loss", 8, 0.6932, None),
        ("lightning.log", "progress bar (tqdm / lightning)", "train_loss", 3, 1.25, 0.0534),
        ("tqdm.log", "progress bar (tqdm / lightning)", "loss", 3, 1.3981, 0.6418),
        ("detectron2_real.log", "detectron2", "total_loss", 15, 1.986, 0.3553),  # real, public
        ("yolov5_real.log", "yolov5", "total", 6, 0.1679, 0.1598),  # real, public
        ("torchvision_metric_logger_real.log", "pytorch meters", "loss", 12, 8.2773, 2.1025),
    ],
)
def test_framework_output_is_read_in_its_style(name, style, loss, points, first, last):
    result = load_run(FIXTURES / name)
    assert result.format == "console"
    assert result.source["detail"].startswith(f"console log, {style};")
    _, values = _series(result, loss)
    assert len(values) == points and values[0] == pytest.approx(first)
    if last is not None:
        assert values[-1] == pytest.approx(last)


def test_yolov5_results_txt_gives_the_validation_losses_and_scores():
    """results.txt rows carry the epoch's validation results after the training losses; the
    last column ends its line."""
    result = load_run(FIXTURES / "yolov5_results_real.txt")
    assert result.source["detail"].startswith("console log, yolov5;")
    roles = dict(zip(result.frame["metric"], result.frame["role"], strict=True))
    assert roles["val/box_loss"] == roles["val/obj_loss"] == roles["val/cls_loss"] == "val_loss"
    assert roles["metrics/mAP_0.5"] == "val_score" and roles["total"] == "train_loss"
    steps, values = _series(result, "val/box_loss")
    assert steps[:2] == [0, 1] and len(values) == 21
    assert values[14:17] == [0.05159, 0.09115, 0.05357]  # the epoch-15 spike, as written
    assert _series(result, "val/cls_loss")[1] == [0.0] * 21
    # the validation loss YOLOv5 optimises is the sum of its parts, read as `val/loss`
    total = _series(result, "val/loss")
    parts = [_series(result, f"val/{p}_loss")[1] for p in ("box", "obj", "cls")]
    assert total[0] == steps
    assert total[1] == pytest.approx([sum(v) for v in zip(*parts, strict=True)])
    assert roles["val/loss"] == "val_loss"
    assert any("val/loss is read as the sum" in w.message for w in result.warnings)


def test_pointnet_evaluation_lines_belong_to_the_epoch_above_them():
    """PointNet prints an epoch's header, its training files' losses, then its evaluation, 17
    lines below the header: a record spread over lines goes on while its lines keep coming."""
    result = load_run(FIXTURES / "pointnet_modelnet_real.log")
    assert _series(result, "mean loss")[0] == list(range(10))  # 5 training files an epoch
    assert _series(result, "eval mean loss") == ([4, 9], [1.734979, 1.171131])
    roles = dict(zip(result.frame["metric"], result.frame["role"], strict=True))
    assert roles["eval mean loss"] == "val_loss"


def test_a_heading_that_ends_in_a_colon_does_not_end_the_record():
    """`Train class-wise accuracy:` introduces the lines under it; a message of three words or
    more would end the record, and the evaluation below it would have no epoch."""
    result = load_run(FIXTURES / "pointnet_classwise_real.log")
    assert _series(result, "eval mean loss") == ([0, 1, 2], [3.300015, 2.093375, 3.282964])


def test_a_class_number_is_a_word_of_its_metrics_name():
    """`eval class 0 accuracy: 0.25 (183/726)` is class 0's accuracy, not the overall one
    logged twice an epoch (which spread each epoch over two steps)."""
    result = load_run(FIXTURES / "pointnet_classwise_real.log")
    assert _series(result, "eval class 0 accuracy")[1] == [0.252066, 0.447658, 0.34022]
    assert "eval/accuracy" not in set(result.frame["metric"])


def test_a_counter_word_may_say_it_is_a_number():
    text = "".join(
        f"## Epoch no. = {e}\n- Train Loss: {1 / e:.4f}\n- Validation Loss: {1.1 / e:.4f}\n\n"
        for e in (1, 2, 3)
    )
    text = "## Best: 0.3667 (Epoch 3)\n\n" + text
    result = _read(text)
    assert _series(result, "Validation Loss") == ([1, 2, 3], [1.1, 0.55, 0.3667])
    assert "Epoch no." not in set(result.frame["metric"])


def test_a_bracketed_count_opening_a_line_is_its_counter():
    """`[100/300000] Train loss: ..` (deep-text-recognition-benchmark) is the iteration;
    `[1/5][50/1583]\tLoss_D: ..` (PyTorch's DCGAN example) the epoch and its batch."""
    ocr = "".join(
        f"[{i}/1000] Train loss: {200 / i:.5f}, Valid loss: {240 / i:.5f}, Elapsed_time: 1.0\n"
        f"Current_accuracy : 0.000, Current_norm_ED  : 0.01\n"
        for i in (100, 200, 300)
    )
    result = _read(ocr)
    assert _series(result, "Valid loss") == ([100, 200, 300], [2.4, 1.2, 0.8])
    gan = "".join(
        f"[{e}/5][{b}/1583]\tLoss_D: {1 / (1 + e + b / 1583):.4f}\tLoss_G: 3.0\n"
        for e in (0, 1)
        for b in (0, 50, 100)
    )
    steps, _ = _series(_read(gan), "Loss_D")
    assert steps == [0, 50, 100, 1583, 1633, 1683]


def test_a_qualifier_in_brackets_may_follow_any_word_of_a_key():
    """`t2m RMSE(norm)` and `z_500 RMSE(norm)` are two targets' errors, not one `RMSE(norm)`
    logged twice (a qualifier was read after a key's first word only)."""
    text = "".join(
        f"[Train] epoch:{e}, lr:0.001, total:{1 / e:.4f}\n"
        f"[Test] t2m RMSE(norm): {0.5 / e:.4f}\n[Test] z_500 RMSE(norm): {0.7 / e:.4f}\n"
        for e in (1, 2, 3)
    )
    result = _read(text)
    assert _series(result, "Test/t2m RMSE(norm)") == ([1, 2, 3], [0.5, 0.25, 0.1667])
    assert _series(result, "Test/z_500 RMSE(norm)")[0] == [1, 2, 3]


def test_keras_verbose_1_and_2_give_the_same_series():
    one, two = load_run(FIXTURES / "keras_verbose1.log"), load_run(FIXTURES / "keras_verbose2.log")
    for metric in ("loss", "val_loss"):
        assert _series(one, metric) == _series(two, metric)
    roles = dict(zip(one.frame["metric"], one.frame["role"], strict=True))
    assert roles["val_loss"] == "val_loss" and roles["loss"] == "train_loss"


def test_lightning_val_loss_sits_at_its_epoch_and_the_last_redraw_adds_no_point():
    """Lightning resets its bar for the next epoch on the same line, and redraws the last bar
    after validation: each epoch's bar state before the reset is kept, carried values are not."""
    result = load_run(FIXTURES / "lightning.log")
    assert _series(result, "train_loss") == ([0, 1, 2], [1.25, 0.253, 0.0534])
    assert _series(result, "val_loss") == ([0, 1, 2], [0.947, 0.188, 0.039])


def test_a_bar_whose_loss_never_changes_keeps_its_redraws():
    """A stuck model's Lightning bar shows `train_loss=4.600` at every redraw (lines of the bar
    as pasted in an issue): each was dropped as a carried value, and the log was refused for
    want of a loss series; the stuck loss is the finding. A loss that changes keeps dropping
    its carries."""
    bar = "Epoch 0:  {p}%|#  | {n}/704 [00:30<04:54,  2.17it/s, v_num=11, train_loss={v}]\n"
    stuck = "".join(bar.format(p=n * 100 // 704, n=n, v="4.600") for n in range(60, 90))
    assert _series(_read(stuck), "train_loss")[1] == [4.6] * 30
    moving = "".join(
        bar.format(p=n * 100 // 704, n=n, v=f"{4.6 - (n // 5) / 100:.3f}") for n in range(60, 90)
    )
    assert len(_series(_read(moving), "train_loss")[1]) == 6


def test_a_learning_rate_in_every_bar_keeps_its_flat_stretches():
    """A script's tqdm bar sets `LR=1.00e-04` at every epoch until its schedule steps it down
    (a segmentation run's log): each bar's LR is a reading, so a flat stretch keeps its points
    and the LR check has the schedule's course, not two points. The loss beside it that
    repeats a printed value still drops that repeat as carried over."""
    bar = "Train Epoch {e}: 100%|##########| 30/30 [00:04<00:00,  7.23it/s, Loss={l}, LR={lr}]\n"
    losses = [f"{0.5 - e / 100:.4f}" for e in range(12)]
    losses[6] = losses[5]  # a repeat of the loss's value: dropped as carried over
    text = "".join(
        bar.format(e=e, l=losses[e], lr="1.00e-04" if e < 8 else "1.00e-05") for e in range(12)
    )
    result = _read(text)
    assert _series(result, "LR") == (list(range(12)), [1e-4] * 8 + [1e-5] * 4)
    assert 6 not in _series(result, "Loss")[0] and len(_series(result, "Loss")[0]) == 11


def test_printed_dicts_pasted_with_typographic_quotes():
    """The HF Trainer's dicts pasted through an editor that curls the quotes (`{‘loss’: 1.453,
    ‘grad_norm’: 2.47, ‘learning_rate’: 4.68e-05, ‘epoch’: 0.19}`, an issue's paste): refused."""
    text = "".join(
        f"{{‘loss’: {1.45 + e / 100:.3f}, ‘grad_norm’: 2.47, ‘learning_rate’: 4e-05, "
        f"‘epoch’: {0.19 * e:.2f}}}\n"
        for e in range(1, 7)
    )
    result = _read(text)
    assert "hf trainer" in result.detail
    assert _series(result, "loss")[1] == [1.46, 1.47, 1.48, 1.49, 1.5, 1.51]
    # double typographic quotes alike
    assert len(_series(_read(text.replace("‘", "“").replace("’", "”")), "loss")[1]) == 6


def test_printed_dicts_equal_to_the_one_before_are_each_a_log():
    """fp16 overflow: the scaler skips the step, the rate and epoch stay, and the HF Trainer
    logs `{'loss': 0.0, 'grad_norm': nan, 'learning_rate': 4.55e-06, 'epoch': 0.66}` again and
    again. Taken for a logger's echo, twelve such logs were read as one point."""
    text = "{'loss': 1.4596, 'grad_norm': 0.8, 'learning_rate': 4.55e-06, 'epoch': 0.66}\n"
    text += "{'loss': 0.0, 'grad_norm': nan, 'learning_rate': 4.55e-06, 'epoch': 0.66}\n" * 12
    result = _read(text)
    assert _series(result, "loss")[1] == [1.4596] + [0.0] * 12
    assert len(_series(result, "grad_norm")[1]) == 13


def test_a_lightning_bar_as_a_notebook_prints_it_without_its_glyphs():
    """Colab's text output of a Lightning bar drops the bar's glyphs and pipes: `Epoch 3: 100%
    1702/1702 [13:25<00:00, 2.11it/s, loss=0.158, v_num=0, val_loss=0.201]`. No style knew it
    and a multi-epoch paste was refused."""
    text = "".join(
        f"Epoch {e}: 100% 1702/1702 [13:25<00:00,  2.11it/s, loss={0.5 / (e + 1):.3f}, v_num=0, "
        f"val_loss={0.6 / (e + 1):.3f}]\n"
        for e in range(5)
    )
    result = _read(text)
    assert "progress bar" in result.detail
    assert _series(result, "loss") == ([0, 1, 2, 3, 4], [0.5, 0.25, 0.167, 0.125, 0.1])
    assert set(result.frame["metric"]) == {"loss", "val_loss"}


def test_hf_eval_dicts_sit_at_the_train_log_before_them():
    result = load_run(FIXTURES / "hf_trainer.log")
    steps, values = _series(result, "eval_loss")
    train_steps, _ = _series(result, "loss")
    assert len(values) == 2 and set(steps) <= set(train_steps)


REAL = {  # entry: (metric, points, first, last)
    "textlog_vgg16_skin_resume_overfit": ("TrainLoss", 35, 1.8695, None),
    "textlog_unet_rooftop_underfit": ("Loss", 200, 0.6924, 0.5025),
    "textlog_t5_bleu_plateau_train_to_zero": ("Batch loss", 7760, 12.1336, 0.0004),
    "textlog_dsfd_running_mean_healthy": ("Loss", 4618, 26.3755, 4.9311),
    "textlog_mxnet_ssd_nan_restarts_resume": ("Train-SmoothL1", 776, 40.25034, None),
}


@pytest.mark.parametrize("entry", sorted(REAL))
def test_real_console_logs_give_the_right_loss_series(real_runs_more, entry):
    metric, points, first, last = REAL[entry]
    result = load_run(real_runs_more / entry)
    assert result.format == "console"
    _, values = _series(result, metric)
    assert len(values) == points and values[0] == pytest.approx(first)
    if last is not None:
        assert values[-1] == pytest.approx(last)


def test_free_text_named_csv_is_console_with_train_and_val(real_runs_more):
    folder = real_runs_more / "textlog_lane_seg_loss_redefined_epoch3"
    assert detect_format(folder / "train_log.csv") == "console"
    result = load_run(folder / "val_log.csv")
    roles = dict(zip(result.frame["metric"], result.frame["role"], strict=True))
    assert roles["mask loss"] == "val_loss"  # the file is named after its split
    assert _series(result, "mask loss")[1][0] == pytest.approx(0.9941)


def test_resumed_session_is_kept_in_order_and_said(real_runs_more):
    result = load_run(real_runs_more / "textlog_vgg16_skin_resume_overfit")
    steps, _ = _series(result, "TrainLoss")
    assert steps[:3] == [1, 2, 3] and steps[25] == 21  # 25 epochs, then resumed at epoch 21
    assert any("several sessions" in w.message for w in result.warnings)


def test_prose_is_refused_with_what_was_looked_at(tmp_path):
    path = tmp_path / "notes.txt"
    path.write_text("We trained for 3 epochs.\nThe loss went down to 0.5 in the end.\n" * 5)
    with pytest.raises(UnknownFormatError, match="no reader recognises") as err:
        load_run(path)
    assert "as console text: no training metrics recognised in 10 line(s)" in err.value.message
    with pytest.raises(UnknownFormatError, match="no training metrics recognised in 10 line"):
        read_stream(io.BytesIO(path.read_bytes()), name="notes.txt")


def test_a_log_that_names_its_objective_total_reads_it_as_the_loss(tmp_path):
    """A script printing `[epoch: 79/200, iter: 25/448] total: 1.02` names no loss but its
    objective: read as the training loss, as every other reader's frame reads a bare total."""
    lines = [
        f"[epoch: {e}/200, iter: {i}/448] total: {1.0 - 0.01 * e + 0.001 * i / 25:.6f}"
        for e in range(79, 82)
        for i in range(0, 448, 25)
    ]
    path = tmp_path / "train.out"
    path.write_text("\n".join(["Networks initialized", *lines, "learning rate = 0.0001"]) + "\n")
    result = load_run(path)
    roles = dict(result.frame.groupby("metric", observed=True)["role"].first())
    assert roles["total"] == "train_loss"
    assert (result.frame["metric"] == "total").sum() == len(lines)


def test_a_value_that_ends_a_sentence_is_read_and_a_split_verb_names_its_split():
    """A script printing whole sentences: `Epoch 0 trained with loss: 0.0197. The running time
    is 4073.9.` and `Epoch 0 evaluated with loss: 0.00034, dice score: 1.1e-05. ...`: the full
    stop ends the number, and `evaluated` names the held-out split of the loss and the score
    printed after it."""
    lines = []
    for e in range(6):
        lines.append(
            f"Epoch {e} trained with loss: {0.02 / (e + 1):.6f}. The running time is 40.5."
        )
        lines.append(
            f"Epoch {e} evaluated with loss: {0.0003 + 0.00001 * e:.6f}, dice score: "
            f"{1e-5 * (e + 1):.3e}. The running time is 7.1."
        )
    result = read_stream(io.BytesIO("\n".join(lines).encode()), name="train.out")
    roles = dict(result.frame.groupby("metric", observed=True)["role"].first())
    assert roles["trained with loss"] == "train_loss"
    assert roles["evaluated with loss"] == "val_loss"
    assert roles["evaluated/dice score"] == "val_score"
    _, train = _series(result, "trained with loss")
    assert train == [round(0.02 / (e + 1), 6) for e in range(6)]


def test_a_version_number_is_not_read_as_its_first_part():
    lines = [f"Epoch {e} loss: {1.0 / (e + 1):.3f} ckpt: 1.2.{e}" for e in range(4)]
    result = read_stream(io.BytesIO("\n".join(lines).encode()), name="t.log")
    assert "ckpt" not in set(result.frame["metric"].astype(str))


def test_totals_on_lines_without_a_counter_are_not_a_training_log(tmp_path):
    path = tmp_path / "summary.txt"
    path.write_text("".join(f"Report {k}\ntotal: {k * 3}\n" for k in range(6)))
    with pytest.raises(UnknownFormatError):
        load_run(path)


def test_a_warning_stderr_wrote_into_a_printed_line_does_not_hide_its_metrics():
    """ssd.pytorch prints `iter N || Loss: x || ` without ending the line, so the next stderr
    warning lands after it: the warning goes to a line of its own, the loss stays."""
    warn = (
        "/code/utils/augmentations.py:238: VisibleDeprecationWarning: Creating an ndarray from "
        "ragged nested sequences (which is a list-or-tuple of lists-or-tuples-or ndarrays with "
        "different lengths or shapes) is deprecated.\n  mode = random.choice(self.sample_options)\n"
    )
    text = "".join(
        f"timer: 0.35 sec.\niter {i * 10} || Loss: {9.0 - i:.4f} || {warn}" for i in range(4)
    )
    steps, values = _series(_read(text), "Loss")
    assert steps == [0, 10, 20, 30] and values == [9.0, 8.0, 7.0, 6.0]
    assert (
        clean("loss: 1.5 C:\\x\\a.py:3: UserWarning: old")
        == "loss: 1.5\nC:\\x\\a.py:3: UserWarning: old"
    )
    alone = "/code/a.py:3: UserWarning: old API\n  x = f()"
    assert clean(alone) == alone  # a warning on its own line stays as it is


def test_a_key_printed_again_after_a_split_word_is_that_splits():
    """`Train Loss | Token Acc | Val Loss | Token Acc` on one line: the second Token Acc is the
    validation one, not a second train point that would double the epoch's steps."""
    text = "".join(
        f"Epoch {e} |    Train Loss: {9 - e}.1 | Token Acc: 0.{e}1 | Seq Acc: 0.0 |"
        f"    Val Loss: {9 - e}.5 | Token Acc: 0.{e}2 | Seq Acc: 0.0\n"
        for e in range(4)
    )
    result = _read(text)
    assert _series(result, "Token Acc") == ([0, 1, 2, 3], [0.01, 0.11, 0.21, 0.31])
    assert _series(result, "Val/Token Acc") == ([0, 1, 2, 3], [0.02, 0.12, 0.22, 0.32])
    assert _series(result, "Train Loss")[0] == [0, 1, 2, 3]
    roles = dict(zip(result.frame["metric"], result.frame["role"], strict=True))
    assert roles["Val/Token Acc"] == "val_score" and roles["Token Acc"] == "train_score"
    text = "".join(f"step {i} loss: 0.5 acc: 0.8 loss: 0.6\n" for i in (1, 2))
    steps, values = _series(_read(text), "loss")
    assert values == [0.5, 0.6, 0.5, 0.6]  # no split word between: the repeat keeps its name


def _caffe(it: int, loss: float, test: tuple[float, float] | None = None) -> str:
    pre = "I1117 21:57:48.058338 33463 solver.cpp:191] "
    out = ""
    if test is not None:
        out += f"{pre}Iteration {it}, Testing net (#0)\n"
        out += f"{pre}    Test net output #0: accuracy = {test[0]}\n"
        out += f"{pre}    Test net output #1: loss = {test[1]} (* 1 = {test[1]} loss)\n"
    out += f"{pre}Iteration {it}, loss = {loss}\n"
    out += f"{pre}    Train net output #0: loss = {loss + 0.01} (* 1 = {loss + 0.01} loss)\n"
    return out + f"I1117 21:57:48.058395 33463 sgd_solver.cpp:106] Iteration {it}, lr = 0.001\n"


def test_caffe_glog_lines_give_the_train_loss_lr_and_test_outputs():
    """glog's `I1117 ... solver.cpp:191] ` prefix is no metric; the test net's outputs after
    `Iteration N, Testing net (#0)` sit at N under test/; `Train net output` repeats the loss."""
    text = "".join(
        _caffe(i * 100, 2.0 - i / 10, (0.5 + i / 20, 1.5 - i / 10) if i % 2 == 0 else None)
        for i in range(6)
    )
    result = _read(text)
    assert result.source["detail"].startswith("console log, caffe;")
    roles = dict(zip(result.frame["metric"], result.frame["role"], strict=True))
    assert roles == {
        "loss": "train_loss",
        "lr": "lr",
        "test/accuracy": "val_score",
        "test/loss": "val_loss",
    }
    assert _series(result, "loss") == ([0, 100, 200, 300, 400, 500], [2.0, 1.9, 1.8, 1.7, 1.6, 1.5])
    assert _series(result, "test/loss") == ([0, 200, 400], [1.5, 1.3, 1.1])
    line, wall = strip_prefix("I0728 23:55:39.066728  4259 solver.cpp:218] Iteration 0, lr = 0.01")
    assert line == "Iteration 0, lr = 0.01" and wall != wall  # glog prints no year: no wall time


def _darknet(step: int, loss: float, avg: float, word: str = "avg loss") -> str:
    """One iteration of darknet's detector training, with the per-layer lines before it."""
    return (
        f"Region 82 Avg IOU: 0.769597, Class: 0.997826, Obj: 0.720678, No Obj: 0.008424, "
        f"Avg Recall: 0.898305,  count: 59\nLoaded: 0.000031 seconds\n"
        f" {step}: {loss:.6f}, {avg:.6f} {word}, 0.001000 rate, 0.886196 seconds, "
        f"{step * 64} images, 12.5 hours left\n"
    )


@pytest.mark.parametrize("word", ["avg loss", "avg"])  # AlexeyAB's fork, and pjreddie's
def test_darknet_iterations_give_the_loss_its_running_average_and_the_lr(word):
    """`1234: 0.812, 0.905 avg loss, 0.001000 rate, ...`: the values are named by the words
    after them; the region lines between iterations are not metrics."""
    losses = [0.9, 0.7, 0.8, 0.6, 0.5, 0.55]
    text = "".join(_darknet(i + 1, v, 1.0 - i / 10, word) for i, v in enumerate(losses))
    result = _read(text)
    assert result.source["detail"].startswith("console log, darknet;")
    roles = dict(zip(result.frame["metric"], result.frame["role"], strict=True))
    assert roles == {"loss": "train_loss", "avg loss": "train_loss", "lr": "lr"}
    assert _series(result, "loss") == ([1, 2, 3, 4, 5, 6], losses)
    assert _series(result, "avg loss")[1] == [1.0, 0.9, 0.8, 0.7, 0.6, 0.5]
    assert _series(result, "lr")[1] == [0.001] * 6


def _espnet(epoch: int, losses: list[float], valid: float) -> str:
    """One epoch of ESPnet2's train.log: its batch lines, then its results line."""
    pre = "[gpu-node3] 2023-10-27 13:37:46,484 (trainer:{}) INFO: "
    out = pre.format(298) + f"{epoch}/30epoch started\n"
    for i, loss in enumerate(losses):
        out += (
            pre.format(753) + f"{epoch}epoch:train:{i * 100 + 1}-{i * 100 + 100}batch: "
            f"iter_time=1.924e-04, forward_time=0.040, loss_ctc={loss * 1.2:.3f}, "
            f"loss_att={loss * 0.9:.3f}, acc=0.235, loss={loss:.3f}, backward_time=0.049, "
            f"grad_norm=156.442, clip=100.000, loss_scale=1.000, optim0_lr0=1.007e-05, "
            f"train_time=0.127\n"
        )
    return out + (
        pre.format(338) + f"{epoch}epoch results: [train] iter_time=1.2e-04, "
        f"loss={sum(losses) / len(losses):.3f}, acc=0.3, time=8 minutes and 3.12 seconds, "
        f"total_count=300, [valid] loss_ctc=80.1, loss={valid:.3f}, acc=0.4, cer=0.31, "
        f"wer=0.62, time=20.5 seconds, total_count=300, [att_plot] time=3.1 seconds\n"
    )


def test_espnet_batches_are_train_points_and_the_valid_results_the_validation():
    """`3epoch:train:101-200batch: .. loss=..`: the epoch and the span's last batch give the
    step; the results line's `[valid]` part is the validation at the epoch's end, its
    `[train]` part a summary (no second train point); `(trainer:753)` is no metric."""
    text = "".join(
        _espnet(e, [150.0 - 10 * e - i for i in range(3)], 140.0 - 10 * e) for e in (1, 2, 3)
    )
    result = _read(text)
    assert result.source["detail"].startswith("console log, espnet;")
    steps, values = _series(result, "loss")
    assert values == [140.0, 139.0, 138.0, 130.0, 129.0, 128.0, 120.0, 119.0, 118.0]
    assert steps == sorted(steps) and len(set(steps)) == 9
    val_steps, val = _series(result, "valid/loss")
    assert val == [130.0, 120.0, 110.0]
    assert val_steps[0] >= steps[2] and val_steps[0] < steps[3]  # after its epoch's batches
    roles = dict(zip(result.frame["metric"], result.frame["role"], strict=True))
    assert roles["valid/loss"] == "val_loss" and roles["optim0_lr0"] == "lr"
    assert not any("trainer" in str(m) for m in roles)


def test_a_step_that_starts_again_each_epoch_counts_batches_not_restarts():
    """`Epoch [2/3], Step [100/200]`: the step goes back only where the epoch goes forward, so it
    counts within the epoch; read as global it made every epoch a restart."""
    text = "".join(
        f"Epoch [{e}/3], Step [{b}/200], Loss: {1 / (e + b / 200):.4f}\n"
        for e in (1, 2, 3)
        for b in (100, 200)
    )
    result = _read(text)
    steps, _ = _series(result, "Loss")
    assert steps == sorted(steps) and len(set(steps)) == 6
    assert result.frame["segment"].nunique() == 1
    assert not any("several sessions" in w.message for w in result.warnings)
    resumed = _read(
        "epoch 1 step 10 loss: 0.9\nepoch 2 step 20 loss: 0.8\nepoch 2 step 10 loss: 0.85\n"
    )
    assert _series(resumed, "loss")[0] == [10, 20, 10]  # back within an epoch: a restart, as before


def test_an_epoch_and_batch_pair_in_brackets_is_read_as_counters():
    """PyTorch's CIFAR-10 tutorial prints `[1,  2000] loss: 2.203`: epoch 1, batch 2000."""
    text = "".join(
        f"[{e}, {b:5d}] loss: {2.3 - e / 10 - b / 40000:.3f}\n"
        for e in (1, 2)
        for b in (2000, 4000)
    )
    steps, values = _series(_read(text + "Finished Training\n"), "loss")
    assert values == [2.15, 2.1, 2.05, 2.0] and steps == sorted(steps) and len(set(steps)) == 4


# ---------------------------------------------------------------------- properties

_LINES = [
    f"Epoch {e}/8 | Loss: {1.0 / (e + 1):.4f} | val_loss: {1.2 / (e + 1):.4f}" for e in range(8)
]
_FOLD_HEADERS = ["===== Fold 2/5 =====", "Training fold 3"]
_NOISE = st.sampled_from(
    [
        "",
        "Saving model checkpoint to the output folder now",
        "UserWarning: something is deprecated in this version of the library",
        "  0%|          | 0/10 [00:00<?, ?it/s]",
        "=====================================",
    ]
)


def _read(text: str):
    return read_stream(io.BytesIO(text.encode()), name="pasted")


_BASE = _read("\n".join(_LINES) + "\n")


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    noise=st.lists(_NOISE, min_size=len(_LINES), max_size=len(_LINES)),
    ansi=st.lists(st.booleans(), min_size=len(_LINES), max_size=len(_LINES)),
    redraw=st.lists(st.booleans(), min_size=len(_LINES), max_size=len(_LINES)),
)
def test_noise_ansi_and_redraws_do_not_change_the_series(noise, ansi, redraw):
    out = []
    for line, extra, colour, cr in zip(_LINES, noise, ansi, redraw, strict=True):
        if colour:
            line = "\x1b[1m" + line.replace("Loss", "\x1b[32mLoss\x1b[0m") + "\x1b[0m"
        if cr:
            line = "  3/10 [==>....] - ETA: 1s\r" + line
        out += [extra, line]
    got = _read("\n".join(out) + "\n")
    for metric in ("Loss", "val_loss"):
        assert _series(got, metric) == _series(_BASE, metric)


@settings(max_examples=60, deadline=None)
@given(st.binary(max_size=4000))
def test_fuzzed_bytes_give_a_frame_or_a_typed_error(data):
    try:
        result = read_stream(io.BytesIO(data), name="fuzz")
    except InputError:
        return
    assert np.isin(result.frame["role"].astype(str), ["train_loss", "val_loss"]).any()


@settings(max_examples=60, deadline=None)
@given(st.text(alphabet="epochlosstrainval:=|[]/ 0123456789.e-\n\r\x1b", max_size=3000))
def test_fuzzed_log_like_text_gives_a_frame_or_a_typed_error(text):
    try:
        _read(text)
    except InputError:
        pass


# ---------------------------------------------------------------------- plans

_REAL_TEXTS = ("textlog_t5_bleu_plateau_train_to_zero", "textlog_mxnet_ssd_nan_restarts_resume")


def _points(style, lines, *, plans, block):
    parser = Parser(style, plans=plans)
    for i in range(0, len(lines), block):
        part = lines[i : i + block]
        parser.feed_block(part, skeletons("\n".join(part)))
    return to_points(parser.finish())


def _same_points(a, b):
    assert a.names == b.names and a.runs == b.runs and a.axis == b.axis and a.roles == b.roles
    for f in ("run", "metric", "step", "segment"):
        assert np.array_equal(getattr(a, f), getattr(b, f)), f
    for f in ("value", "wall"):
        assert np.array_equal(getattr(a, f), getattr(b, f), equal_nan=True), f


def _folds(header: str) -> str:
    return "Loading data\n" + "".join(
        header.format(fold=k)
        + "\n"
        + "".join(
            f"Epoch {e}/4 - train_loss: {1 / (e + k):.4f} - val_loss: {1.1 / (e + k):.4f}\n"
            for e in range(1, 5)
        )
        for k in (1, 2, 3)
    )


@pytest.mark.parametrize(
    "header", ["========== Fold {fold}/3 ==========", "Training fold {fold} of 3", "Trial {fold}"]
)
def test_a_line_naming_a_fold_or_trial_starts_a_run_of_its_own(header):
    """A cross-validation's folds train a model each from the start: epochs counting again
    under a fold header are separate runs, not one run resumed twice."""
    result = _read(_folds(header))
    frame = result.frame
    kind = "trial" if header.startswith("Trial") else "fold"
    runs = [str(r).split("#")[1] for r in frame["run"].unique()]
    assert runs == [f"{kind} {k}" for k in (1, 2, 3)]
    assert frame["segment"].nunique() == 1
    for run, part in frame.groupby("run", observed=True):
        steps = part[part["metric"] == "train_loss"].sort_values("seq")["step"].tolist()
        assert steps == [1, 2, 3, 4], run


def test_a_fold_resumed_within_itself_is_a_segment_of_that_fold_only():
    text = (
        "Fold 1\n"
        + "".join(f"epoch {e} loss: {1 / e:.3f}\n" for e in (1, 2, 3, 2, 3))
        + "Fold 2\n"
        + "".join(f"epoch {e} loss: {1 / e:.3f}\n" for e in (1, 2, 3))
    )
    frame = _read(text).frame.sort_values("seq")
    segments = frame.groupby("run", observed=True)["segment"].apply(list).to_dict()
    assert [segments[r] for r in sorted(segments)] == [[0, 0, 0, 1, 1], [0, 0, 0]]


def test_a_trial_line_that_prints_its_result_opens_no_run():
    """Optuna's `Trial 3 finished with value: 0.5` ends a trial and prints a number of its
    own: it is no header, and the epochs around it stay one run."""
    text = _folds("Trial {fold} finished with value: 0.5")
    result = _read(text)
    assert result.frame["run"].nunique() == 1


def _texts():
    texts = [p.read_bytes() for p in sorted(FIXTURES.glob("*.log"))]
    for entry in _REAL_TEXTS:  # when ../shared/real_runs_more is beside the checkout
        folder = _REAL_MORE / entry
        texts += [p.read_bytes()[:200_000] for p in sorted(folder.glob("*")) if p.is_file()]
    return [clean(t.decode("utf-8", "replace")).split("\n") for t in texts]


@pytest.mark.parametrize("style", STYLES, ids=lambda s: s.name)
def test_plans_read_what_the_patterns_read(style):
    """Every line shape read once and then by its spans, in blocks of any size, gives the
    points the style's patterns give line by line."""
    for lines in _texts():
        slow = _points(style, lines, plans=False, block=len(lines))
        for block in (7, 50, 10_000):
            _same_points(_points(style, lines, plans=True, block=block), slow)


@settings(max_examples=40, deadline=None)
@given(
    st.lists(
        st.sampled_from([*_LINES, *_FOLD_HEADERS, "Timer: 0.66", "->> pal1 conf loss:11.1494", ""]),
        max_size=60,
    ),
    st.integers(1, 9),
)
def test_plans_agree_on_any_order_of_lines(lines, block):
    for style in STYLES:
        slow = _points(style, lines, plans=False, block=max(1, len(lines)))
        _same_points(_points(style, lines, plans=True, block=block), slow)


def test_a_folder_of_console_logs_keeps_what_each_file_was_read_as(tmp_path):
    for name in ("keras_verbose2.log", "tqdm.log"):
        (tmp_path / name).write_bytes((FIXTURES / name).read_bytes())
    detail = load_run(tmp_path).source["detail"]
    assert "keras_verbose2.log: console log, keras verbose 2;" in detail
    assert "tqdm.log: console log, progress bar (tqdm / lightning);" in detail


def test_a_training_log_beside_a_val_log_is_one_run(real_runs_more, tmp_path):
    from lossforensics.discover import discover_runs
    from lossforensics.ingest import console

    folder = real_runs_more / "textlog_lane_seg_loss_redefined_epoch3"
    result = load_run(folder)
    assert set(result.frame["run"]) == {folder.name}
    roles = result.frame.drop_duplicates("metric").set_index("metric")["role"].to_dict()
    assert roles == {
        "mask loss": "train_loss",
        "val_mask loss": "val_loss",
        "val_miou": "val_score",
    }
    # the audit's discovery sees the same single run
    assert [s.path for s in discover_runs(folder).sources] == [str(folder)]
    # two training logs in one folder are two runs, not parts of one
    names = [tmp_path / n for n in ("train_a.log", "train_b.log", "val_log.csv")]
    assert console.pair_parts(names) == names
    assert console.pair_parts(names[1:]) == [tmp_path]


@pytest.mark.parametrize(
    "text",
    [
        "epoch 99999999999999999999 loss: 0.5\n" * 3,  # past int64
        "step=1 loss=0.5\nstep=12345678901234567890123 loss=0.3\nstep=3 loss=0.2\n",
        "step " + "9" * 5000 + " loss: 0.5\n" * 3,  # past Python's digits limit for int()
    ],
)
def test_a_counter_too_long_to_be_one_is_taken_as_absent_not_a_crash(text):
    steps, values = _series(_read(text), "loss")
    assert len(values) == 3 and all(0 <= s < 10**6 for s in steps)


_REDRAWS = st.sampled_from(
    ["", " ", "a", "7", "5%|", "12%|", "100%|", "1000%|", "%|", "\u0663%|", "loss=0.5"]
)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.lists(_REDRAWS, max_size=4).map("".join), min_size=2, max_size=12))
def test_a_redrawn_line_reduces_as_read_redraw_by_redraw(redraws):
    """The fast reduction (the last redraw, unless a percentage may drop) gives what reading the
    line redraw by redraw gives, bar resets included."""
    line = "\r".join(redraws)
    assert clean(line) == _states(line)
    if not line.endswith("\r"):  # else its \r and the next \n are a Windows line end
        assert clean(f"x\n{line}\ny") == f"x\n{_states(line)}\ny"


def test_a_rate_printed_before_its_epochs_batches_is_the_epochs_rate():
    """`Epoch [2/3] | LR: ...` heading the batch lines: the learning rate keeps its role (it is
    not an epoch summary of a batch series) and sits at the epoch's start, so the batch lines
    after it do not step back into a new session every epoch."""
    lines = []
    for e, lr in enumerate((1e-4, 5e-5, 1e-5), start=1):
        lines.append(f"Epoch [{e}/3] | LR: {lr:.2e}")
        lines += [f"Epoch {e} | Batch [{b}/4] | Loss: {1.0 / (e + b / 4):.4f}" for b in (2, 4)]
    result = _read("\n".join(lines) + "\n")
    frame = result.frame
    assert set(frame.loc[frame["metric"] == "LR", "role"].astype(str)) == {"lr"}
    assert _series(result, "LR") == ([0, 4, 8], [1e-4, 5e-5, 1e-5])
    assert _series(result, "Loss")[0] == [2, 4, 6, 8, 10, 12]
    assert set(frame["segment"]) == {0}
    assert not any("sessions" in w.message for w in result.warnings)


def test_a_line_echoed_right_after_itself_is_read_once():
    """A logger's line then a `print` of it (or two handlers writing one file): each epoch is
    one point, not two at sub-steps; a warning says how many were read once."""
    lines = []
    for e in range(1, 4):
        line = f"Epoch {e}/3, Train Loss: {0.5 / e:.4f}, Val Loss: {0.6 / e:.4f}"
        lines += [f"2024-11-01 00:29:3{e},442 - INFO - {line}", "", "=== Progress ===", line]
    result = _read("\n".join(lines) + "\n")
    assert _series(result, "Train Loss") == ([1, 2, 3], [0.5, 0.25, 0.1667])
    assert _series(result, "Val Loss")[0] == [1, 2, 3]
    assert any("3 line(s) printed again" in w.message for w in result.warnings)


def test_a_single_value_printed_twice_in_an_epoch_is_kept_twice():
    """One loss printed per batch with no batch counter may repeat exactly (a flat loss): only
    a record with a counter or two metrics counts as an echo."""
    text = "".join(f"epoch {e} loss: 2.3026\n" * 2 for e in range(3))
    steps, values = _series(_read(text), "loss")
    assert values == [2.3026] * 6


def test_a_nan_streak_printed_line_after_line_is_no_echo():
    """A Keras bar pasted without its `Epoch 1/1` header, `  2/100 [...] - ETA: 20:11 - loss:
    nan - mse: nan`: with no counter read, eleven NaN lines after the first were taken for
    echoes of it and the run read as two points. A record whose every value is NaN or infinite
    is a streak, not a line printed twice."""
    text = " 1/100 [....] - ETA: 12:52 - loss: 0.0838 - mse: 0.0486\n"
    text += "".join(
        f" {b}/100 [....] - ETA: 20:{b:02d} - loss: nan - mse: nan\n" for b in range(2, 14)
    )
    _, values = _series(_read(text), "loss")
    assert len(values) == 13 and values[0] == 0.0838 and np.isnan(values[1:]).all()


def test_a_chinese_scripts_keys_and_epochs_are_read():
    """`第3轮，训练损失：0.93，验证损失：0.97` (the 3rd round, training loss, validation loss),
    full-width punctuation and all: the keys were no words to the reader, the log refused."""
    text = "".join(
        f"第{e}轮，训练损失：{2.8 / (e + 1):.2f}，验证损失：{2.9 / (e + 1):.2f}，学习率：0.001\n"
        for e in range(6)
    )
    result = _read(text)
    assert _series(result, "训练损失") == (list(range(6)), [2.8, 1.4, 0.93, 0.7, 0.56, 0.47])
    assert roles_of(result) == {"训练损失": "train_loss", "验证损失": "val_loss", "学习率": "lr"}


def test_a_japanese_scripts_epochs_and_mean_loss_are_read():
    """`====> エポック 3/10, 平均損失: 1.799` (epoch 3 of 10, mean loss) between save messages."""
    text = "".join(
        f"====> エポック {e}/4, 平均損失: {3.25 / e:.4f}\n"
        f"モデルを./models/model_epoch_{e}.pthに保存\n"
        for e in range(1, 5)
    )
    result = _read(text)
    assert _series(result, "平均損失") == ([1, 2, 3, 4], [3.25, 1.625, 1.0833, 0.8125])
    assert set(result.frame["role"].astype(str)) == {"train_loss"}


def test_a_korean_scripts_epochs_and_keys_are_read():
    """`에폭 2/3 - 학습 손실: 0.90 - 검증 손실: 1.10` (epoch, training loss, validation loss)."""
    text = "".join(
        f"에폭 {e}/3 - 학습 손실: {1.2 / e:.2f} - 검증 손실: {1.3 / e:.2f}\n" for e in (1, 2, 3)
    )
    result = _read(text)
    assert _series(result, "검증 손실") == ([1, 2, 3], [1.3, 0.65, 0.43])
    assert roles_of(result) == {"학습 손실": "train_loss", "검증 손실": "val_loss"}


def test_european_keys_and_epochs_are_read():
    """`Época 2 - Pérdida entrenamiento: 0.90 - Pérdida validación: 1.10`, and a Russian
    script's `Эпоха 2, потери на обучении: 0.9, потери на валидации: 1.1`."""
    es = "".join(
        f"Época {e} - Pérdida entrenamiento: {1.2 / e:.2f} - Pérdida validación: {1.3 / e:.2f}\n"
        for e in (1, 2, 3)
    )
    result = _read(es)
    assert _series(result, "Pérdida validación") == ([1, 2, 3], [1.3, 0.65, 0.43])
    assert roles_of(result) == {
        "Pérdida entrenamiento": "train_loss",
        "Pérdida validación": "val_loss",
    }
    ru = "".join(
        f"Эпоха {e}, потери на обучении: {1.2 / e:.2f}, потери на валидации: {1.3 / e:.2f}\n"
        for e in (1, 2, 3)
    )
    assert roles_of(_read(ru)) == {
        "потери на обучении": "train_loss",
        "потери на валидации": "val_loss",
    }


def test_the_same_line_logged_again_seconds_later_is_a_new_record():
    """A stuck classifier logs `Train loss: 0.6931, accuracy: 0.0000%` every few seconds with no
    counter: each line has its own timestamp, so each is a reading, not an echo of the one
    before (all but the first were dropped, and the log was refused). The same line twice at
    one time (two handlers on one file) is still one record."""
    stamp = "2018-12-05 10:24:{s:02d},741 - test - INFO - "
    line = "Train loss: 0.6931, accuracy: 0.0000%\n"
    text = "".join(stamp.format(s=s) + line for s in range(0, 36, 3))
    assert _series(_read(text), "Train loss")[1] == [0.6931] * 12
    twice = "".join((stamp.format(s=s) + line) * 2 for s in range(0, 36, 3))
    assert len(_series(_read(twice), "Train loss")[1]) == 12


def test_a_counter_printed_with_one_value_on_every_loss_line_is_no_axis():
    """`[train] epoch:3 iter:0/18 ... loss:0.61` once an epoch: iter never moves, so the epoch
    is the step (every point sat at step 0 and no check could judge the run)."""
    text = "".join(
        f"[train] epoch:{e} iter:0/18 0.00% lr:0.001000 loss:{1.3 / (e + 1):.6f} ETA:0.0min\n"
        f"[val] epoch:{e} miou:0.{20 + e}\n"
        for e in range(6)
    )
    steps, values = _series(_read(text), "loss")
    assert steps == [0, 1, 2, 3, 4, 5] and values[0] == 1.3


def test_a_loss_after_a_held_out_score_on_its_line_is_that_splits():
    """`[Epoch: 05] Valid acc: 0.2988 | loss: 2.0462` after the train lines: the loss is the
    validation loss, not five more points spliced into the training curve."""
    text = ""
    for e in range(1, 11):
        text += f"[Epoch: {e:02d}] Train acc: 0.{20 + e} | loss: {2.3 - 0.05 * e:.4f}\n"
        if e % 5 == 0:
            text += f"[Epoch: {e:02d}] Valid acc: 0.{25 + e} | loss: {2.1 - 0.04 * e:.4f}\n"
    result = _read(text)
    roles = dict(zip(result.frame["metric"], result.frame["role"].astype(str), strict=False))
    assert roles["Valid/loss"] == "val_loss" and roles["loss"] == "train_loss"
    assert len(_series(result, "loss")[0]) == 10
    assert _series(result, "Valid/loss")[1] == [1.9, 1.7]


def test_a_summary_line_whose_step_goes_back_opens_no_session():
    """`Best validation AUC: 0.8981 at epoch 30` after epoch 45's lines holds no loss: its step
    going back is no restart (it made a second session, with a warning saying so)."""
    text = "".join(
        f"Epoch {e}/45\nTrain Loss: {1 / e:.4f}\nVal Loss: {1.2 / e:.4f}\n" for e in range(1, 46)
    )
    text += "Training complete in 869.82s. Best validation AUC: 0.8981 at epoch 30\n"
    result = _read(text)
    assert set(result.frame["segment"]) == {0}
    assert not any("sessions" in w.message for w in result.warnings)


def test_the_logging_howtos_prefix_with_the_loggers_name_is_taken_off():
    """`%(asctime)s - %(name)s - %(levelname)s - %(message)s` (the logging HOWTO's format):
    the logger's name before the level is prefix, not part of the message."""
    line, wall = strip_prefix("2025-11-30 16:33:57,509 - __main__ - INFO - epoch 1 loss 0.5")
    assert line == "epoch 1 loss 0.5" and wall == wall
    assert strip_prefix("2025-11-30 16:33:57 - trainer.fit - WARNING - lr 0.1")[0] == "lr 0.1"
    # a word and a dash with no level after them are the message's own
    assert strip_prefix("2025-11-30 16:33:57 - Epoch 3 - loss: 0.5")[0] == "Epoch 3 - loss: 0.5"


def _box(rows: list[tuple[str, str]]) -> str:
    body = "".join(f"| {name:<24}| {value:<9}|\n" for name, value in rows)
    return "-" * 38 + "\n" + body + "-" * 38 + "\n"


def test_key_value_boxes_are_one_record_each_on_their_closing_rule():
    """Stable-Baselines3's verbose=1 boxes (PPO, with its evaluation callback's section): each
    box one record of `section/name` metrics at its environment steps; every line keeps its
    number, so what follows a box is reported where it is."""
    text = "Using cpu device\n"
    for i in range(1, 6):
        rows = [("rollout/", ""), ("   ep_rew_mean", f"{-200 + 10 * i}")]
        rows += [("time/", ""), ("   total_timesteps", f"{2048 * i}")]
        if i > 1:
            rows += [("train/", ""), ("   loss", f"{1.0 / i:.3g}"), ("   value_loss", "0.5")]
        if i % 2 == 0:
            rows += [("eval/", ""), ("   mean_reward", f"{-150 + i}")]
        text += _box(rows)
    assert clean(text).count("\n") == text.count("\n")
    result = _read(text)
    assert "key-value box" in result.detail
    roles = dict(zip(result.frame["metric"], result.frame["role"].astype(str), strict=False))
    assert roles["train/loss"] == "train_loss" and roles["train/value_loss"] == "train_loss"
    assert roles["rollout/ep_rew_mean"] == "other"
    assert _series(result, "train/loss") == ([4096, 6144, 8192, 10240], [0.5, 0.333, 0.25, 0.2])
    assert _series(result, "eval/mean_reward")[0] == [4096, 8192]
    # a box whose rows are not `| name | value |` is left as it is
    odd = "-" * 20 + "\n| a | b | c |\n" + "-" * 20 + "\n"
    assert clean(odd) == odd


def test_iters_is_a_counter_and_a_date_is_no_value():
    """PatchTST's `\\titers: 100, epoch: 1 | loss: 0.48` counts batches within the epoch; a
    `Time: 2025-04-19 10:22:03` field is a date, not a value of 2025."""
    text = "".join(
        f"\titers: {i}, epoch: {e} | loss: {1 / (e + i / 1000):.4f} | Time: 2025-04-19 10:22:0{e}\n"
        for e in range(1, 4)
        for i in (100, 200)
    )
    result = _read(text)
    assert set(result.frame["metric"]) == {"loss"}
    steps, _ = _series(result, "loss")
    assert steps == sorted(steps) and len(set(steps)) == 6


def test_transformers_pipe_level_and_a_padded_level_are_taken_off():
    """transformers' and LLaMA-Factory's `[INFO|time] place >> ` (either order in and after the
    bracket), PaddleNLP's `[time] [    INFO] - ` and a process id before the level: prefix,
    with the time kept as wall time."""
    line, wall = strip_prefix("[INFO|2024-11-26 22:09:01] logging.py:157 >> {'loss': 2.2818}")
    assert line == "{'loss': 2.2818}" and wall == 1732658941.0
    line, wall = strip_prefix("[INFO|trainer.py:2012] 2024-11-26 22:09:01,123 >> Num Epochs = 3")
    assert line == "Num Epochs = 3" and wall == 1732658941.123
    line, wall = strip_prefix("[2022-08-31 15:21:49,786] [    INFO] - eval_loss: 0.709")
    assert line == "eval_loss: 0.709" and wall == 1661959309.786
    # OLMo's host and rank, then its logger and line, between the time and the level
    line, _ = strip_prefix(
        "2025-12-12 11:05:05.850\tquick-rain-03:0\tolmo.train:979\tINFO\t[step=2/15000,epoch=0]"
    )
    assert line == "[step=2/15000,epoch=0]"
    # a process id before the level (FuxiCTR's `%(asctime)s P%(process)d %(levelname)s`)
    line, _ = strip_prefix("2022-02-04 23:47:01,975 P28282 INFO Train loss: 0.651453")
    assert line == "Train loss: 0.651453"


def test_paddlenlp_trainer_evaluations_are_read():
    """PaddleNLP's Trainer log: the padded level hid the evaluation lines, whose `epoch: 5.0`
    is no counter; they belong to the last step logged."""
    text = ""
    for step in range(10, 310, 10):
        text += (
            f"[2022-08-31 15:21:49,786] [    INFO] - loss: {1 / step:.8f}, learning_rate: 3e-05, "
            f"global_step: {step}, interval_runtime: 0.5, interval_samples_per_second: 63.9, "
            f"epoch: {step / 100:.4f}\n"
        )
        if step % 100 == 0:
            text += (
                "[2022-08-31 15:21:49,787] [    INFO] - ***** Running Evaluation *****\n"
                "[2022-08-31 15:21:49,787] [    INFO] -   Num examples = 160\n"
                f"[2022-08-31 15:21:50,490] [    INFO] - eval_loss: {0.7 + step / 1000}, "
                f"eval_accuracy: 0.71875, eval_runtime: 0.6977, epoch: {step / 100:.1f}\n"
            )
    result = _read(text)
    assert _series(result, "eval_loss") == ([100, 200, 300], [0.8, 0.9, 1.0])
    assert len(_series(result, "loss")[0]) == 30


def test_paddleocr_pads_a_nan_with_x_and_it_is_still_a_nan():
    """PaddleOCR formats each value `{:x<6f}`: a NaN loss prints `nanxxx`, an inf `infxxx`
    (an issue's log whose every loss was NaN was refused: no value was read)."""
    line = (
        "[2023/10/06 13:26:28] ppocr INFO: epoch: [1/500], global_step: {s}, lr: 0.000093, "
        "acc: 0.000000, CTCLoss: {v}, loss: {v}, avg_reader_cost: 0.00016 s, ips: 235.5 samples/s\n"
    )
    printed = ((10, "2.4153"), (20, "nanxxx"), (30, "infxxx"))
    text = "".join(line.format(s=s, v=v) for s, v in printed)
    steps, values = _series(_read(text), "loss")
    assert steps == [10, 20, 30] and values[0] == 2.4153
    assert np.isnan(values[1]) and values[2] == np.inf


def test_a_bracketed_split_heading_gives_its_split_to_the_line_under_it():
    """DDSP-SVC prints ` --- <validation> --- ` above its validation loss: without the
    heading's split, the validation loss was a second training point at the last step."""
    text = "".join(
        f"epoch: {s // 5} | {s % 5:3d}/  5 | exp/workdir | lr: 0.0002 | loss: {1 / s:.3f} | "
        f"step: {s}\n"
        for s in range(1, 501)
    )
    text += " --- <validation> --- \nloss: 0.597. \n"
    result = _read(text)
    assert _series(result, "val/loss") == ([500], [0.597])
    assert len(_series(result, "loss")[0]) == 500 and set(result.frame["segment"]) == {0}


def test_guided_diffusion_boxes_are_stepped_by_their_step_row():
    """OpenAI's guided-diffusion and improved-diffusion log through baselines' logger: a box
    a logging interval, stepped by its `step` row; a `key=value` line is no box."""
    text = "Logging to /tmp/openai-2022\ncreating model and diffusion...\n"
    for step in range(0, 1000, 100):
        text += _box(
            [
                ("grad_norm", f"{0.5 + step / 1e4:.3g}"),
                ("loss", f"{1 / (1 + step / 100):.3g}"),
                ("loss_q0", "0.0837"),
                ("mse", f"{0.9 / (1 + step / 100):.3g}"),
                ("samples", f"{128 * (step + 1)}"),
                ("step", f"{step}"),
            ]
        )
    result = _read(text)
    assert "key-value box" in result.detail
    steps, values = _series(result, "loss")
    assert steps == list(range(0, 1000, 100)) and values[0] == 1.0
    plain = _read("".join(f"step={s} loss={1 / (s + 1):.4f}\n" for s in range(20)))
    assert "key-value box" not in plain.detail


def _fastspeech2_logs(root: Path) -> Path:
    """ming024/FastSpeech2's `output/log/<dataset>/train/log.txt` and `val/log.txt`."""
    folder = root / "log" / "LJSpeech"
    (folder / "train").mkdir(parents=True)
    (folder / "val").mkdir()
    losses = "Total Loss: {t:.4f}, Mel Loss: {m:.4f}, Mel PostNet Loss: {m:.4f}, Pitch Loss: 0.0035"
    (folder / "train" / "log.txt").write_text(
        "".join(
            f"Step {s}/500000, "
            + losses.format(t=1 / (1 + s / 1000), m=0.5 / (1 + s / 1000))
            + "\n"
            for s in range(100, 20100, 100)
        )
    )
    (folder / "val" / "log.txt").write_text(
        "".join(
            f"Validation Step {s}, " + losses.format(t=1.2 / (1 + s / 2000), m=0.6) + "\n"
            for s in range(2000, 22000, 2000)
        )
    )
    return folder


def test_logs_kept_in_split_named_folders_are_one_run(tmp_path):
    """FastSpeech2 keeps its training and validation logs in `train/` and `val/` folders under
    one name: read and listed as two runs, neither had both losses."""
    folder = _fastspeech2_logs(tmp_path)
    result = load_run(folder)
    f = result.frame
    assert set(f["run"]) == {"LJSpeech"}
    roles = dict(zip(f["metric"], f["role"].astype(str), strict=False))
    assert roles["Total Loss"] == "train_loss" and roles["Validation/Total Loss"] == "val_loss"
    found = discover_runs(tmp_path)
    assert [(s.name, s.format) for s in found.sources] == [("log/LJSpeech", "console")]


def test_full_width_punctuation_separates_as_ascii_does():
    """Chinese input methods type `：` and `，`: English keys with them were no pairs."""
    text = "".join(
        f"Epoch：{e}，loss：{1 / e:.4f}，val_loss：{1.2 / e:.4f}\n" for e in range(1, 11)
    )
    result = _read(text)
    assert _series(result, "val_loss")[0] == list(range(1, 11))
    assert clean(text).count("\n") == text.count("\n") and len(clean(text)) == len(text)


def test_a_log_of_epoch_summaries_alone_has_them_as_its_training_curve():
    """fairseq's epoch summaries with no `train_inner` line (`| epoch 012 | loss 4.102 | ... |
    gnorm 0.612 | clip 100% | ...`, the lines a maintainer pastes as a reference run) were kept
    as `summary/*` with role other: the run read as having no training loss and no gradient
    norm. Beside per-step lines the summaries stay summaries."""
    text = ""
    for e in range(1, 7):
        text += (
            f"| epoch {e:03d} | loss {6 / e:.3f} | nll_loss {5 / e:.3f} | ppl 20.1 | wps 41077 | "
            f"ups 3.1 | wpb 13238 | bsz 453 | num_updates {e * 2109} | lr 0.0005 | gnorm "
            f"{0.6 + e / 100:.3f} | clip 100% | oom 0 | wall {e * 680} | train_wall 600\n"
        )
        text += (
            f"| epoch {e:03d} | valid on 'valid' subset | valid_loss {6.2 / e:.3f} | "
            f"valid_nll_loss 4.1 | valid_ppl 17.2 | num_updates {e * 2109}\n"
        )
    frame = _read(text).frame
    roles = dict(zip(frame["metric"], frame["role"].astype(str), strict=False))
    assert roles["summary/loss"] == "train_loss" and roles["summary/gnorm"] == "grad_norm"
    assert roles["summary/lr"] == "lr" and roles["valid_loss"] == "val_loss"


def test_a_deep_learning_from_scratch_trainer_line_is_no_fairseq_summary():
    """`| epoch 1 |  iter 1 / 351 | time 0[s] | loss 2.56` (Deep Learning from Scratch 2's
    trainer) opened like fairseq's epoch summary, `| epoch 001 |`, and was read as one."""
    text = "".join(
        f"| epoch {e} |  iter {i} / 351 | time {e * 10}[s] | loss {2.5 / (e + i / 351):.2f}\n"
        for e in range(1, 6)
        for i in range(1, 352, 50)
    )
    result = _read(text)
    assert len(_series(result, "loss")[0]) == 40


def test_a_count_of_a_total_is_read_as_its_exact_share():
    """PyTorch's MNIST example prints `Accuracy: 9860/10000 (99%)`: the rounded percentage made
    a held-out accuracy climbing from 98.1% to 99.0% read as 98, 98, ..., 99."""
    text = ""
    for e in range(1, 11):
        for b in range(0, 60000, 12800):
            text += f"Train Epoch: {e} [{b}/60000 ({100 * b // 60000:.0f}%)]\tLoss: {1 / e:.6f}\n"
        correct = 9800 + e * 10
        text += f"\nTest set: Average loss: {0.05 / e:.4f}, Accuracy: {correct}/10000 "
        text += f"({correct / 100:.0f}%)\n\n"
    result = _read(text)
    _, values = _series(result, "Test/Accuracy")
    assert values == pytest.approx([98.1 + e / 10 for e in range(10)])
    # a count whose printed share disagrees is no count of a total: left as printed
    assert clean("Accuracy: 3/10 (80%)\n") == "Accuracy: 3/10 (80%)\n"
