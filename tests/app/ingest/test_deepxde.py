"""DeepXDE's `loss.dat`: the step, k loss terms on the training points, the same k on the test
points and the test metrics, under a header that names four columns whatever k is."""

from pathlib import Path

import numpy as np
import pytest
from lossforensics.discover import discover_runs
from lossforensics.ingest import load_run

REAL = Path(__file__).parent / "real_excerpts" / "deepxde_burgers" / "loss.dat"
HEADER = "# step, loss_train, loss_test, metrics_test\n"


def _row(*values: float) -> str:
    return " ".join(f"{v:.18e}" for v in values) + "\n"


def test_a_real_burgers_run_sums_its_terms_into_the_train_and_test_losses():
    result = load_run(REAL)
    f = result.frame
    assert result.format == "deepxde"
    roles = dict(zip(f["metric"], f["role"].astype(str), strict=False))
    assert roles["loss_train"] == "train_loss" and roles["loss_test"] == "val_loss"
    assert roles["loss_train/term3"] == "other"
    train = f[f["metric"] == "loss_train"]
    assert list(train["step"]) == list(range(0, 15001, 1000))
    first = np.loadtxt(REAL)[0]
    assert train["value"].iloc[0] == pytest.approx(first[1:4].sum())
    assert any("3 training loss term(s)" in w.message for w in result.warnings)


def test_a_test_metric_and_the_lbfgs_phase_after_adam(tmp_path):
    """`metrics=["l2 relative error"]` adds one column (an odd count after the step); L-BFGS
    starts at Adam's last step, printed again."""
    text = HEADER
    for step, scale in ((0, 1.0), (1000, 0.5), (2000, 0.2), (2000, 0.2), (3000, 0.05)):
        text += _row(step, 0.3 * scale, 0.1 * scale, 0.35 * scale, 0.12 * scale, 0.9 * scale)
    path = tmp_path / "loss.dat"
    path.write_text(text)
    f = load_run(path).frame
    roles = dict(zip(f["metric"], f["role"].astype(str), strict=False))
    assert roles == {
        "loss_train": "train_loss",
        "loss_test": "val_loss",
        "loss_train/term1": "other",
        "loss_train/term2": "other",
        "loss_test/term1": "other",
        "loss_test/term2": "other",
        "metrics_test": "other",
    }
    test = f[f["metric"] == "loss_test"]
    assert test["value"].round(6).tolist() == [0.47, 0.235, 0.094, 0.094, 0.0235]
    assert set(f["segment"]) == {0}


def test_a_bad_row_is_skipped_with_its_line(tmp_path):
    path = tmp_path / "loss.dat"
    path.write_text(HEADER + _row(0, 1.0, 1.1) + "1000 0.5\n" + _row(2000, 0.4, 0.45))
    result = load_run(path)
    assert len(result.frame[result.frame["metric"] == "loss_train"]) == 2
    assert any(w.line == 3 for w in result.warnings)


def test_a_deepxde_folder_is_found_beside_its_data_files(tmp_path):
    """`saveplot` writes `train.dat` and `test.dat` (the points and predictions) beside
    `loss.dat`: the folder is one run, read from its loss history."""
    (tmp_path / "loss.dat").write_text(REAL.read_text())
    (tmp_path / "test.dat").write_text("# x, y_pred\n" + _row(1.0, 0.65, 0.003) * 5)
    found = discover_runs(tmp_path)
    assert [s.format for s in found.sources] == ["deepxde"]


def _console(rows: list[tuple[int, list[float], list[float], list[float]]], header: bool) -> str:
    """`model.train`'s console output, as pasted into an issue."""
    text = "Compiling model...\n'compile' took 0.000285 s\n\nTraining model...\n\n"
    if header:
        text += "Step      Train loss              Test loss               Test metric\n"
    for step, train, test, metric in rows:
        lists = [", ".join(f"{v:.2e}" for v in part) for part in (train, test, metric)]
        text += f"{step:<10d}" + "    ".join(f"[{part}]" for part in lists) + "  \n"
    text += "\nBest model at step 4000:\n  train loss: 1.23e-04\n  test loss: 1.30e-04\n"
    return text + "  test metric: []\n\n'train' took 12.1 s\n"


def test_the_console_table_reads_like_loss_dat(tmp_path):
    rows = [
        (s, [1.0 / (s + 1), 0.5 / (s + 1)], [1.1 / (s + 1), 0.6 / (s + 1)], [0.1 / (s + 1)])
        for s in range(0, 5000, 1000)
    ]
    for header in (True, False):
        path = tmp_path / f"pasted_{header}.txt"
        path.write_text(_console(rows, header))
        result = load_run(path)
        f = result.frame
        assert result.format == "deepxde"
        roles = dict(zip(f["metric"], f["role"].astype(str), strict=False))
        assert roles["loss_train"] == "train_loss" and roles["loss_test"] == "val_loss"
        assert roles["metrics_test"] == "other"
        train = f[f["metric"] == "loss_train"].sort_values("seq")
        assert train["step"].tolist() == [0, 1000, 2000, 3000, 4000]
        assert train["value"].iloc[0] == pytest.approx(1.5)


def test_test_terms_printed_zero_at_every_row_make_no_validation_loss(tmp_path):
    """Older DeepXDE kept only the PDE residual on the test points and printed its boundary
    terms as 0: the test sum measures less than the training sum, so it is no validation loss
    (the gap between them read as overfitting)."""
    rows = [
        (s, [1e-5 * (s + 1), 7.0 / (s + 1)], [1e-5 * (s + 1), 0.0], [])
        for s in range(0, 6000, 1000)
    ]
    path = tmp_path / "pasted.log"
    path.write_text(_console(rows, header=False))
    result = load_run(path)
    roles = dict(zip(result.frame["metric"], result.frame["role"].astype(str), strict=False))
    assert roles["loss_train"] == "train_loss" and roles["loss_test"] == "other"
    assert any("printed 0 at every row" in w.message for w in result.warnings)
