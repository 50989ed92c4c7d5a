"""Jupyter notebooks: the code cells' printed output, decoded from the JSON, read as console."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from lossforensics import diagnose
from lossforensics.classifiers.errors import UnknownFormatError
from lossforensics.discover import discover_runs
from lossforensics.ingest import load_run
from lossforensics.ingest.detect import detect_format

TRAIN = [1.66, 1.31, 1.04, 0.84, 0.68, 0.56, 0.45, 0.37, 0.31, 0.26]
# the validation loss bottoms out at epoch 4 and climbs: an overfit run
VAL = [1.60, 1.32, 1.15, 1.10, 1.13, 1.21, 1.30, 1.41, 1.52, 1.66]


def _keras_output() -> list[str]:
    """Keras `fit(verbose=1)` as a notebook stores it: each epoch's bar redrawn with carriage
    returns and backspaces inside one stream string."""
    lines = []
    for e, (t, v) in enumerate(zip(TRAIN, VAL, strict=True), 1):
        lines.append(f"Epoch {e}/10\n")
        lines.append(
            f"\r 1/50 [..............................] - ETA: 5s - loss: {t + 0.3:.4f}\b\b\b\b"
            f"\r50/50 [==============================] - 2s 40ms/step - loss: {t:.4f} - "
            f"val_loss: {v:.4f}\n"
        )
    return lines


def _notebook(outputs: list[dict], *, colab: bool = False) -> dict:
    cells = [
        {"cell_type": "markdown", "metadata": {}, "source": ["# Training\n"]},
        {"cell_type": "code", "execution_count": 1, "metadata": {}, "outputs": [], "source": []},
        {
            "cell_type": "code",
            "execution_count": 2,
            "metadata": {},
            "outputs": outputs,
            "source": ["history = model.fit(x, y, epochs=10, validation_split=0.2)\n"],
        },
    ]
    if colab:  # Colab writes nbformat first
        return {"nbformat": 4, "nbformat_minor": 0, "metadata": {}, "cells": cells}
    return {"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}


_STREAM = {"name": "stdout", "output_type": "stream", "text": _keras_output()}
_RESULT = {
    "data": {"text/plain": ["<keras.callbacks.History at 0x7f>"], "image/png": "iVBORw0KGgo="},
    "execution_count": 2,
    "metadata": {},
    "output_type": "execute_result",
}


@pytest.mark.parametrize("colab", [False, True])
def test_a_keras_fit_printed_in_a_notebook_is_read_epoch_by_epoch(tmp_path, colab):
    path = tmp_path / "train.ipynb"
    path.write_text(json.dumps(_notebook([_STREAM, _RESULT], colab=colab), indent=1))
    assert detect_format(path) == "notebook"
    result = load_run(path)
    assert result.format == "notebook" and "keras verbose 1" in result.detail
    loss = result.frame[result.frame["metric"] == "loss"]
    assert list(loss["step"]) == list(range(1, 11))  # the redraws collapsed to each epoch's end
    assert list(loss["value"]) == TRAIN
    assert diagnose(result.frame).verdict == "overfit"


def test_the_outputs_of_several_cells_are_read_in_order(tmp_path):
    first = {"name": "stdout", "output_type": "stream", "text": _keras_output()[:10]}
    rest = {"name": "stdout", "output_type": "stream", "text": "".join(_keras_output()[10:])}
    nb = _notebook([first])
    nb["cells"].append({**nb["cells"][2], "outputs": [rest]})
    path = tmp_path / "train.ipynb"
    path.write_text(json.dumps(nb))
    loss = load_run(path).frame.query("metric == 'loss'")
    assert list(loss["value"]) == TRAIN


def test_a_notebook_that_printed_no_training_is_refused_with_a_reason(tmp_path):
    path = tmp_path / "eda.ipynb"
    said = {"name": "stdout", "output_type": "stream", "text": ["shape: (60000, 28, 28)\n"]}
    path.write_text(json.dumps(_notebook([said, _RESULT])))
    with pytest.raises(UnknownFormatError, match="no training metrics recognised"):
        load_run(path, format="notebook")


def test_a_folder_with_a_notebook_is_found_and_a_structured_log_beside_it_wins(tmp_path):
    run = tmp_path / "exp1"
    run.mkdir()
    (run / "train.ipynb").write_text(json.dumps(_notebook([_STREAM])))
    assert [(s.name, s.format) for s in discover_runs(tmp_path).sources] == [("exp1", "notebook")]
    rows = "".join(f"{e},{t},{v}\n" for e, (t, v) in enumerate(zip(TRAIN, VAL, strict=True)))
    (run / "training.log").write_text("epoch,loss,val_loss\n" + rows)
    assert load_run(run).format == "keras_csv"


def test_a_notebook_cut_short_gives_the_epochs_printed_before_the_cut_and_says_where(tmp_path):
    whole = json.dumps(_notebook([_STREAM]), indent=1)
    cut = whole.index("Epoch 7/10")  # inside the cell's output: epochs 1-6 are whole
    path = tmp_path / "train.ipynb"
    path.write_text(whole[:cut])
    result = load_run(path)
    assert result.format == "notebook"
    assert list(result.frame.query("metric == 'loss'")["value"]) == TRAIN[:6]
    note = result.warnings[0]
    # the place named is the start of the string the cut left open
    assert "breaks here" in note.message and note.byte == cut - 1


def _history_frame() -> dict:
    """`pd.DataFrame(history.history)` shown as a cell's result, its text as Jupyter keeps it."""
    rows = [f"{e:<3} {t:.6f}  {v:.6f}\n" for e, (t, v) in enumerate(zip(TRAIN, VAL, strict=True))]
    return {
        "data": {
            "text/plain": ["        loss  val_loss\n", *rows],
            "text/html": ["<div>...</div>"],
        },
        "execution_count": 3,
        "metadata": {},
        "output_type": "execute_result",
    }


def test_a_silent_fit_s_history_shown_as_a_dataframe_is_read(tmp_path):
    # fit(..., verbose=0) prints nothing; the history the cell displays is the record left
    path = tmp_path / "train.ipynb"
    path.write_text(json.dumps(_notebook([_RESULT, _history_frame()]), indent=1))
    assert detect_format(path) == "notebook"
    result = load_run(path)
    assert result.format == "notebook" and "the results its cells displayed" in result.detail
    loss = result.frame[result.frame["metric"] == "val_loss"]
    assert list(loss["step"]) == list(range(10)) and list(loss["value"]) == VAL
    assert diagnose(result.frame).verdict == "overfit"


def test_printed_training_wins_over_a_displayed_dataframe(tmp_path):
    path = tmp_path / "train.ipynb"
    path.write_text(json.dumps(_notebook([_STREAM, _history_frame()])))
    assert "keras verbose 1" in load_run(path).detail


def test_a_notebook_saved_on_one_line_that_printed_no_training_is_not_read_as_jsonl(tmp_path):
    # one JSON object on one line looks like a JSONL record: its `nbformat` is no metric
    path = tmp_path / "eda.ipynb"
    said = {"name": "stdout", "output_type": "stream", "text": ["shape: (60000, 28, 28)\n"]}
    path.write_text(json.dumps(_notebook([said, _RESULT])))
    assert "\n" not in path.read_text()
    with pytest.raises(UnknownFormatError, match="no reader recognises"):
        load_run(path)


def test_a_fit_table_printed_to_stdout_is_read_from_a_real_notebook():
    """skorch's MNIST example (a real notebook): each `fit` prints its PrintLog table to stdout
    with colour codes, `epoch  train_loss  valid_acc  valid_loss  dur`; no console style reads a
    table, so the notebook was refused. Two fits: two runs."""
    path = Path(__file__).parent / "real_excerpts" / "skorch_mnist.ipynb"
    result = load_run(path)
    assert result.format == "notebook" and "the table printed by" in result.detail
    f = result.frame
    assert sorted(set(f["run"])) == ["skorch_mnist (table 1)", "skorch_mnist (table 2)"]
    roles = dict(zip(f["metric"], f["role"].astype(str), strict=False))
    assert roles["train_loss"] == "train_loss" and roles["valid_loss"] == "val_loss"
    assert roles["valid_acc"] == "val_score"
    first = f[(f["run"] == "skorch_mnist (table 1)") & (f["metric"] == "valid_loss")]
    assert list(first["step"]) == list(range(1, 21))


def _trainer_progress_table() -> dict:
    """The HF Trainer's NotebookProgressCallback output as a saved notebook keeps it: the
    progress bar and the metrics table only as HTML, IPython's placeholder as the plain text."""
    head = "".join(f"      <th>{h}</th>\n" for h in ("Epoch", "Training Loss", "Validation Loss"))
    head += "      <th>Accuracy</th>\n"
    rows = ""
    for e, (t, v) in enumerate(zip(TRAIN, VAL, strict=True), start=1):
        shown = "No log" if e == 1 else f"{t:.6f}"
        cells = (e, shown, f"{v:.6f}", f"{0.5 + e / 40:.6f}")
        rows += "    <tr>\n" + "".join(f"      <td>{c}</td>\n" for c in cells) + "    </tr>\n"
    html = (
        "\n    <div>\n      \n      <progress value='500' max='500' style='width:300px; "
        "height:20px; vertical-align: middle;'></progress>\n      [500/500 01:23, Epoch 10/10]\n"
        '    </div>\n    <table border="1" class="dataframe">\n  <thead>\n'
        ' <tr style="text-align: left;">\n'
        + head
        + "    </tr>\n  </thead>\n  <tbody>\n"
        + rows
        + "  </tbody>\n</table><p>"
    )
    return {
        "data": {"text/html": [html], "text/plain": ["<IPython.core.display.HTML object>"]},
        "metadata": {},
        "output_type": "display_data",
    }


def test_the_trainers_progress_table_kept_only_as_html_is_read(tmp_path):
    """`trainer.train()` in Jupyter, Colab or Kaggle shows its metrics as an HTML table whose
    plain text is IPython's placeholder: the notebook was refused."""
    path = tmp_path / "finetune.ipynb"
    path.write_text(json.dumps(_notebook([_trainer_progress_table()])))
    result = load_run(path)
    assert result.format == "notebook" and "the results its cells displayed" in result.detail
    f = result.frame
    roles = dict(zip(f["metric"], f["role"].astype(str), strict=False))
    assert roles == {
        "Training Loss": "train_loss",
        "Validation Loss": "val_loss",
        "Accuracy": "val_score",
    }
    val = f[f["metric"] == "Validation Loss"]
    assert list(val["step"]) == list(range(1, 11)) and list(val["value"].round(2)) == VAL
    assert (f["metric"] == "Training Loss").sum() == 9  # `No log` is no value
    assert diagnose(result.frame).verdict == "overfit"
