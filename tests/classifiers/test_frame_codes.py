"""make_frame's string columns from codes + names (a Categorical, or Coded) and the codes it
keeps for them give what the general paths give: the column of pandas' take, and the metric
codes and one-run test RunSeries would find by arrow's dictionary encoding of the rows."""

import gc

import numpy as np
import pandas as pd
import pyarrow.compute as pc
import pytest
from lossforensics.classifiers import frame as frame_module
from lossforensics.classifiers.frame import Coded, coded_strings, make_frame
from lossforensics.classifiers.run import RunSeries, _all_equal

NAMES = ["val/loss", "train/loss", "lr", "é/ünïcode", "", "grad_norm"]


def _fresh(column: pd.Series) -> pd.Series:
    """The same strings in a new arrow array: one make_frame never saw, read the general way."""
    return pd.Series(column.to_numpy(dtype=object), dtype=column.dtype)


def _codes_cases() -> list[tuple[str, np.ndarray, list[str]]]:
    rng = np.random.default_rng(7)
    many = [f"m{i}" for i in range(frame_module._CODED_MAX_NAMES + 3)]
    return [
        ("shuffled", rng.integers(0, len(NAMES), 400), NAMES),
        ("unused names", rng.choice([1, 4], 300), NAMES),  # first appearance != code order
        ("late first", np.r_[np.full(50, 5), np.zeros(50, int), np.full(3, 2)], NAMES),
        ("one row", np.array([3]), NAMES),
        ("one name", np.zeros(40, int), ["loss"]),
        ("one name, no rows", np.zeros(0, int), ["loss"]),
        ("no rows", np.zeros(0, int), NAMES),
        ("many names", rng.integers(0, len(many), 500), many),  # past the kept limit
    ]


@pytest.mark.parametrize("how", ["coded", "categorical"])
@pytest.mark.parametrize(("case", "codes", "names"), _codes_cases())
def test_built_columns_and_kept_codes_match_the_general_paths(how, case, codes, names):
    metric = (
        Coded(codes.astype(np.int32), names)
        if how == "coded"
        else pd.Categorical.from_codes(codes, categories=pd.Index(names))
    )
    n = len(codes)
    frame = make_frame("run", metric, np.arange(n), np.ones(n))
    general = pd.array(np.asarray(names, dtype=object), dtype="string").take(
        codes.astype(np.intp), allow_fill=True
    )
    assert frame["metric"].array.__arrow_array__().equals(general.__arrow_array__())
    assert frame["metric"].dtype == general.dtype
    fast = RunSeries(frame, in_order=True).metric_codes()
    slow = RunSeries(frame.assign(metric=_fresh(frame["metric"])), in_order=True).metric_codes()
    assert fast[0].dtype == slow[0].dtype and np.array_equal(fast[0], slow[0])
    assert fast[1].dtype == slow[1].dtype and fast[1].tolist() == slow[1].tolist()
    if n:
        assert _all_equal(frame["metric"]) == _all_equal(_fresh(frame["metric"]))
        assert _all_equal(frame["run"]) and _all_equal(_fresh(frame["run"]))
    kept = coded_strings(frame["metric"].array.__arrow_array__())
    assert (kept is None) == (len(names) > frame_module._CODED_MAX_NAMES)
    for column in ("run", "metric"):  # both kept codes against arrow's own encoding
        strings = frame[column].array.__arrow_array__()
        kept = coded_strings(strings)
        if kept is not None:
            encoded = pc.dictionary_encode(strings.chunk(0))
            assert np.array_equal(kept[0], encoded.indices.to_numpy().astype(np.intp))
            assert kept[1].tolist() == encoded.dictionary.to_pylist()


def test_runs_by_codes_keep_their_one_run_test():
    runs = Coded(np.array([0, 1, 0], np.int32), ["a", "b"])
    frame = make_frame(runs, Coded(np.zeros(3, np.int32), ["loss"]), np.arange(3), np.ones(3))
    assert not _all_equal(frame["run"]) and not _all_equal(_fresh(frame["run"]))


def test_names_given_twice_are_not_kept_as_codes():
    # arrow's encoding counts one string once: two codes of one name are not what it finds
    frame = make_frame("r", Coded(np.array([0, 1, 0], np.int32), ["a", "a"]), range(3), [1.0] * 3)
    assert coded_strings(frame["metric"].array.__arrow_array__()) is None
    codes, names = RunSeries(frame, in_order=True).metric_codes()
    assert codes.tolist() == [0, 0, 0] and names.tolist() == ["a"]


def test_missing_codes_take_the_general_path_and_are_refused():
    with pytest.raises(Exception, match="missing"):
        make_frame("r", Coded(np.array([0, -1], np.int32), ["a"]), [0, 1], [1.0, 2.0])


def test_kept_codes_go_with_their_column():
    frame = make_frame("r", Coded(np.array([0, 1], np.int32), ["a", "b"]), [0, 1], [1.0, 2.0])
    strings = frame["metric"].array.__arrow_array__()
    assert coded_strings(strings) is not None
    before = len(frame_module._CODED)
    del frame, strings
    gc.collect()
    assert len(frame_module._CODED) < before
