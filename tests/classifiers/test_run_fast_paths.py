"""RunSeries' arrow fast paths give what pandas gives: the metric codes of pd.factorize and the
one-run test of split_runs, on arrow and python string columns, with missing names too."""

import numpy as np
import pandas as pd
import pytest
from lossforensics.classifiers.run import RunSeries, _all_equal, split_runs

STORAGES = ("pyarrow", "python")


def _column(values: list, storage: str) -> pd.Series:
    return pd.Series(values, dtype=pd.StringDtype(storage))


@pytest.mark.parametrize("storage", STORAGES)
def test_metric_codes_are_pandas_factorize_in_first_appearance_order(storage):
    rng = np.random.default_rng(3)
    names = ["val/loss", "train/loss", "lr", "é/ünïcode", ""]
    values = [names[i] for i in rng.integers(0, len(names), 500)]
    frame = pd.DataFrame({"run": "r", "metric": _column(values, storage), "seq": np.arange(500)})
    codes, uniques = RunSeries(frame, in_order=True).metric_codes()
    ref_codes, ref_uniques = pd.factorize(frame["metric"], sort=False)
    assert np.array_equal(codes, ref_codes)
    assert list(uniques) == list(np.asarray(ref_uniques, dtype=object))
    assert all(type(u) is str for u in uniques)


@pytest.mark.parametrize("storage", STORAGES)
def test_a_missing_metric_name_keeps_pandas_missing_code(storage):
    metric = _column(["a", None, "b", "a"], storage)
    frame = pd.DataFrame({"run": "r", "metric": metric, "seq": range(4)})
    codes, uniques = RunSeries(frame, in_order=True).metric_codes()
    assert codes.tolist() == [0, -1, 1, 0] and list(uniques) == ["a", "b"]


@pytest.mark.parametrize("storage", STORAGES)
@pytest.mark.parametrize(
    ("runs", "same"),
    [(["a"], True), (["a", "a", "a"], True), (["a", "b", "a"], False), (["a", None], False)],
)
def test_one_run_is_found_as_pandas_compares(storage, runs, same):
    column = _column(runs, storage)
    assert _all_equal(column) is same
    assert same == bool((column == column.iat[0]).to_numpy(dtype=bool, na_value=False).all())


def test_a_frame_of_one_run_is_taken_whole():
    frame = pd.DataFrame({"run": _column(["r"] * 3, "pyarrow"), "seq": range(3)})
    runs = split_runs(frame)
    assert len(runs) == 1 and runs[0].frame is frame
