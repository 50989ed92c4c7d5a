"""A row's split, read the same way from a JSON line's `mode` key and a table's split column."""

from __future__ import annotations

import json

from lossforensics.ingest import load_run


def _roles(result) -> dict[str, str]:
    frame = result.frame
    return dict(zip(frame["metric"], frame["role"].astype(str), strict=False))


def test_split_words_are_read_whatever_their_case_in_json_lines(tmp_path):
    """`"mode": "Train"` / `"Val"`: the train lines keep their names, the val lines' loss is
    the held-out loss, under the split's lowercased name."""
    path = tmp_path / "log.jsonl"
    lines = []
    for e in range(1, 5):
        lines.append({"mode": "Train", "epoch": e, "loss": 1.0 / e, "lr": 0.01})
        lines.append({"mode": "Val", "epoch": e, "loss": 1.1 / e + 0.05, "lr": 0.01})
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    roles = _roles(load_run(path))
    assert roles == {"loss": "train_loss", "lr": "lr", "val/loss": "val_loss"}


def test_a_table_split_column_is_read_whatever_its_case(tmp_path):
    path = tmp_path / "history.csv"
    rows = ["epoch,Split,loss"]
    for e in range(1, 4):
        rows += [f"{e},TRAIN,{0.9 / e:.3f}", f"{e},Valid,{1.0 / e + 0.1:.3f}"]
    path.write_text("\n".join(rows) + "\n")
    result = load_run(path)
    assert _roles(result) == {"loss": "train_loss", "valid/loss": "val_loss"}
    train = result.frame[result.frame["metric"] == "loss"]
    assert list(train["value"]) == [0.9, 0.45, 0.3]


def test_a_type_column_naming_no_split_is_not_read_as_one(tmp_path):
    """`type` holding model names is no split column: the rows are not renamed under it."""
    path = tmp_path / "history.csv"
    rows = ["epoch,type,loss"] + [f"{e},resnet,{0.9 / e:.3f}" for e in range(1, 5)]
    path.write_text("\n".join(rows) + "\n")
    result = load_run(path)
    assert set(result.frame["metric"]) == {"loss"}
    loss = result.frame[result.frame["metric"] == "loss"]
    assert list(loss["step"]) == [1, 2, 3, 4]
