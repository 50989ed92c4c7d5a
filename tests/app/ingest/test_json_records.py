"""Per-epoch records saved as one JSON document: a list of them, or a list under one key."""

from __future__ import annotations

import json

import pytest
from lossforensics.classifiers.errors import InputError
from lossforensics.ingest import detect_format, load_run

HISTORY = [
    {"epoch": e, "train_loss": t, "val_loss": v, "val_accuracy": a}
    for e, t, v, a in [
        (1, 22.73, 10.99, 0.41),
        (2, 14.09, 9.70, 0.52),
        (3, 9.51, 9.12, 0.58),
        (4, 6.20, 9.35, 0.59),
    ]
]


def _points(frame, metric):
    rows = frame[frame["metric"] == metric].sort_values("seq")
    return list(zip(rows["step"], rows["value"], strict=True))


def _roles(result) -> dict[str, str]:
    return dict(zip(result.frame["metric"], result.frame["role"].astype(str), strict=False))


def test_a_pretty_printed_list_of_epoch_records_is_read_by_epoch(tmp_path):
    path = tmp_path / "train_history.json"
    path.write_text(json.dumps(HISTORY, indent=2))
    result = load_run(path)
    assert result.format == "jsonl" and result.source["detail"] == "a JSON list of records"
    assert _points(result.frame, "val_loss") == [(1, 10.99), (2, 9.70), (3, 9.12), (4, 9.35)]
    assert _roles(result) == {
        "train_loss": "train_loss",
        "val_loss": "val_loss",
        "val_accuracy": "val_score",
    }


def test_records_kept_under_a_key_beside_the_settings_are_read(tmp_path):
    path = tmp_path / "training_log.json"
    doc = {"seed": 42, "config": {"lr": 3e-4, "epochs": 4}, "history": HISTORY}
    path.write_text(json.dumps(doc, indent=2))
    result = load_run(path)
    assert result.source["detail"] == "the records under 'history'"
    assert _points(result.frame, "train_loss")[-1] == (4, 6.20)
    assert {"seed", "config/lr", "lr"}.isdisjoint(result.frame["metric"])


def test_a_bad_value_is_warned_about_at_the_line_its_record_opens_on(tmp_path):
    path = tmp_path / "history.json"
    records = [dict(r) for r in HISTORY]
    records[2]["val_loss"] = "n/a"
    records[3]["val_loss"] = float("nan")
    path.write_text(json.dumps(records, indent=2))  # NaN written as the token NaN
    result = load_run(path)
    warning = next(w for w in result.warnings if "non-numeric" in w.message)
    assert warning.line == 1 + 2 * 6 + 1  # `[`, two records of 6 lines, then the third's `{`
    val = _points(result.frame, "val_loss")
    assert [s for s, _ in val] == [1, 2, 4] and val[-1][1] != val[-1][1]  # NaN kept


@pytest.mark.parametrize(
    "doc",
    [
        [{"name": "resnet", "depth": 50}, {"name": "vit", "depth": 12}],  # no loss: a config list
        {"runs": [{"id": 1, "acc": 0.9}], "loss_fn": "ce"},  # no loss-logging records
    ],
)
def test_a_json_document_without_loss_records_is_not_claimed(tmp_path, doc):
    path = tmp_path / "data.json"
    path.write_text(json.dumps(doc, indent=2))
    with pytest.raises(InputError):
        detect_format(path)


def test_records_one_level_down_are_found(tmp_path):
    """PEFT's method comparison results keep the run's records under `train_info.metrics`,
    beside `run_info` and `meta_info`: the document was refused ("no list of records")."""
    metrics = [
        {"step": s, "valid accuracy": 0.1 + s / 10000, "train loss": 1 / (1 + s / 1000)}
        for s in range(250, 5250, 250)
    ]
    doc = {
        "run_info": {"created_at": "2025-03-05T12:00:00", "experiment_name": "ptuning"},
        "train_info": {"train_time": 1234.5, "status": "success", "metrics": metrics},
        "meta_info": {"package_info": {"peft-version": "0.15.0"}},
    }
    path = tmp_path / "ptuning--llama-3.2-3B.json"
    path.write_text(json.dumps(doc, indent=2))
    result = load_run(path)
    f = result.frame
    roles = dict(zip(f["metric"], f["role"].astype(str), strict=False))
    assert roles == {"valid accuracy": "val_score", "train loss": "train_loss"}
    assert list(f[f["metric"] == "train loss"]["step"]) == list(range(250, 5250, 250))


@pytest.mark.parametrize(
    ("doc", "where"),
    [
        (HISTORY, "a JSON list of records"),  # Chainer's `log`, `json.dump(history, f)`
        ({"seed": 42, "history": HISTORY}, "the records under 'history'"),
    ],
)
def test_a_document_cut_short_gives_its_complete_records_and_says_where(tmp_path, doc, where):
    """A script that rewrites its whole list of records every epoch, killed mid-write, leaves
    the list open and its last record cut (as does a copy of a log's first part): the file was
    refused as not valid JSON, losing every record before the break."""
    text = json.dumps(doc, indent=2)
    cut = text.index('"val_loss": 9.35')  # inside the fourth record
    path = tmp_path / "log.json"
    path.write_text(text[:cut])
    result = load_run(path)
    assert result.source["detail"] == where
    assert _points(result.frame, "val_loss") == [(1, 10.99), (2, 9.70), (3, 9.12)]
    warning = next(w for w in result.warnings if "cut short" in w.message)
    assert "3 complete record(s)" in warning.message
    assert warning.line == text[:cut].count("\n") + 1 and warning.byte == cut


def test_a_document_cut_before_its_first_whole_record_is_refused_where_it_breaks(tmp_path):
    path = tmp_path / "log.json"
    path.write_text('[\n  {"epoch": 1, "loss": 0.')
    with pytest.raises(InputError) as err:
        load_run(path)
    assert err.value.line == 2 and "not valid JSON" in str(err.value)
