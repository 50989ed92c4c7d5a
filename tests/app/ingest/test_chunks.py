"""Readers stream: with tiny chunks and blocks the result is the same frame, and line numbers
and byte offsets still point at the right place across chunk boundaries."""

from __future__ import annotations

import json

import pandas as pd
import pytest
from lossforensics.ingest import _csv, _jsonlines, jsonl, keras_csv, load_run, wandb_csv
from lossforensics.ingest._values import _NAN_TOKENS, _nan_tokens, text_cells


@pytest.fixture
def tiny_chunks(monkeypatch):
    monkeypatch.setattr(_jsonlines, "CHUNK_LINES", 7)
    monkeypatch.setattr(_jsonlines, "_BLOCK_BYTES", 64)
    monkeypatch.setattr(_csv, "CHUNK_ROWS", 3)


def _lines(n: int) -> list[str]:
    out = []
    for i in range(n):
        rec = {"step": i * 10, "loss": 1.0 / (i + 1)}
        if i % 4 == 0:
            rec["val_loss"] = 2.0 / (i + 1)
        if i % 9 == 3:
            rec = {"val_loss": float(i)}  # no step: takes the previous line's
        out.append(json.dumps(rec))
    return out


def test_jsonl_same_frame_with_tiny_chunks(tmp_path, monkeypatch, real_runs):
    path = tmp_path / "run.jsonl"
    path.write_text("\n".join(_lines(200)) + "\n")
    for src in (path, real_runs / "jsonl_detectron2_medwaste_lr_step" / "metrics.json"):
        whole = jsonl.read(src)
        with monkeypatch.context() as m:
            m.setattr(_jsonlines, "CHUNK_LINES", 7)
            m.setattr(_jsonlines, "_BLOCK_BYTES", 64)
            chunked = jsonl.read(src)
        pd.testing.assert_frame_equal(whole.frame, chunked.frame)
        assert [str(w) for w in whole.warnings] == [str(w) for w in chunked.warnings]


def test_jsonl_bad_lines_located_across_blocks(tmp_path, tiny_chunks):
    lines = _lines(60)
    lines[33] = '{"step": 330, "loss": oops}'
    lines[47] = "\x00\x01 binary junk"
    text = "\n".join(lines) + "\n" + '{"step": 9'  # and a cut last line
    path = tmp_path / "run.jsonl"
    path.write_bytes(text.encode())
    result = jsonl.read(path)
    data = path.read_bytes()
    located = {(w.line, w.byte) for w in result.warnings if w.byte is not None}
    expected = set()
    for number in (34, 48, 61):
        byte = sum(len(ln) + 1 for ln in text.split("\n")[: number - 1])
        expected.add((number, byte))
        assert data[byte:].startswith(text.split("\n")[number - 1].encode())
    assert located == expected
    assert len(result.frame[result.frame["metric"] == "loss"]) == 58 - 7  # 60 - 2 bad - 7 no-step


def test_csv_same_frame_and_bad_cell_line_with_tiny_chunks(tmp_path, monkeypatch, real_runs):
    rows = ["epoch,loss,val_loss"] + [
        f"{i},{1 / (i + 1)},{'NA' if i % 2 else 0.5}" for i in range(20)
    ]
    rows[15] = "14,abc,0.5"
    path = tmp_path / "training.log"
    path.write_text("\r\n".join(rows) + "\r\n")
    export = real_runs / "wandb_nanogpt_tokenizer_variants" / "wandb_export.csv"
    results = real_runs / "yolov5_lego_healthy" / "results.csv"

    def read_all():
        return keras_csv.read(path), wandb_csv.read(export), load_run(results)

    whole = read_all()
    monkeypatch.setattr(_csv, "CHUNK_ROWS", 3)
    chunked = read_all()
    for a, b in zip(whole, chunked, strict=True):
        pd.testing.assert_frame_equal(a.frame, b.frame)
        assert [str(w) for w in a.warnings] == [str(w) for w in b.warnings]
    [bad] = [w for w in chunked[0].warnings if "non-numeric" in w.message]
    assert bad.line == 16


@pytest.mark.parametrize(
    "layout",
    ["plain", "blank lines", "whitespace line", "crlf", "two objects on a line", "cut last line"],
)
def test_jsonl_block_parsed_whole_or_line_by_line_is_the_same(tmp_path, monkeypatch, layout):
    """A block is parsed in one call when every line is one object; any other layout falls
    back to the line split, and either way the frame, warnings and lines are the same."""
    lines = _lines(120)
    sep = "\r\n" if layout == "crlf" else "\n"
    if layout == "blank lines":
        lines[10:10] = ["", ""]
    elif layout == "whitespace line":
        lines.insert(40, "   ")
    elif layout == "two objects on a line":
        lines[50] = lines[50] + ", " + lines[51]
    text = sep.join(lines) + sep + ('{"step": 99' if layout == "cut last line" else "\n")
    path = tmp_path / "run.jsonl"
    path.write_bytes(text.encode())
    whole = jsonl.read(path)
    monkeypatch.setattr(_jsonlines, "_whole_block", lambda body: None)
    by_lines = jsonl.read(path)
    pd.testing.assert_frame_equal(whole.frame, by_lines.frame)
    assert [str(w) for w in whole.warnings] == [str(w) for w in by_lines.warnings]


def test_nan_tokens_of_a_text_column_are_values_as_when_parsed_one_by_one():
    """The string kernels that set NaN tokens aside change no cell: same values (bit for bit),
    same kept and bad cells as the object column, which is parsed cell by cell."""
    cells = ["0.5", "NaN", " nan ", "-nan(ind)", "NAN", "nan\x1c", "inf", "abc", None, "1e5"]
    for dtype in ("string", "str"):  # pd.NA-valued, and NaN-valued as read_csv gives
        text = pd.Series(cells * 3, dtype=dtype)
        fast, slow = text_cells(text), text_cells(text.astype(object))
        assert fast.values.tobytes() == slow.values.tobytes()
        assert (fast.keep == slow.keep).all() and (fast.bad == slow.bad).all()
        assert fast.keep[:7].all() and fast.bad[7] and not fast.keep[8]


def test_nan_tokens_without_an_n_are_none_as_the_kernels_find():
    """A text column without n or N has no NaN token (the byte search before the kernels):
    the same answer as the kernels, for whole columns, slices and several chunks."""
    cases = [["0.5", "1e5", "INF", "-inf", None, "Infinity"], ["1", "NaN", "2"], ["x", " nan "]]
    columns = [pd.Series(c * 4, dtype=dtype) for c in cases for dtype in ("string", "str")]
    mixed = pd.Series(["nan", "1", "2", "3"], dtype="str")
    columns += [mixed.iloc[1:], mixed.iloc[:2], pd.concat([mixed.iloc[1:], mixed.iloc[:1]])]
    for col in columns:
        kernels = col.str.strip().str.lower().isin(_NAN_TOKENS).to_numpy(bool, na_value=False)
        assert _nan_tokens(col).tolist() == kernels.tolist(), list(col)
