"""A small pure-ASCII CSV is read from memory with strict decoding (`_csv._ascii_text`): the
frames, warnings and errors are those of the path read with bad bytes replaced, on real tables
and on the files where decoding or reading could differ."""

from __future__ import annotations

import gzip

import pytest
from lossforensics.ingest import _csv, load_run

from tests.app.ingest._fast_paths import assert_same_result, read_both

FORMATS = ("wandb_csv", "keras_csv", "lightning_csv", "csv")


def _read_both(path, monkeypatch, format=None):
    """(fast, exact) reads of `path` and whether the fast one read from memory."""
    fast, exact, taken = read_both(
        monkeypatch, _csv, "_ascii_text", lambda: load_run(path, format=format)
    )
    return fast, exact, any(taken)


def test_real_tables_read_the_same(monkeypatch, sample_runs, real_runs):
    paths = [
        p
        for root in (sample_runs, real_runs)
        for p in sorted(root.rglob("*"))
        if p.is_file() and p.suffix.lower() in (".csv", ".log")
    ]
    engaged = 0
    for path in paths:
        fast, exact, read = _read_both(path, monkeypatch)
        assert_same_result(fast, exact)
        engaged += read
    assert engaged > 10


def _rows(n=6000):
    return [f"{i},{1 / (i + 1)!r},{0.5 + i}" for i in range(n)]


@pytest.mark.parametrize(
    ("odd", "fast_reads"),
    [
        ("30,NaN,nan", True),  # a diverged run's tokens: values, in a text column
        ("30, NaN ,-nan(ind)", True),
        ("30,,", True),  # missing cells
        ("30,abc,1.5", True),  # a cell that is not a number: skipped with a warning
        ("30,1.5,2.5,9", True),  # a row with a field too many: skipped with its line
        ("30", True),  # a short row
        ("", True),  # a blank line
        ('30,"1.5",2', True),
        ('30,"a\nb",2', True),  # a quoted newline
        ("30,inf,-Infinity", True),
        ("30,1.7976931348623159e308,4.9e-325", True),
        ("30,0.30000000000000004441,123456789012345678901234567890", True),
        ("30,caf\u00e9,1", False),  # not ASCII: read as before, bad bytes replaced
        ("30,caf\udcff,1", False),  # a byte that is not UTF-8
    ],
)
@pytest.mark.parametrize("fmt", FORMATS)
def test_odd_row_reads_the_same(tmp_path, monkeypatch, odd, fast_reads, fmt):
    header = {
        "wandb_csv": '"Step","run - train/loss","run - val/loss"',
        "keras_csv": "epoch,loss,val_loss",
        "lightning_csv": "step,train_loss,val_loss",
        "csv": "step,loss,val_loss",
    }[fmt]
    rows = _rows()
    rows[3000] = odd.replace("30", "3000", 1)  # past the lines the format sniffers read
    path = tmp_path / ("metrics.csv" if fmt != "keras_csv" else "training.log")
    data = (header + "\n" + "\n".join(rows) + "\n").encode("utf-8", errors="surrogateescape")
    path.write_bytes(data)
    fast, exact, read = _read_both(path, monkeypatch, fmt)
    assert_same_result(fast, exact)
    assert read is fast_reads


@pytest.mark.parametrize("content", [b"", b"step,loss\n", b"step,loss\n0,1.5"])
def test_short_files_read_the_same(tmp_path, monkeypatch, content):
    path = tmp_path / "metrics.csv"
    path.write_bytes(content)
    fast, exact, _ = _read_both(path, monkeypatch, "csv")
    assert_same_result(fast, exact)


def test_compressed_and_large_files_are_read_from_their_path(tmp_path, monkeypatch):
    table = b"step,loss\n" + b"".join(b"%d,0.5\n" % i for i in range(100))
    packed = tmp_path / "metrics.csv.gz"
    packed.write_bytes(gzip.compress(table))
    assert _csv._ascii_text(packed) is None  # pandas infers the compression from the name
    plain = tmp_path / "metrics.csv"
    plain.write_bytes(table)
    assert _csv._ascii_text(plain) == table
    monkeypatch.setattr(_csv, "_ASCII_READ_BYTES", len(table) - 1)
    assert _csv._ascii_text(plain) is None
