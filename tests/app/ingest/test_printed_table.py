"""Results tables printed as text: fastai's fit table and markdown pipe tables (a Hugging Face
model card's training results), among the prose around them; and what is not one."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from lossforensics.classifiers.errors import (
    EmptyInputError,
    LimitExceededError,
    UnknownFormatError,
)
from lossforensics.classifiers.run import RunSeries
from lossforensics.ingest import detect_format, load_run, printed_table
from lossforensics.ingest._limits import reading_with

CONSOLE_FIXTURES = Path(__file__).parent / "console_fixtures"

# fastai pads every cell to its column's width, the last one too
FASTAI = (
    "epoch     train_loss  valid_loss  accuracy  time    \n"
    "0         1.000000    1.100000    0.500000  00:12     \n"
    "1         0.500000    0.777817    0.550000  00:13     \n"
    "2         0.333333    0.635085    0.600000  01:02:03  \n"
)

MODEL_CARD = """\
---
license: apache-2.0
tags:
- generated_from_trainer
---

# bert-base-cased-finetuned

It achieves the following results on the evaluation set:
- Loss: 0.3532
- Accuracy: 0.855

| Hyperparameter | Value |
|:---------------|:------|
| learning_rate  | 2e-05 |

### Training results

| Training Loss | Epoch | Step | Validation Loss | Accuracy | F1     |
|:-------------:|:-----:|:----:|:---------------:|:--------:|:------:|
| No log        | 1.0   | 125  | 0.4177          | 0.82     | 0.8188 |
| 0.3813        | 2.0   | 250  | 0.3532          | 0.855    | 0.8547 |
| 0.2101        | 3.0   | 375  | 0.3710          | 0.86     | 0.8590 |


### Framework versions

- Transformers 4.17.0
"""


def _write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def _series(result, metric):
    f = result.frame
    part = f[f["metric"] == metric].sort_values("seq")
    return part["step"].tolist(), part["value"].tolist()


def _roles(result) -> dict[str, str]:
    return dict(zip(result.frame["metric"], result.frame["role"].astype(str), strict=False))


def test_fastai_table_reads_each_column_by_its_header(tmp_path):
    result = load_run(_write(tmp_path, "fit.log", FASTAI))
    assert result.format == "printed_table"
    assert result.source["detail"].startswith("printed table (aligned columns); 1 table(s)")
    assert _series(result, "train_loss") == ([0, 1, 2], [1.0, 0.5, 0.333333])
    assert _series(result, "valid_loss")[1] == [1.1, 0.777817, 0.635085]
    assert _series(result, "time")[1] == [12.0, 13.0, 3723.0]  # mm:ss and h:mm:ss as seconds
    # fastai computes its metrics on the validation set
    assert _roles(result) == {
        "train_loss": "train_loss",
        "valid_loss": "val_loss",
        "accuracy": "val_score",
        "time": "other",
    }
    assert (result.frame["segment"] == 0).all()
    assert any("steps are the 'epoch' column" in w.message for w in result.warnings)


def test_fastai_rows_behind_a_terminal_bars_glyphs(tmp_path):
    """fastprogress in a terminal leaves its bar's glyphs before each row it prints
    (`██182  0.258223  0.588670  0.796438  00:00`, tsai's training output pasted in an issue):
    the rows were no table rows and the log was refused."""
    rows = "".join(
        f"██{e}       0.25{e % 10}223    0.{5 + e % 3}88670    0.79643{e % 10}  00:00     \n"
        for e in range(182, 188)
    )
    text = "epoch     train_loss  valid_loss  accuracy  time    \n" + rows
    result = load_run(_write(tmp_path, "fit.log", text))
    assert result.format == "printed_table"
    steps, values = _series(result, "valid_loss")
    assert steps == list(range(182, 188)) and values[0] == 0.788670


def test_fastai_missing_values_are_missing_and_a_logged_nan_is_kept(tmp_path):
    text = (
        "epoch     train_loss  valid_loss  error_rate  f1_score  time\n"
        "0         0.900000    None        #na#        0.400000  00:10\n"
        "1         0.700000    0.650000    0.300000    #na#      00:10\n"
        "2         nan         nan         0.310000    0.420000  00:10\n"
    )
    result = load_run(_write(tmp_path, "fit.log", text))
    assert _series(result, "valid_loss")[0] == [1, 2]
    assert _series(result, "error_rate")[0] == [1, 2]
    steps, values = _series(result, "train_loss")
    assert steps == [0, 1, 2] and np.isnan(values[2])
    assert _roles(result)["f1_score"] == "val_score"
    assert not any("non-numeric" in w.message for w in result.warnings)


def test_fastai_fit_called_twice_gives_a_run_per_table(tmp_path):
    """`fine_tune` prints a table for the frozen epoch, then one whose epochs start again at 0:
    each table is one fit, its own run, its steps as printed."""
    text = (
        "epoch     train_loss  valid_loss  error_rate  time\n"
        "0         1.189305    0.313405    0.096752    00:20\n"
        "epoch     train_loss  valid_loss  error_rate  time\n"
        "0         0.482411    0.277135    0.084573    00:24\n"
        "1         0.334287    0.232441    0.073072    00:24\n"
    )
    result = load_run(_write(tmp_path, "fine_tune.log", text))
    loss = result.frame[result.frame["metric"] == "train_loss"].sort_values("seq")
    assert loss["step"].tolist() == [0, 0, 1]
    assert loss["run"].tolist() == ["fine_tune (table 1)"] + ["fine_tune (table 2)"] * 2
    assert (loss["segment"] == 0).all()
    assert any("header on line 1, 3" in w.message for w in result.warnings)
    assert not any("restart" in w.message for w in result.warnings)


def test_fastai_table_among_other_output(tmp_path):
    """What a script printed around and between the rows: setup lines, a callback's message
    between rows, a progress bar redrawn before a row, a report after the table."""
    text = (
        "Loading pretrained model\n"
        "Training lm from random weights\n"
        "epoch     train_loss  valid_loss  accuracy  time\n"
        "0         0.571278    1.090870    0.156250  00:23\n"
        "Better model found at epoch 0 with valid_loss value: 1.0908700227737427.\n"
        "Epoch 2/3 : |#####-----| 50.00% [1/2 00:10<00:10]\r"
        "1         0.377181    0.990721    0.406250  00:22\n"
        "2         0.322664    0.900471    0.468750  00:22\n"
        "Total time: 01:07\n"
        "\n"
        "              precision    recall  f1-score   support\n"
        "           0       0.61      0.60      0.61      1000\n"
    )
    result = load_run(_write(tmp_path, "train.out", text))
    assert result.format == "printed_table"
    assert _series(result, "valid_loss") == ([0, 1, 2], [1.09087, 0.990721, 0.900471])
    assert set(result.frame["metric"]) == {"train_loss", "valid_loss", "accuracy", "time"}
    assert not any(w.line == 12 for w in result.warnings)


def test_a_malformed_fastai_row_is_skipped_and_named(tmp_path):
    text = (
        "epoch     train_loss  valid_loss  accuracy  time\n"
        "0         1.000000    1.100000    0.500000  00:12\n"
        "1         0.500000    0.777817    00:12\n"
        "2         0.333333    oops        0.600000  00:12\n"
        "3         0.250000    0.550000    0.650000  00:12\n"
    )
    result = load_run(_write(tmp_path, "fit.log", text))
    assert _series(result, "train_loss")[0] == [0, 2, 3]
    assert _series(result, "valid_loss")[0] == [0, 3]
    by_line = {w.line: w.message for w in result.warnings}
    assert "4 cell(s) where the header has 5" in by_line[3]
    assert "non-numeric" in by_line[4] and "'valid_loss'" in by_line[4]


def test_model_card_training_results_among_prose_and_other_tables(tmp_path):
    result = load_run(_write(tmp_path, "README.md", MODEL_CARD))
    assert result.format == "printed_table"
    assert result.source["detail"].startswith("markdown table; 1 table(s), 3 row(s)")
    # the step is `Step` when there is one; `No log` is a training loss not logged yet
    assert _series(result, "Training Loss") == ([250, 375], [0.3813, 0.2101])
    assert _series(result, "Validation Loss")[0] == [125, 250, 375]
    assert _series(result, "Epoch")[1] == [1.0, 2.0, 3.0]
    assert _roles(result) == {
        "Training Loss": "train_loss",
        "Epoch": "other",
        "Validation Loss": "val_loss",
        "Accuracy": "val_score",
        "F1": "val_score",
    }
    assert not any("non-numeric" in w.message or w.line for w in result.warnings)
    assert any("header on line 19" in w.message for w in result.warnings)
    # a model card's run takes its model's name, the folder's, not `README`
    card = tmp_path / "wav2vec2-base-amharic"
    card.mkdir()
    (card / "README.md").write_text(MODEL_CARD)
    assert load_run(card / "README.md").runs == ["wav2vec2-base-amharic"]


def test_markdown_table_with_epochs_only_and_a_diverged_run(tmp_path):
    """The Keras callback's model card: `Train Loss | Validation Loss | Epoch`, no Step; a
    logged nan is evidence and is kept."""
    text = (
        "### Training results\n\n"
        "| Train Loss | Train Accuracy | Validation Loss | Epoch |\n"
        "|:----------:|:--------------:|:---------------:|:-----:|\n"
        "| 2.4667     | 0.41           | 2.1935          | 0     |\n"
        "| nan        | 0.10           | nan             | 1     |\n"
    )
    result = load_run(_write(tmp_path, "card.md", text))
    steps, values = _series(result, "Train Loss")
    assert steps == [0, 1] and values[0] == 2.4667 and np.isnan(values[1])
    # not the Trainer's or fastai's loss names: the scores keep the roles their names give
    assert _roles(result)["Train Accuracy"] == "train_score"


def test_markdown_cells_marked_as_the_best_are_their_numbers(tmp_path):
    """A training log in Markdown bolds its best epochs and adds a note (`**74.04%** ✅`,
    `44.29% **(Best)**`): those cells were dropped as text, exactly the best epochs of the
    validation accuracy. A cell whose note holds a number is no single value."""
    text = (
        "| Epoch | Train Loss | Val Loss | Val Acc |\n"
        "|---|---|---|---|\n"
        "| 1 | 2.31 | 2.10 | 41.20% |\n"
        "| 2 | 1.92 | 1.88 | **44.29%** ✅ |\n"
        "| 3 | 1.71 | 1.80 | 44.30% **(Best)** |\n"
        "| 4 | 1.60 | __1.79__ | 0.5 (0.6) |\n"
    )
    result = load_run(_write(tmp_path, "training_log.md", text))
    assert _series(result, "Val Acc") == ([1, 2, 3], [41.2, 44.29, 44.3])
    assert _series(result, "Val Loss") == ([1, 2, 3, 4], [2.1, 1.88, 1.8, 1.79])


def test_fastai_v1_rows_end_in_their_time_beside_a_header_that_names_none(tmp_path):
    """fastai v1 printed each fit row's time after the last metric, in brackets, under a
    header with no `time` column: every row had a cell too many and was skipped."""
    text = (
        "Total time: 00:57\n"
        "epoch | train_loss | valid_loss | error_rate\n"
        "----- | ---------- | ---------- | ----------\n"
        "1 | 1.030236 | 0.179226 | 0.028369 | (00:14)\n"
        "2 |  0.561508 | 0.055464 | 0.014184 | (00:13)\n"
        "3 |   0.396103 | 0.053801 | 0.014184 | (00:13)\n"
        "4 |   0.316883 | 0.050197 | 0.021277 | (00:15)\n"
    )
    result = load_run(_write(tmp_path, "blog.md", text))
    assert _series(result, "valid_loss") == ([1, 2, 3, 4], [0.179226, 0.055464, 0.053801, 0.050197])


def test_a_script_s_pipe_table_under_a_rule_of_dashes(tmp_path):
    """`print` of a table: `epoch | tr_loss | va_loss | te_loss`, no outer pipes, a plain
    rule of dashes under it, after a model printout; the validation split's loss is the one
    read first, the test split's beside it."""
    rows = "".join(
        f"{e:5d} | {1.5 / e:7.3f} | {1.6 / e + 0.3:7.3f} | {1.6 / e + 0.31:7.3f} | {e * 61:4d}s\n"
        for e in range(1, 6)
    )
    text = (
        "Net(\n  (lstm): LSTM(128, 256)\n)\n"
        "epoch | tr_loss | va_loss | te_loss | time\n" + "-" * 44 + "\n" + rows
    )
    result = load_run(_write(tmp_path, "train.log", text))
    assert result.format == "printed_table"
    assert _series(result, "va_loss")[0] == [1, 2, 3, 4, 5]
    roles = _roles(result)
    assert roles["tr_loss"] == "train_loss" and roles["va_loss"] == roles["te_loss"] == "val_loss"
    assert RunSeries(result.frame).metrics("val_loss") == ["va_loss", "te_loss"]


def _script_rows(sep: str, widths: tuple[int, ...]) -> str:
    """Five epochs of a script's own table, cells right-aligned to `widths`, joined by `sep`,
    with the line a script prints when it saves a better model after some of them."""
    rows = [(e, 1.5 / e, 1.6 / e + 0.3, 0.5 + e / 20) for e in range(1, 6)]
    return "".join(
        sep.join(
            f"{v:>{w}}" if isinstance(v, int) else f"{v:>{w}.4f}"
            for v, w in zip(r, widths, strict=True)
        )
        + ("\nsaved best model to ckpt/best.pt\n" if r[0] % 2 else "\n")
        for r in rows
    )


@pytest.mark.parametrize(
    ("header", "sep", "widths"),
    [
        # names of two words, two spaces between names
        ("Epoch  Train Loss  Val Loss  Val Acc", "  ", (5, 10, 8, 7)),
        # one space between names, the values right-aligned under them
        ("Epoch Train Loss Val Loss Val Acc", " ", (5, 10, 8, 7)),
        # pipes between names and no rule line under them
        ("Epoch | Train Loss | Val Loss | Val Acc", " | ", (5, 10, 8, 7)),
    ],
)
def test_a_script_s_table_with_names_of_several_words(tmp_path, header, sep, widths):
    """`print(f"{'Epoch':>5}  {'Train Loss':>10}  ...")`, then a row an epoch: the header's
    words are grouped into as many names as a row has values (by the gaps between names, else
    by the columns each word sits over), and a pipe header needs no rule line under it."""
    text = "Using device: cpu\n" + header + "\n" + _script_rows(sep, widths)
    result = load_run(_write(tmp_path, "train.log", text))
    assert result.format == "printed_table"
    assert _roles(result) == {
        "Train Loss": "train_loss",
        "Val Loss": "val_loss",
        "Val Acc": "val_score",
    }
    steps, values = _series(result, "Val Loss")
    assert steps == [1, 2, 3, 4, 5]
    assert values == pytest.approx([round(1.6 / e + 0.3, 4) for e in range(1, 6)])


SPACY = """\
ℹ Pipeline: ['tok2vec', 'ner']
ℹ Initial learn rate: 0.001
E    #       LOSS TOK2VEC  LOSS NER  ENTS_F  ENTS_P  ENTS_R  SCORE\x20
---  ------  ------------  --------  ------  ------  ------  ------
  0       0          0.00     52.10    0.00    0.00    0.00    0.00
 30     200       2400.00   3000.00   80.00   78.00   82.00    0.80
 70     400       9000.00   2400.00   88.00   87.00   89.00    0.88
120     600      18000.00   2000.00   90.00   90.00   90.00    0.90
"""


def test_spacy_s_training_table_reads_its_losses_as_means_a_step(tmp_path):
    """`python -m spacy train`: `#` is the step, `E` the epoch; each `LOSS <component>` is a
    sum over the steps since the row before (the first row's over one step), read as the mean
    a step so rows compare; the scores, computed on the dev set, are validation scores. The
    TOK2VEC column climbs as the pipeline learns (its listeners' gradients): no training loss."""
    result = load_run(_write(tmp_path, "train.log", SPACY))
    assert result.format == "printed_table"
    assert _roles(result) == {
        "E": "other",
        "LOSS TOK2VEC": "other",  # the shared layer's listeners' gradients, no objective
        "LOSS NER": "train_loss",
        "ENTS_F": "val_score",
        "ENTS_P": "val_score",
        "ENTS_R": "val_score",
        "SCORE": "val_score",
    }
    steps, values = _series(result, "LOSS NER")
    assert steps == [0, 200, 400, 600]
    assert values == pytest.approx([52.1, 15.0, 12.0, 10.0])
    assert any("mean loss a step" in w.message for w in result.warnings)


def test_a_malformed_markdown_row_is_skipped_and_named(tmp_path):
    text = (
        "| Epoch | Training Loss | Validation Loss |\n"
        "|---|---|---|\n"
        "| 1 | 2.0000 | 1.5000 |\n"
        "| 2 | 1.0000 |\n"
        "| 3 | 0.6667 | 0.8660 |\n"
    )
    result = load_run(_write(tmp_path, "table.md.log", text))
    assert _series(result, "Validation Loss") == ([1, 3], [1.5, 0.866])
    skipped = [w for w in result.warnings if "row skipped" in w.message]
    assert [w.line for w in skipped] == [4]
    assert "2 cell(s) where the header has 3" in skipped[0].message


def test_several_markdown_tables_are_runs_in_order(tmp_path):
    table = "| Step | Training Loss |\n|---|---|\n| 100 | {} |\n| 200 | {} |\n"
    text = "First run:\n\n" + table.format(2.0, 1.5) + "\nResumed:\n\n" + table.format(1.4, 1.2)
    result = load_run(_write(tmp_path, "runs.md", text))
    loss = result.frame.sort_values("seq")
    assert loss["step"].tolist() == [100, 200, 100, 200]
    suffixes = [run[run.rindex("(") :] for run in loss["run"]]  # the name is the folder's
    assert suffixes == ["(table 1)"] * 2 + ["(table 2)"] * 2


def test_a_markdown_table_without_a_loss_is_not_a_training_log(tmp_path):
    path = _write(
        tmp_path,
        "results.md",
        "| Epoch | Accuracy |\n|---|---|\n| 1 | 0.8 |\n| 2 | 0.9 |\n",
    )
    assert not printed_table.sniff(path)
    with pytest.raises(UnknownFormatError) as err:
        load_run(path)
    assert err.value.file == str(path)


def test_a_summary_table_without_steps_is_not_a_training_log(tmp_path):
    path = _write(
        tmp_path, "models.md", "| Model | Loss | F1 |\n|---|---|---|\n| bert | 0.35 | 0.85 |\n"
    )
    assert not printed_table.sniff(path)


def test_prose_is_refused_with_the_file_named(tmp_path):
    path = _write(
        tmp_path,
        "notes.md",
        "# Notes\n\nThe training loss went down | then up.\n\n---\n\nepoch loss was fine\n",
    )
    with pytest.raises(UnknownFormatError) as err:
        detect_format(path)
    assert err.value.file == str(path)
    with pytest.raises(UnknownFormatError, match="no results table") as err:
        printed_table.read(path)
    assert err.value.file == str(path)


def test_a_table_of_text_only_is_an_empty_input_naming_the_line(tmp_path):
    """A model card translated with decimal commas: nothing is a number."""
    text = (
        "| Training loss | Epoch | Step | Validation loss |\n"
        "|---|---|---|---|\n"
        "| No log | 1,0 | 250 | 2,5810 |\n"
        "| 2,9258 | 2,0 | 500 | 1,8591 |\n"
    )
    path = _write(tmp_path, "es.md", text)
    with pytest.raises(EmptyInputError, match="non-numeric") as err:
        load_run(path)
    assert err.value.file == str(path) and err.value.line == 3


def test_no_console_fixture_is_taken_for_a_printed_table():
    """Console logs with column headers (YOLO's `Epoch GPU_mem box_loss ...`) stay console
    logs: their rows do not line up under the header."""
    logs = [p for p in sorted(CONSOLE_FIXTURES.iterdir()) if p.suffix != ".md"]
    assert logs
    assert [p.name for p in logs if printed_table.sniff(p)] == []


def test_the_read_limits_hold_and_name_the_file_and_line(tmp_path):
    path = _write(tmp_path, "fit.log", FASTAI)
    with reading_with(max_cells=8), pytest.raises(LimitExceededError) as err:
        load_run(path)
    assert err.value.file == str(path) and err.value.line == 3
    with reading_with(max_columns=4), pytest.raises(LimitExceededError) as err:
        printed_table.read(path)
    assert err.value.file == str(path) and err.value.line == 1


def test_a_table_printed_through_a_logger_is_read_without_its_prefixes(tmp_path):
    """The logging HOWTO's format puts the time, the logger's name and the level before each
    row (`2025-11-30 16:33:57,509 - __main__ - INFO - `): the table is under them."""
    stamp = "2025-11-30 16:33:{:02d},509 - __main__ - INFO - "
    rows = [
        "epoch     train_loss  valid_loss  accuracy",
        "0         0.571278    1.090870    0.156250",
        "1         0.377181    0.990721    0.406250",
        "2         0.322664    0.900471    0.468750",
    ]
    text = "".join(stamp.format(i) + row + "\n" for i, row in enumerate(rows))
    result = load_run(_write(tmp_path, "train.log", text))
    assert result.format == "printed_table"
    assert _series(result, "valid_loss") == ([0, 1, 2], [1.09087, 0.990721, 0.900471])


# `print(pd.DataFrame(history.history))` of a Keras fit: the header names no step, each row
# opens with the DataFrame's index; a long frame prints its head and tail around a `...` row
DATAFRAME = """Epoch 12/12 done
History:
        loss  accuracy  val_loss  val_accuracy
0   0.693100  0.501200  0.690200      0.512500
1   0.512000  0.750000  0.540000      0.731200
..       ...       ...       ...           ...
10  0.120000  0.961000  0.380000      0.861000
11  0.101000  0.968000  0.402000      0.858000

[12 rows x 4 columns]
"""


def test_a_printed_dataframe_reads_its_index_as_the_step(tmp_path):
    result = load_run(_write(tmp_path, "history.txt", DATAFRAME))
    assert result.format == "printed_table"
    assert _series(result, "loss") == ([0, 1, 10, 11], [0.6931, 0.512, 0.12, 0.101])
    assert _series(result, "val_loss")[1] == [0.6902, 0.54, 0.38, 0.402]
    assert _roles(result) == {
        "loss": "train_loss",
        "accuracy": "train_score",
        "val_loss": "val_loss",
        "val_accuracy": "val_score",
    }
    assert any("steps are the DataFrame's index" in w.message for w in result.warnings)


def test_a_printed_dataframe_with_a_text_column_is_no_training_history(tmp_path):
    # a comparison of models, one a row: its index counts models, not steps
    text = (
        "      model  loss  accuracy\n0    resnet  0.51     0.910\n1  mobilenet  0.43     0.920\n"
    )
    with pytest.raises(UnknownFormatError):
        load_run(_write(tmp_path, "results.txt", text))


def test_chainer_printreport_rows_keep_their_blank_cells():
    """ESPnet1's `train.log` (Chainer's `PrintReport`): fixed-width columns, the validation's
    cells blank on the rows between evaluations. Split on spaces, such a row had fewer cells
    than the header, which was regrouped to fit it: an elapsed time became a validation score
    and the one row with the validation's values was skipped."""
    path = Path(__file__).parent / "real_excerpts" / "espnet1_printreport_train.log"
    result = load_run(path)
    f = result.frame
    roles = dict(zip(f["metric"], f["role"].astype(str), strict=False))
    assert roles["main/loss"] == "train_loss" and roles["validation/main/loss"] == "val_loss"
    assert roles["main/acc"] == "train_score" and roles["validation/main/acc"] == "val_score"
    assert roles["elapsed_time"] == "other"
    assert f[f["metric"] == "main/loss"]["step"].tolist() == [
        89700,
        89800,
        89900,
        90000,
        90100,
        90200,
    ]
    val = f[f["metric"] == "validation/main/loss"]
    assert val["step"].tolist() == [90000] and val["value"].tolist() == [72.506]


def test_percent_cells_are_the_numbers_printed(tmp_path):
    """A script's markdown table of `| 1 | 0.62 | 71.3% | 0.55 | 74.1% |`: the accuracy
    columns were dropped as text."""
    text = "| Epoch | Train Loss | Train Acc | Val Loss | Val Acc |\n|---|---|---|---|---|\n"
    for e in range(1, 5):
        text += f"| {e} | 0.{70 - e * 5} | {65 + e}.3% | 0.{60 - e * 3} | {68 + e}.1 % |\n"
    result = load_run(_write(tmp_path, "results.md", text))
    f = result.frame
    acc = f[f["metric"] == "Val Acc"].sort_values("step")
    assert acc["value"].tolist() == [69.1, 70.1, 71.1, 72.1]
    assert acc["role"].iloc[0] == "val_score"


def test_a_table_whose_header_an_issue_reply_quotes_is_read(tmp_path):
    """Chainer's PrintReport pasted into an issue reply with its header quoted (`> epoch
    iteration ..`) and the rows below it not: the quote marker hid the header and the file was
    refused."""
    rows = "".join(
        f"{192 + i // 3:<12d}{44500 + 100 * i:<12d}0.0001      {2.1 - i / 100:<12.5f}"
        f"{0.4 - i / 1000:<15.6f}{1.7 - i / 100:<15.5f}\n"
        for i in range(9)
    )
    path = tmp_path / "pasted.txt"
    path.write_text(
        "> epoch       iteration   lr          main/loss   main/loss/loc  main/loss/conf\n" + rows
    )
    result = load_run(path)
    assert result.format == "printed_table"
    loss = result.frame[result.frame["metric"] == "main/loss"]
    assert loss["step"].tolist() == list(range(44500, 45400, 100))
