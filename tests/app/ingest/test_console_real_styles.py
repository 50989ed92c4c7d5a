"""Excerpts of real public logs (source of each in console_fixtures/SOURCES.md): each style reads
the right training-loss series and keeps its evaluation lines apart from the train lines."""

from __future__ import annotations

import io
import json
from pathlib import Path

import numpy as np
import pytest
from lossforensics.ingest import load_run
from lossforensics.ingest.console import read_stream

FIXTURES = Path(__file__).parent / "console_fixtures"

# file: (style, train-loss metric, points, first, last, an evaluation metric kept apart, or
# None where the style reads no evaluation lines)
REAL_EXCERPTS = {
    "timm_real.log": ("timm", "Loss", 6, 5.085654, 5.261723, "test/Loss"),
    "mmengine_real.log": ("mmengine", "loss", 7, 5.3465, 2.7351, "val/accuracy"),
    "mmdet_mmcv_real.log": ("mmengine", "loss", 16, 0.6476, 0.6377, "val/bbox_mAP"),
    "fairseq_real.log": ("fairseq", "loss", 5, 11.521, 10.902, "valid_loss"),
    "fairseq_epochs_real.log": ("fairseq", "loss", 3, 6.22, 6.144, "valid_loss"),
    "nanogpt_real.log": ("nanogpt", "loss", 25, 4.2648, 1.6524, "val loss"),
    "opennmt_real.log": ("opennmt", "xent", 12, 3.29, 0.18, "ln(Validation perplexity)"),
    "yolov8_real.log": ("ultralytics yolov8", "box_loss", 3, 1.081, 1.096, None),
    "yolox_loguru_real.log": ("yolox", "total_loss", 2, 14.6, 11.5, None),
    "cyclegan_loss_log_real.txt": ("pix2pix loss_log", "cycle_A", 19, 2.246, 0.329, None),
    "lerobot_real.log": ("lerobot", "loss", 20, 2.215, 0.144, None),
    "slowfast_json_stats_real.log": (
        "slowfast json_stats",
        "loss",
        20,
        3.30153,
        2.60768,
        "val/top1_err",
    ),
    "llamafactory_running_log_real.txt": (
        "hf trainer printed dicts",
        "loss",
        12,
        2.2818,
        2.1144,
        None,
    ),
    "marian_real.log": ("marian", "Cost", 20, 0.41100797, 0.43637192, "valid/ce-mean-words"),
    "flair_real.log": ("flair", "loss", 44, 42.88358307, 8.38590694, "DEV/loss"),
    "tslib_dlinear_real.log": (
        "generic key-value lines",
        "Train Loss",
        6,
        1.2710425,
        0.4176621,
        "Vali Loss",
    ),
    "sb3_console_real.log": (
        "key-value box (Stable-Baselines3)",
        "train/loss",
        6,
        0.000102,
        0.000156,
        None,
    ),
    "keras_verbose2_tf2_real.log": ("keras verbose 2", "loss", 12, 3.1494, 2.1944, None),
    "nnunet_logging_real.log": (
        "generic key-value lines",
        "train loss",
        4,
        1.3331,
        1.1718,
        "validation loss",
    ),
    "metric_logger_time_prefix_real.log": ("pytorch meters", "closs", 7, 1.08, 1.0396, None),
    "fairseq_inner_real.log": ("fairseq", "loss", 5, 9.255, 10.278, None),
    "fairseq_legacy_real.log": ("fairseq", "loss", 10, 1.27, 0.75, "valid loss"),
    "yolov6_real.log": ("yolov6", "cls_loss", 9, 0.5756, 0.03814, "val/mAP@0.5"),
    "megatron_deepspeed_real.log": (
        "megatron",
        "lm loss",
        3,
        6.444662,
        7.155109,
        "validation/lm loss value",
    ),
    "hf_trainer_real.log": ("hf trainer printed dicts", "loss", 10, 1.6531, 1.5126, "eval_loss"),
    "python_logging_real.log": ("generic key-value lines", "loss", 12, 10.3236, 10.36932, None),
    "keras_verbose2_real.log": ("keras verbose 2", "loss", 15, 1.0029, 0.5984, "val_loss"),
    "lightning_bar_lines_real.log": (
        "progress bar (tqdm / lightning)",
        "loss",
        5,
        10.473,
        9.847,
        None,
    ),
    "keras_verbose1_real.log": ("keras verbose 1", "loss", 3, 0.3437, 0.0891, "val_loss"),
    "megatron_real.log": (
        "megatron",
        "lm loss",
        13,
        9.729805,
        0.135008,
        "validation/lm loss value",
    ),
}


def _values(result, metric):
    f = result.frame
    return f[f["metric"] == metric].sort_values("seq")["value"].round(6).tolist()


@pytest.mark.parametrize("name", sorted(REAL_EXCERPTS))
def test_real_excerpt_gives_the_train_loss_series_in_its_style(name):
    style, loss, points, first, last, _ = REAL_EXCERPTS[name]
    result = load_run(FIXTURES / name)
    assert result.format == "console"
    assert result.source["detail"].startswith(f"console log, {style};")
    values = _values(result, loss)
    assert len(values) == points
    assert values[0] == pytest.approx(first) and values[-1] == pytest.approx(last)
    roles = dict(zip(result.frame["metric"], result.frame["role"], strict=True))
    assert roles[loss] == "train_loss"


@pytest.mark.parametrize("name", sorted(n for n, e in REAL_EXCERPTS.items() if e[-1]))
def test_real_excerpt_keeps_evaluation_apart_from_training(name):
    *_, loss, points, _, _, held_out = REAL_EXCERPTS[name]
    result = load_run(FIXTURES / name)
    metrics = set(result.frame["metric"])
    assert held_out in metrics
    assert len(_values(result, loss)) == points  # no evaluation value joined the train series
    roles = dict(zip(result.frame["metric"], result.frame["role"], strict=True))
    assert roles[held_out] in ("val_loss", "val_score")


def test_timm_model_ema_evaluation_is_its_own_series():
    result = load_run(FIXTURES / "timm_real.log")
    # one point per evaluation: the running average on its last line
    assert _values(result, "test/Loss") == [3.9768]
    assert _values(result, "Test (EMA)/Loss") == [6.9122]


def test_opennmt_validation_lines_after_a_message_take_the_last_step_as_a_loss():
    """OpenNMT-py prints the training `xent` but only the validation perplexity, on lines of
    their own after a `Loading dataset from ...` message: the validation loss is its log, at
    the step of the last training line; the training `ppl` beside `xent` stays a number."""
    result = load_run(FIXTURES / "opennmt_real.log")
    frame = result.frame
    val = frame[frame["metric"] == "ln(Validation perplexity)"]
    assert val["step"].tolist() == [200, 400, 600]
    assert val["value"].tolist() == pytest.approx(np.log([5.45281, 2.44446, 1.22345]))
    roles = dict(zip(frame["metric"], frame["role"], strict=True))
    assert roles["ln(Validation perplexity)"] == "val_loss"
    assert roles["ppl"] == "other" and roles["Validation accuracy"] == "val_score"


def test_megatron_loss_scale_and_perplexity_are_not_losses():
    """`loss scale` and `lm loss PPL` carry the word loss; read as losses they would outnumber
    the real ones and let the generic fallback win over the Megatron style."""
    result = load_run(FIXTURES / "megatron_real.log")
    roles = dict(zip(result.frame["metric"], result.frame["role"], strict=True))
    assert roles["loss scale"] == "other" and roles["validation/lm loss PPL"] == "other"
    assert _values(result, "validation/lm loss value")[-1] == pytest.approx(8.208897)


def test_fairseq_epoch_averages_are_summaries_not_train_points():
    result = load_run(FIXTURES / "fairseq_epochs_real.log")
    assert _values(result, "summary/loss") == [6.326, 6.233]
    assert _values(result, "valid_loss") == [6.43844, 6.37204]


def test_ultralytics_rows_are_not_read_as_yolov5_columns():
    """A YOLOv8 row has three losses where a YOLOv5 row has four: read with YOLOv5's columns its
    instance count became the `total` loss."""
    result = load_run(FIXTURES / "yolov8_real.log")
    assert _values(result, "dfl_loss") == [1.084, 1.064, 1.098]
    assert "total" not in set(result.frame["metric"])
    assert _values(load_run(FIXTURES / "yolov5_real.log"), "total")[0] == pytest.approx(0.1679)


def test_rank_tagged_records_spread_over_two_lines_are_read():
    """`[1,0]<stdout>:Epoch 0/100, Batch 17/29316` then `[1,0]<stdout>:Total loss is  29.86 ...`:
    the rank tag is not prose that ends the record, and `is` separates a key from its value."""
    result = load_run(FIXTURES / "horovod_ranks_real.log")
    assert result.source["detail"].startswith("console log, generic key-value lines;")
    values = _values(result, "Total loss")
    assert len(values) == 4 and values[-1] == pytest.approx(26.773840)


def test_interleaved_ranks_are_read_as_rank_zero_only():
    """Two Horovod ranks print the same run's losses line by line; read together they would be
    one curve jumping between two. Rank 0's lines are the run: its first loss line comes before
    any step line of its own in this excerpt, so it has no step and is left out."""
    result = load_run(FIXTURES / "horovod_ranks_real.log")
    assert _values(result, "Total loss") == pytest.approx(
        [29.862733840942383, 53.665191650390625, 29.23740577697754, 26.773839950561523]
    )


def test_loguru_prefix_with_module_and_line_is_not_a_metric():
    """YOLOX's loguru prefix `| INFO     | yolox.core.trainer:261 - ` is cut before the
    message is read: `yolox.core.trainer: 261` is not a metric."""
    result = load_run(FIXTURES / "yolox_loguru_real.log")
    assert not any("yolox" in m for m in set(result.frame["metric"]))
    assert _values(result, "conf_loss") == [7.8, 5.2]


def test_gan_loss_log_reads_the_reconstruction_terms_as_losses_and_the_game_as_other():
    """pytorch-CycleGAN-and-pix2pix's `loss_log.txt`: the discriminator's and the generator's
    adversarial terms hover by design, so only the terms against a target (cycle, identity)
    are training losses; `iters` counts images within the epoch, so the steps still rise
    across the epoch boundary."""
    result = load_run(FIXTURES / "cyclegan_loss_log_real.txt")
    roles = dict(zip(result.frame["metric"], result.frame["role"], strict=True))
    assert {m for m, r in roles.items() if r == "train_loss"} == {
        "cycle_A",
        "cycle_B",
        "idt_A",
        "idt_B",
    }
    assert all(roles[m] == "other" for m in ("D_A", "G_A", "D_B", "G_B"))
    assert not {"time", "data"} & set(roles)
    steps = result.frame[result.frame["metric"] == "cycle_A"].sort_values("seq")["step"]
    assert steps.is_monotonic_increasing and steps.is_unique


def test_gan_loss_log_header_of_each_launch_begins_a_session():
    """The script appends a `Training Loss (<date>)` header each time it is launched: a second
    launch after the first is a new session of the run, which the resume check reads."""
    text = (FIXTURES / "cyclegan_loss_log_real.txt").read_text()
    lines = text.splitlines(keepends=True)
    result = read_stream(io.BytesIO((text + "".join(lines[:6])).encode()), name="loss_log.txt")
    segments = result.frame[result.frame["metric"] == "cycle_A"].sort_values("seq")["segment"]
    assert segments.nunique() == 2
    assert segments.value_counts().sort_index().tolist() == [19, 5]


def test_lerobot_rounded_steps_are_spread_over_what_they_stand_for():
    """LeRobot prints `step:1K` for every step from 1000 to 1499: read as printed, the points
    logged every 200 steps piled onto 1000, 2000, ... and each pile read as a restart. Spread
    over their bucket they rise at the logging interval again, and no session is invented."""
    result = load_run(FIXTURES / "lerobot_real.log")
    frame = result.frame[result.frame["metric"] == "loss"].sort_values("seq")
    steps = frame["step"].tolist()
    assert steps[:3] == [400, 600, 800]  # printed exactly below 1000
    assert steps[3:] == sorted(set(steps[3:])) and steps[3] > 800
    assert steps[6:16] == list(range(1600, 3401, 200))  # five lines a `2K`, `3K`: 200 apart
    assert frame["segment"].nunique() == 1
    roles = dict(zip(result.frame["metric"], result.frame["role"], strict=True))
    assert roles == {"loss": "train_loss", "grdn": "grad_norm", "lr": "lr"}


def test_a_split_heading_on_its_own_line_names_the_metrics_under_it():
    """The PyTorch Quickstart prints `Test Error:` on a line of its own and the test set's
    ` Accuracy: 10.0%, Avg loss: 2.302572` under it: read alone, that was a second training
    loss and a training score. Under its heading it is the held-out evaluation."""
    result = load_run(FIXTURES / "pytorch_quickstart_real.log")
    roles = dict(zip(result.frame["metric"], result.frame["role"], strict=True))
    assert roles["test/Avg loss"] == "val_loss" and roles["test/Accuracy"] == "val_score"
    assert roles["loss"] == "train_loss"
    assert _values(result, "test/Avg loss") == [2.302572, 2.30254]
    assert "Avg loss" not in roles


def test_a_progress_bar_named_after_a_split_is_no_loss():
    """`Training: 100%|████| 183/183 [...]`: the bar's name is a split and its percentage a
    number, read as a training loss of 100 at every epoch (and `Validation:` as the validation
    loss). A percentage that opens a bar is no value."""
    result = load_run(FIXTURES / "tqdm_split_named_bars_real.log")
    roles = dict(zip(result.frame["metric"], result.frame["role"], strict=True))
    assert "Training" not in roles and "Validation" not in roles
    assert roles["Train Loss"] == "train_loss" and roles["Val Loss"] == "val_loss"
    assert _values(result, "Train Loss")[:2] == [2.4997, 2.4801]


def test_a_printed_step_total_is_the_epoch_length_and_each_relaunch_a_session():
    """StyleTTS prints the pytorch-tutorial idiom `Epoch [1/5], Step [10/62], Mel Loss: ..`,
    a step that starts again each epoch, and the log holds three launches appended to one
    file. The `/62` is the epoch's length: epoch 2's first line is step 62 + 10, not the
    largest step logged + 1 (61) + 10, and each launch starts its own session."""
    result = load_run(FIXTURES / "styletts_restarts_real.log")
    frame = result.frame
    mel = frame[frame["metric"] == "Mel Loss"]
    assert mel["step"].tolist()[:8] == [10, 20, 30, 40, 50, 60, 72, 82]
    assert mel.groupby("segment").size().tolist() == [27, 20, 9]
    val = frame[frame["metric"] == "Validation mel loss"]
    assert val["role"].iloc[0] == "val_loss"
    assert val["step"].tolist()[:4] == [60, 122, 184, 246]  # at each epoch's last train line


def _slowfast_line(stats: dict) -> str:
    """A line as PySlowFast's `log_json_stats` writes it: sorted keys behind its logger."""
    return "[06/20 18:20:01][INFO] logging.py:   97: json_stats: " + json.dumps(
        stats, sort_keys=True
    )


def test_slowfast_iterations_count_within_their_epoch_and_val_iterations_are_passed_over():
    """`train_iter` lines print `"iter": "10/30"` (1 to 30): the step goes on across epochs;
    the epoch's averages (`train_epoch`) are kept apart, the per-batch `val_iter` lines are
    passed over and the `val_epoch` results sit at the epoch's last step."""
    lines = []
    for e in (1, 2):
        for it in (10, 20, 30):
            lines.append(
                _slowfast_line(
                    {
                        "_type": "train_iter",
                        "epoch": f"{e}/2",
                        "iter": f"{it}/30",
                        "loss": 3.0 - e / 5 - it / 100,
                        "lr": 0.01,
                        "top1_err": 80.0 - e,
                        "gpu_mem": "19.35G",
                        "eta": "0:31:34",
                        "dt": 0.3,
                    }
                )
            )
        lines.append(_slowfast_line({"_type": "train_epoch", "epoch": f"{e}/2", "loss": 2.5}))
        lines.append(
            _slowfast_line(
                {"_type": "val_iter", "epoch": f"{e}/2", "iter": "5/10", "top1_err": 99.0}
            )
        )
        lines.append(
            _slowfast_line(
                {
                    "_type": "val_epoch",
                    "epoch": f"{e}/2",
                    "min_top1_err": 75.0,
                    "top1_err": 76.0 - e,
                }
            )
        )
    result = read_stream(io.BytesIO(("\n".join(lines) + "\n").encode()), name="slowfast")
    f = result.frame
    assert f[f["metric"] == "loss"]["step"].tolist() == [10, 20, 30, 40, 50, 60]
    val = f[f["metric"] == "val/top1_err"]
    assert val["value"].tolist() == [75.0, 74.0]  # no val_iter value among them
    assert val["step"].tolist() == [30, 60] and val["role"].iloc[0] == "val_score"
    roles = dict(zip(f["metric"], f["role"].astype(str), strict=False))
    assert roles["val/min_top1_err"] == "other" and roles["epoch/loss"] == "other"
    assert "gpu_mem" not in roles and "eta" not in roles


def test_a_key_with_an_aside_in_brackets_is_read_whole():
    """The Keras guide's custom training loop prints `Training loss (for 1 batch) at step 100:
    2.5622` under `Start of epoch 0`, and `Training acc over epoch` / `Validation acc` at each
    epoch's end; the aside broke the key and nothing was read."""
    result = load_run(FIXTURES / "keras_custom_loop_real.log")
    frame = result.frame
    roles = dict(zip(frame["metric"], frame["role"].astype(str), strict=False))
    assert roles["Training loss (for 1 batch)"] == "train_loss"
    assert roles["Validation acc"] == "val_score"
    assert roles["Training acc over epoch"] == "train_score"
    loss = frame[frame["metric"] == "Training loss (for 1 batch)"]
    assert len(loss) == 32 and loss["value"].iloc[0] == 89.1303
    assert loss["step"].is_monotonic_increasing and frame["segment"].nunique() == 1
    assert _values(result, "Validation acc") == [0.8825, 0.9094]


def test_an_epoch_numbered_before_the_word_counts_the_line():
    """ECAPA-TDNN's `score.txt`: `1 epoch, LR 0.001000, LOSS 3.677785, ACC 47.27%, EER 4.40%`;
    with no counter found, its `key value` pairs were not read and the file was refused. The
    equal error rate is measured on held-out trials, and `bestEER` is the best so far."""
    result = load_run(FIXTURES / "ecapa_score_real.txt")
    frame = result.frame
    roles = dict(zip(frame["metric"], frame["role"].astype(str), strict=False))
    assert roles == {
        "LR": "lr",
        "LOSS": "train_loss",
        "ACC": "train_score",
        "EER": "val_score",
        "bestEER": "other",
    }
    loss = frame[frame["metric"] == "LOSS"]
    assert loss["step"].tolist()[:3] == [1, 2, 3] and len(loss) == 23
    assert _values(result, "EER")[:2] == [4.4, 5.0]


def test_icefall_running_totals_are_kept_apart_from_the_batch_loss():
    """icefall prints each batch's `loss[loss=0.4561, over 2828.00 frames. ]` and then the
    running total `tot_loss[loss=0.7076, ...]`: read as one, the series alternated between a
    batch and its running mean at every step, diagnosed as a resume (the step "went back from
    10 to 10"). The frame count is no metric."""
    result = load_run(FIXTURES / "icefall_yesno_real.txt")
    frame = result.frame
    roles = dict(zip(frame["metric"], frame["role"].astype(str), strict=False))
    assert "over" not in roles
    assert roles["loss"] == "train_loss" and roles["validation loss"] == "val_loss"
    assert _values(result, "loss")[:2] == [1.065, 0.4561]
    assert _values(result, "tot_loss/loss")[:2] == [1.065, 0.7076]
    loss = frame[frame["metric"] == "loss"]
    assert loss["step"].is_monotonic_increasing and loss["step"].is_unique
    assert frame["segment"].nunique() == 1


def test_tslib_learning_rate_messages_are_its_learning_rate():
    """The Time-Series-Library family prints `Updating learning rate to 0.0001` after each
    epoch, under its EarlyStopping's `Validation loss decreased (.. --> ..).  Saving model ...`:
    the message ended the epoch's record, so no learning rate was read at all (and a schedule
    halving it every epoch to 1e-24 could not be judged)."""
    result = load_run(FIXTURES / "tslib_dlinear_real.log")
    f = result.frame[result.frame["role"] == "lr"]
    assert f["step"].tolist() == [1, 2, 3, 4, 5, 6]
    assert f["value"].round(7).tolist()[:5] == [1e-4, 1e-4, 1e-4, 9e-5, 8.1e-5]
    assert "EarlyStopping counter" not in set(result.frame["metric"])
