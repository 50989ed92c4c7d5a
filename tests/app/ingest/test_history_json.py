"""A training history saved as one JSON object: Keras' history.history and pandas' to_json."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
from lossforensics.ingest import history_json, load_run

HISTORY = {
    "loss": [1.0, 0.8, 0.6, 0.5, 0.45],
    "accuracy": [0.5, 0.6, 0.7, 0.75, 0.78],
    "val_loss": [1.1, 0.9, 0.8, 0.82, float("nan")],
}


def _roles(result) -> dict[str, str]:
    return dict(zip(result.frame["metric"], result.frame["role"].astype(str), strict=False))


def test_keras_history_dumped_on_one_line_or_pretty_printed(tmp_path):
    for indent in (None, 4):
        path = tmp_path / "history.json"
        path.write_text(json.dumps(HISTORY, indent=indent))  # NaN as Python's json writes it
        result = load_run(path)
        assert result.format == "history_json"
        assert _roles(result) == {
            "loss": "train_loss",
            "accuracy": "train_score",
            "val_loss": "val_loss",
        }
        val = result.frame[result.frame["metric"] == "val_loss"]
        assert list(val["step"]) == [0, 1, 2, 3, 4] and np.isnan(val["value"].iloc[-1])


def test_pandas_to_json_keeps_its_index_labels_as_steps(tmp_path):
    path = tmp_path / "history.json"
    frame = pd.DataFrame(HISTORY, index=[1, 2, 3, 4, 5])
    frame.to_json(path)
    result = load_run(path)
    loss = result.frame[result.frame["metric"] == "loss"]
    assert list(loss["step"]) == [1, 2, 3, 4, 5] and list(loss["value"]) == HISTORY["loss"]


def test_a_metric_that_is_no_list_of_numbers_is_skipped_with_a_warning(tmp_path):
    path = tmp_path / "history.json"
    path.write_text(json.dumps({**HISTORY, "per_batch": [[0.1, 0.2], [0.3]]}))
    result = load_run(path)
    assert "per_batch" not in set(result.frame["metric"])
    assert any("'per_batch'" in w.message for w in result.warnings)


def test_a_configuration_or_a_labels_file_is_not_a_history(tmp_path):
    config = tmp_path / "config.json"
    config.write_text(json.dumps({"model": {"layers": [1, 2]}, "loss": "mse"}))
    assert not history_json.sniff(config)
    labels = tmp_path / "labels.json"
    labels.write_text(json.dumps({"run_a": {"label": ["overfit"], "loss": [1, 2]}}))
    assert not history_json.sniff(labels)
    # near miss: numbers under keys that name no loss are not taken either
    scores = tmp_path / "scores.json"
    scores.write_text(json.dumps({"accuracy": [0.5, 0.6], "f1": [0.4, 0.5]}))
    assert not history_json.sniff(scores)


def test_a_python_repr_saved_as_a_json_string_or_as_text(tmp_path):
    # json.dump(str(history.history), f): one JSON string holding the dict's repr, nan included
    repr_ = "{'loss': [1.0, 0.8, 0.6], 'val_loss': [1.1, nan, 0.8], 'lr': [0.001, 0.001, inf]}"
    for text in (json.dumps(repr_), repr_):
        path = tmp_path / "model_history.json"
        path.write_text(text)
        result = load_run(path)
        val = result.frame[result.frame["metric"] == "val_loss"]["value"].to_numpy()
        assert val[0] == 1.1 and np.isnan(val[1])
        lr = result.frame[result.frame["metric"] == "lr"]["value"].to_numpy()
        assert np.isinf(lr[-1])


def test_keys_that_are_no_series_may_come_first(tmp_path):
    path = tmp_path / "training_history.json"
    path.write_text(
        json.dumps({"timestamp": "2026-04-18T17:21:59", "backbone": "b0", **HISTORY}, indent=2)
    )
    result = load_run(path)
    assert result.format == "history_json" and "loss" in set(result.frame["metric"])
    assert any("'timestamp'" in w.message for w in result.warnings)


def test_a_history_cut_short_gives_its_complete_lists_and_says_where_it_breaks(tmp_path):
    path = tmp_path / "history.json"
    path.write_text('{"loss": [0.86, 0.6, 0.45, 0.3], "acc": [')
    result = load_run(path)
    assert list(result.frame["value"]) == [0.86, 0.6, 0.45, 0.3]
    (cut,) = [w for w in result.warnings if "cut short" in w.message]
    assert cut.byte == len(path.read_text())


def test_a_history_kept_under_a_metrics_key_is_read_one_level_down(tmp_path):
    """`{"epochs": [...], "metrics": {"loss": [...], "val_loss": [...]}}` with NaN: the nan
    rule then sees the blow-up (the file was refused as no known format)."""
    path = tmp_path / "history.json"
    doc = {
        "epochs": [0.0, 1.0, 2.0, 3.0],
        "metrics": {
            "loss": [3.0, 2.0, float("nan")] + [float("nan")],
            "val_loss": [3.1, 2.2, 2.5, float("nan")],
        },
    }
    path.write_text(json.dumps(doc, indent=2))
    result = load_run(path)
    assert result.format == "history_json"
    roles = _roles(result)
    assert roles["metrics/loss"] == "train_loss" and roles["metrics/val_loss"] == "val_loss"


def test_a_history_per_split_reads_each_splits_loss(tmp_path):
    path = tmp_path / "history.json"
    path.write_text(
        json.dumps({"train": {"loss": [1.0, 0.8, 0.6]}, "val": {"loss": [1.1, 0.9, 1.0]}})
    )
    assert _roles(load_run(path)) == {"train/loss": "train_loss", "val/loss": "val_loss"}


def test_bare_split_keys_of_whole_numbers_are_losses_only_in_a_loss_named_file(tmp_path):
    doc = {"epochs": [1, 2, 3], "train": [3775, 38, 37], "val": [40, 39, 41]}
    named = tmp_path / "loss_history.json"
    named.write_text(json.dumps(doc))
    result = load_run(named)
    assert _roles(result) == {"train": "train_loss", "val": "val_loss"}
    assert list(result.frame["step"].unique()) == [1, 2, 3]  # the epochs list is the axis
    assert any("read as the losses of those splits" in w.message for w in result.warnings)
    other = tmp_path / "splits.json"
    other.write_text(json.dumps(doc))
    assert not history_json.sniff(other)


def test_a_nested_object_keyed_by_run_is_no_history(tmp_path):
    """One level down counts only under a history's key: `{"run_a": {"loss": [...]}}` (a
    labels file) and a settings file's `{"optim": {"loss_weights": [...]}}` are not read."""
    for doc in ({"run_a": {"loss": [0.5, 0.4, 0.3]}}, {"optim": {"loss_weights": [1.0, 0.5, 0.2]}}):
        path = tmp_path / "x.json"
        path.write_text(json.dumps(doc))
        assert not history_json.sniff(path)


def test_an_object_keyed_by_model_holding_two_histories_is_a_run_each(tmp_path):
    """`{"MLP": {"train_loss": [...], ...}, "CNN": {...}}`: two models compared in one file,
    each its own run (read as one, nothing was); one key alone is still no history."""
    mlp = {"train_loss": [0.33, 0.16, 0.12, 0.1], "val_loss": [0.2, 0.15, 0.16, 0.18]}
    cnn = {"train_loss": [0.2, 0.08, 0.05, 0.03], "val_loss": [0.1, 0.06, 0.05, 0.05]}
    path = tmp_path / "results" / "history.json"
    path.parent.mkdir()
    path.write_text(json.dumps({"MLP": mlp, "CNN": {**cnn, "config": {"lr": 1e-3}}}))
    assert history_json.sniff(path)
    result = load_run(path)
    f = result.frame
    assert sorted(f["run"].unique()) == ["results/CNN", "results/MLP"]
    cnn_val = f[(f["run"] == "results/CNN") & (f["metric"] == "val_loss")]
    assert cnn_val["value"].round(2).tolist() == cnn["val_loss"]
    assert any("2 runs read, one a key" in str(w) for w in result.warnings)
    assert sum("'config'" in str(w) for w in result.warnings) == 1


def test_a_list_of_histories_is_a_run_each_and_json_records_are_not_one(tmp_path):
    """`json.dump([h.history for h in fold_histories], f)`: a cross-validation's folds, one
    history each, are a run each, named by position; a list of per-epoch records holds numbers,
    not lists, and is the JSON-records reader's; one history in a list is no comparison."""
    folds = [
        {"loss": [1.0 / (e + k) for e in range(1, 6)], "val_loss": [0.9, 0.7, 0.6, 0.65, 0.7]}
        for k in range(3)
    ]
    path = tmp_path / "cv" / "histories.json"
    path.parent.mkdir()
    path.write_text(json.dumps(folds, indent=2))
    assert history_json.sniff(path)
    result = load_run(path)
    f = result.frame
    assert result.format == "history_json"
    assert sorted(f["run"].unique()) == ["histories/0", "histories/1", "histories/2"]
    second = f[(f["run"] == "histories/1") & (f["metric"] == "loss")].sort_values("step")
    assert second["value"].round(6).tolist() == [round(v, 6) for v in folds[1]["loss"]]
    assert any("3 runs read, one an item of the list" in str(w) for w in result.warnings)
    records = tmp_path / "records.json"
    records.write_text(json.dumps([{"epoch": e, "loss": 1.0 / e} for e in range(1, 6)]))
    assert not history_json.sniff(records)
    one = tmp_path / "one.json"
    one.write_text(json.dumps(folds[:1]))
    assert not history_json.sniff(one)


def test_a_history_printed_after_a_label_is_read_up_to_its_closing_brace(tmp_path):
    """`print("train history:", h.history)` then a final score on the next line: the dict's
    repr after the label is the history; a console line of one printed record is not one."""
    history = {"loss": [1.09, 0.9, 0.8, 0.7], "val_loss": [1.0, 0.95, float("nan"), 0.97]}
    path = tmp_path / "train_history.txt"
    path.write_text(f"train history: {history!r}\n accuracy: 0.761905305191101\n")
    assert history_json.sniff(path)
    result = load_run(path)
    val = result.frame[result.frame["metric"] == "val_loss"]["value"].tolist()
    assert val[:2] == [1.0, 0.95] and np.isnan(val[2]) and len(val) == 4
    assert any("printed after the first line's label" in str(w) for w in result.warnings)
    record = tmp_path / "log.txt"
    record.write_text("epoch 1: {'loss': 0.9, 'val_loss': 1.0}\nepoch 2: {'loss': 0.8}\n")
    assert not history_json.sniff(record)


def test_split_keys_holding_decimals_are_losses_in_any_history(tmp_path):
    path = tmp_path / "history.json"
    path.write_text(json.dumps({"train": [2.71, 2.40, 2.21], "val": [2.60, 2.45, 2.38]}, indent=2))
    assert _roles(load_run(path)) == {"train": "train_loss", "val": "val_loss"}
    ids = tmp_path / "split.json"
    ids.write_text(json.dumps({"train": [3, 17, 42], "val": [5, 8, 13]}))
    assert not history_json.sniff(ids)  # a split's ids are whole numbers


def test_a_step_list_is_the_axis_and_a_shorter_list_spreads_over_the_run(tmp_path):
    """`"steps": [0, 100, ...]` sets the steps of the lists as long; five evaluations beside
    111 training logs sit at the end of each fifth, not on the first five logs."""
    path = tmp_path / "loss_history.json"
    train = list(np.linspace(0.19, 0.03, 111))
    path.write_text(json.dumps({"train_loss": train, "eval_loss": [0.14, 0.19, 0.15, 0.17, 0.18]}))
    result = load_run(path)
    val = result.frame[result.frame["metric"] == "eval_loss"]
    assert list(val["step"]) == [21, 43, 66, 88, 110]
    assert any("fewer values than the longest" in w.message for w in result.warnings)
    stepped = tmp_path / "history.json"
    stepped.write_text(json.dumps({"steps": [0, 100, 200, 300], "loss": [1.0, 0.8, 0.7, 0.65]}))
    result = load_run(stepped)
    assert set(result.frame["metric"]) == {"loss"}
    assert list(result.frame["step"]) == [0, 100, 200, 300]


def test_sacred_metrics_json_keeps_each_metric_s_own_steps(tmp_path):
    """Sacred's FileStorageObserver writes `{"train.loss": {"steps": [...], "timestamps":
    [...], "values": [...]}, ...}`: each metric at the steps it was logged at."""
    doc = {
        "train.loss": {
            "steps": list(range(0, 300, 10)),
            "timestamps": ["2023-01-01T00:00:00.000000"] * 30,
            "values": [2.0 - i / 20 for i in range(30)],
        },
        "val.loss": {
            "steps": [99, 199, 299],
            "timestamps": ["2023-01-01T00:00:00.000000"] * 3,
            "values": [1.5, 1.1, 0.9],
        },
    }
    path = tmp_path / "metrics.json"
    path.write_text(json.dumps(doc, indent=2))
    assert history_json.sniff(path)
    result = load_run(path)
    f = result.frame
    roles = dict(zip(f["metric"], f["role"].astype(str), strict=False))
    assert roles == {"train.loss": "train_loss", "val.loss": "val_loss"}
    val = f[f["metric"] == "val.loss"].sort_values("seq")
    assert val["step"].tolist() == [99, 199, 299] and val["value"].tolist() == [1.5, 1.1, 0.9]
    assert f[f["metric"] == "train.loss"]["step"].max() == 290


def test_a_long_sacred_run_whose_loss_comes_after_the_head(tmp_path):
    """Sacred sorts its metrics by name: a run logging `accuracy` and a gradient statistic for
    2000 steps puts `loss` some 300 KB into the file, past the head the sniff reads, and the
    run was refused."""
    steps = list(range(2000))
    stamps = ["2023-01-01T00:00:00.000000"] * len(steps)

    def series(values):
        return {"steps": steps, "timestamps": stamps, "values": values}

    doc = {
        "accuracy": series([0.5 + i / 5000 for i in steps]),
        "grad_bias_map": series([1.0 / (i + 1) for i in steps]),
        "loss": series([2.0 - i / 2000 for i in steps]),
    }
    path = tmp_path / "metrics.json"
    path.write_text(json.dumps(doc, sort_keys=True, indent=2))
    assert path.read_text().index('"loss"') > 64 * 1024
    result = load_run(path)
    roles = dict(zip(result.frame["metric"], result.frame["role"].astype(str), strict=False))
    assert roles == {"accuracy": "train_score", "grad_bias_map": "other", "loss": "train_loss"}
    assert len(result.frame[result.frame["metric"] == "loss"]) == 2000


def test_numbers_written_as_text_are_numbers(tmp_path):
    """`json.dump(history.history, f, default=str)`, the usual way past NumPy's float32 not
    being JSON serialisable, writes every value as text: `"0.5234"`, `"nan"`."""
    doc = {"loss": [str(np.float32(1 / (i + 1))) for i in range(8)] + ["nan"]}
    doc["val_loss"] = [str(1.1 / (i + 1)) for i in range(9)]
    path = tmp_path / "history.json"
    path.write_text(json.dumps(doc))
    assert history_json.sniff(path)
    f = load_run(path).frame
    loss = f[f["metric"] == "loss"].sort_values("seq")["value"].to_numpy()
    assert len(loss) == 9 and np.isnan(loss[-1])
    np.testing.assert_allclose(loss[:8], [1 / (i + 1) for i in range(8)], rtol=1e-6)


def test_a_boosting_library_s_evals_result_is_one_run_of_its_eval_sets(tmp_path):
    """`json.dump(model.evals_result(), f)`: XGBoost's sklearn API names its eval sets
    `validation_0`, `validation_1`, LightGBM `training` and `valid_1`, XGBoost's native API
    `train` and `eval`; each holds its metrics' lists. One run, a metric a set and metric; an
    error the set minimises (`rmse`) is its loss when it names no loss."""
    curve = [0.69 * np.exp(-i / 30) + 0.2 for i in range(60)]
    docs = {
        "xgb_sklearn.json": (
            {"validation_0": {"logloss": curve}, "validation_1": {"logloss": curve[::-1]}},
            {"validation_0/logloss": "val_loss", "validation_1/logloss": "val_loss"},
        ),
        "lgb.json": (
            {"training": {"binary_logloss": curve}, "valid_1": {"binary_logloss": curve}},
            {"training/binary_logloss": "train_loss", "valid_1/binary_logloss": "val_loss"},
        ),
        "xgb_native.json": (
            {"train": {"rmse": curve}, "eval": {"rmse": curve}},
            {"train/rmse": "train_loss", "eval/rmse": "val_loss"},
        ),
    }
    for name, (doc, roles) in docs.items():
        path = tmp_path / name
        path.write_text(json.dumps(doc))
        assert history_json.sniff(path), name
        result = load_run(path)
        f = result.frame
        assert result.runs == [path.stem], name
        assert dict(zip(f["metric"], f["role"].astype(str), strict=False)) == roles, name
        assert len(f) == 120, name


def test_a_history_under_a_key_that_names_one_beside_the_runs_settings():
    """A script's summary file: the settings (`model_info`, `training_config`), the
    `final_metrics` (one number each) and the Keras history under `training_history`. Only
    the keys `history`, `metrics`, `logs` or a split's name were looked into, so the file was
    refused; a longer key with a history's word is looked into when it holds a history."""
    path = Path(__file__).parent / "real_excerpts" / "history_nested_training_statistics.json"
    result = load_run(path)
    roles = result.frame.groupby("metric", observed=True)["role"].first().astype(str)
    assert roles["training_history/loss"] == "train_loss"
    assert roles["training_history/val_loss"] == "val_loss"
    assert not any(str(m).startswith("final_metrics") for m in roles.index)
    assert (result.frame["metric"] == "training_history/loss").sum() == 25
