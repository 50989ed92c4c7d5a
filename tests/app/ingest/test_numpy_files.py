"""NumPy's own files: `np.save("train_loss.npy", losses)` and `np.savez("history.npz", ...)`,
read without ever unpickling, within the read limits, and what a cut or odd array gives."""

from __future__ import annotations

import numpy as np
import pytest
from lossforensics.classifiers.diagnose import diagnose
from lossforensics.classifiers.errors import LimitExceededError, UnknownFormatError
from lossforensics.discover import discover_runs
from lossforensics.ingest import detect_format, load_run
from lossforensics.ingest._limits import reading_with

LOSS = np.exp(-np.arange(60) / 12.0) + 0.1


def _roles(result) -> dict[str, str]:
    return dict(zip(result.frame["metric"], result.frame["role"].astype(str), strict=False))


def _values(result, metric: str) -> tuple[list[int], np.ndarray]:
    part = result.frame[result.frame["metric"] == metric].sort_values("seq")
    return part["step"].tolist(), part["value"].to_numpy()


def test_a_saved_loss_array_is_that_loss_at_its_positions(tmp_path):
    path = tmp_path / "train_losses.npy"
    np.save(path, LOSS.astype(np.float32))
    result = load_run(path)
    assert result.format == "series_file"
    assert _roles(result) == {"train_losses": "train_loss"}
    steps, values = _values(result, "train_losses")
    assert steps == list(range(60))
    np.testing.assert_allclose(values, LOSS.astype(np.float32))


def test_a_folder_of_train_and_val_arrays_is_one_run_that_can_overfit(tmp_path):
    """`np.save` of each split's curve beside the other: one run, diagnosed from both."""
    val = np.r_[LOSS[:20] + 0.05, LOSS[19] + 0.05 + np.linspace(0.0, 0.6, 40)]
    np.save(tmp_path / "train_loss.npy", LOSS)
    np.save(tmp_path / "val_loss.npy", val[:, None])  # a column vector reads the same
    result = load_run(tmp_path)
    assert _roles(result) == {"train_loss": "train_loss", "val_loss": "val_loss"}
    assert diagnose(result.frame).verdict == "overfit"
    assert [s.format for s in discover_runs(tmp_path).sources] == ["series_file"]


def test_rows_of_a_counter_and_two_values_are_the_train_and_val_losses(tmp_path):
    path = tmp_path / "loss_history.npy"
    np.save(path, np.c_[np.arange(100, 6100, 100), LOSS, LOSS + 0.2])
    result = load_run(path)
    assert _roles(result) == {"loss_history/train": "train_loss", "loss_history/val": "val_loss"}
    steps, values = _values(result, "loss_history/val")
    assert steps == list(range(100, 6100, 100))
    np.testing.assert_allclose(values, LOSS + 0.2)


def test_an_npz_history_is_read_like_a_history_dict(tmp_path):
    """`np.savez(f, **history)`: each array a metric by its name; a validation curve logged
    once every 10 steps is spread over the run as the history reader spreads a shorter list;
    an array of more than one column is left out with a warning."""
    path = tmp_path / "history.npz"
    np.savez(path, loss=LOSS, val_loss=LOSS[9::10] + 0.05, accuracy=1 - LOSS, grid=np.eye(3))
    assert detect_format(path) == "history_json"
    result = load_run(path)
    assert _roles(result) == {
        "loss": "train_loss",
        "val_loss": "val_loss",
        "accuracy": "train_score",
    }
    steps, _ = _values(result, "val_loss")
    assert len(steps) == 6 and steps[-1] == 59
    assert any("'grid'" in w.message for w in result.warnings)
    assert [s.format for s in discover_runs(tmp_path).sources] == ["history_json"]


class _Trap:
    """An object whose unpickling would leave a file behind."""

    def __init__(self, marker: str) -> None:
        self.marker = marker

    def __reduce__(self):
        return (open, (self.marker, "w"))


def test_an_array_of_objects_is_never_unpickled(tmp_path):
    marker = tmp_path / "unpickled"
    path = tmp_path / "train_loss.npy"
    np.save(path, np.array([_Trap(str(marker))] * 4, dtype=object), allow_pickle=True)
    with pytest.raises(UnknownFormatError, match="holds Python objects"):
        load_run(path)
    assert not marker.exists()
    for opened in np.load(path, allow_pickle=True):  # the trap is real: unpickling springs it
        opened.close()
    assert marker.exists()


def test_an_array_cut_short_gives_its_whole_values_and_the_byte(tmp_path):
    path = tmp_path / "train_loss.npy"
    np.save(path, LOSS)
    data = path.read_bytes()
    header = len(data) - LOSS.nbytes
    path.write_bytes(data[: header + 8 * 25 + 3])  # 25 whole values and 3 bytes of the next
    result = load_run(path)
    _, values = _values(result, "train_loss")
    np.testing.assert_allclose(values, LOSS[:25])
    cut = [w for w in result.warnings if "cut short" in w.message]
    assert cut and cut[0].byte == header + 8 * 25 + 3


def test_a_declared_shape_over_the_limit_is_refused_before_it_is_read(tmp_path):
    path = tmp_path / "history.npz"
    np.savez_compressed(path, loss=np.zeros(50_000))  # a few hundred bytes compressed
    with reading_with(max_points=10_000), pytest.raises(LimitExceededError, match="50000"):
        load_run(path)
    path = tmp_path / "train_loss.npy"
    np.save(path, np.zeros(50_000))
    with reading_with(max_points=10_000), pytest.raises(LimitExceededError, match="50000"):
        load_run(path)


def test_an_array_whose_name_names_no_loss_says_what_to_name_it(tmp_path):
    path = tmp_path / "results.npy"
    np.save(path, LOSS)
    with pytest.raises(UnknownFormatError, match="file name must name the loss"):
        load_run(path)


@pytest.mark.parametrize(
    ("name", "delimiter", "fmt"),
    # an `epoch` column beside losses is the Keras CSVLogger's shape: that reader takes it
    [("history.csv", ",", "keras_csv"), ("history.txt", " ", "printed_table")],
)
def test_savetxt_with_a_header_names_its_columns_from_the_comment(tmp_path, name, delimiter, fmt):
    """`np.savetxt(f, rows, delimiter=..., header="epoch,train_loss,val_loss")` writes the names
    on a comment line (`# epoch,train_loss,val_loss`) above rows of numbers only."""
    path = tmp_path / name
    rows = np.column_stack([np.arange(1, 61), LOSS, LOSS + 0.1])
    header = delimiter.join(["epoch", "train_loss", "val_loss"])
    np.savetxt(path, rows, delimiter=delimiter, header=header)
    result = load_run(path)
    assert result.format == fmt
    assert _roles(result) == {"train_loss": "train_loss", "val_loss": "val_loss"}
    steps, values = _values(result, "val_loss")
    assert steps == list(range(1, 61))
    np.testing.assert_allclose(values, LOSS + 0.1)
