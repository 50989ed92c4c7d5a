"""Logs pasted where they carry a margin: indented in a README code block, commented out in a
.py file or a notebook (`# `, `// `), quoted (`> `). The margin is taken off before a style
looks at the lines, so they read as the same log printed plainly."""

from __future__ import annotations

import io

import pytest
from lossforensics.ingest.console import read_stream, sniff

HF_DICTS = """\
{'loss': 1.8998, 'grad_norm': 21.921875, 'learning_rate': 1.6e-05, 'epoch': 0.4}
{'loss': 0.0, 'grad_norm': nan, 'learning_rate': 1.2e-05, 'epoch': 0.8}
{'loss': 0.0, 'grad_norm': nan, 'learning_rate': 8.0e-06, 'epoch': 1.2}
"""

METRIC_LOGGER = """\
Epoch: [0]  [  0/161]  eta: 0:00:21  loss_g: 2.0557 (2.0557)  loss: 2.0756 (2.0756)  max mem: 0
Epoch: [0]  [ 50/161]  eta: 0:00:06  loss_g: 1.5708 (1.8150)  loss: 0.9937 (1.2820)  max mem: 0
Epoch: [0] Total time: 0:00:08
Epoch: [1]  [  0/161]  eta: 0:00:08  loss_g: 0.9840 (0.9840)  loss: 1.4060 (1.4060)  max mem: 0
Epoch: [1]  [ 50/161]  eta: 0:00:06  loss_g: 0.7299 (0.9327)  loss: 0.7498 (1.0124)  max mem: 0
"""


def _read(text: str):
    return read_stream(io.BytesIO(text.encode()), name="pasted")


def _reading(result):
    f = result.frame.sort_values("seq")
    return result.detail.split(";")[0], {
        m: (g["step"].tolist(), repr(g["value"].tolist()))  # repr: nan equals nan
        for m, g in f.groupby("metric", observed=True)
    }


def _with_margin(text: str, margin: str, around: str = "") -> str:
    lines = [margin + line if line else line for line in text.splitlines()]
    return around + "\n".join(lines) + "\n" + around


@pytest.mark.parametrize("log", [HF_DICTS, METRIC_LOGGER], ids=["hf dicts", "metric logger"])
@pytest.mark.parametrize("margin", ["  ", "    ", "\t", "# ", "#   ", "// ", "> ", ">>> "])
def test_a_log_with_a_margin_reads_as_the_log_without_it(log, margin):
    code = "history = model.fit(x, y, epochs=2)\n"  # before and after it, no margin
    assert _reading(_read(_with_margin(log, margin, code))) == _reading(_read(log))


def test_the_metric_logger_s_total_time_line_is_no_metric():
    assert set(_read(METRIC_LOGGER).frame["metric"]) == {"loss_g", "loss"}


def test_a_commented_log_is_sniffed_as_console(tmp_path):
    path = tmp_path / "train.py.txt"
    path.write_text(_with_margin(HF_DICTS, "# ", "import torch\n"))
    assert sniff(path)


def test_lines_without_the_margin_keep_their_text():
    """Only the margin shared by most lines is taken off: a line indented further keeps the
    rest of its indentation, and a line without the margin is left whole."""
    from lossforensics.ingest.console._margin import find_margin

    lines = ["# Epoch 1/2", "#   12/12 [====]", "# loss: 0.5", "x = 1", "", "#"]
    assert find_margin(lines) == "# "
    assert find_margin(["  a 1", "    b 2", "  c 3", "d 4"]) == "  "
    assert find_margin(["a 1", "  b 2", "c 3"]) == ""
