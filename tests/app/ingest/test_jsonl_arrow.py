"""The pyarrow fast path of JSON lines (`_jsonlines_arrow`) gives the frame and warnings the
standard library's parse gives, value bits included, on real logs and on the lines where the two
parsers differ (where it must step aside)."""

from __future__ import annotations

import json
import random

import pytest
from lossforensics.ingest import _jsonlines, jsonl
from lossforensics.ingest._jsonlines_arrow import arrow_frame, holds

from tests.app.ingest._fast_paths import assert_same_result, read_both

SAMPLES = ("nan_jsonl", "lr_decayed_too_early_jsonl", "vanishing_gradients_jsonl")
REAL = (
    "jsonl_detectron2_medwaste_lr_step",
    "jsonl_nanollama_overfit_run1",
    "jsonl_nanollama_overfit_run2",
)


def _read_both(path, monkeypatch):
    """(fast, exact) reads of `path` and how many chunks pyarrow read in the fast one."""
    fast, exact, taken = read_both(monkeypatch, _jsonlines, "arrow_frame", lambda: jsonl.read(path))
    return fast, exact, sum(taken)


def _files(root, names):
    return [p for name in names for p in sorted((root / name).rglob("*.json*")) if p.is_file()]


def test_real_logs_read_the_same(monkeypatch, sample_runs, real_runs):
    paths = _files(sample_runs, SAMPLES) + _files(real_runs, REAL)
    assert paths
    engaged = 0
    for path in paths:
        fast, exact, read = _read_both(path, monkeypatch)
        assert_same_result(fast, exact)
        engaged += read
    assert engaged  # the fast path did read some of them


def _write(tmp_path, lines, name="run.jsonl", end="\n"):
    path = tmp_path / name
    path.write_bytes((end.join(lines) + end).encode())
    return path


def _plain(n, start=0):
    return [f'{{"step": {i}, "loss": {1.0 / (i + 1)!r}, "lr": 0.001}}' for i in range(start, n)]


@pytest.mark.parametrize(
    ("odd", "fast_reads"),
    [
        ('{"step": 30, "loss": NaN, "lr": Infinity, "x": -Infinity}', True),
        ('{"step": 30, "loss": -NaN}', False),  # the standard library refuses the line
        ('{"step": 30, "loss": Inf}', False),
        ('{"step": 30, "loss": -Inf}', False),
        ('{"step": 30, "loss": nan}', False),
        ('{"step": 30, "loss": {"a": 1, "b": 2}}', False),  # nested: flattened to loss/a
        ('{"step": 30, "loss": "1.5"}', False),  # text among numbers
        ('{"step": 30, "loss": true}', False),
        ('{"step": 30, "loss": [1, 2]}', False),
        ('{"step": 30, "when": "2020-01-01T00:00:00"}', False),  # pyarrow reads a date
        ('{"step": 30, "loss": null}', True),
        ('{"step": 30, "only_null": null}', True),
        ('{"step": 30}', True),  # keys missing
        ('{"step": 30, "loss": -0}', False),  # Python's int 0 has no sign
        ('{"step": 30, "loss": -0.0}', False),
        ('{"step": 30, "loss": 9223372036854775808}', False),  # past int64: Python keeps it whole
        ('{"step": 30, "loss": 123456789012345678901234567890}', False),
        ('{"step": 30, "loss": 1E400}', False),
        ('{"step": 30, "loss": 1e-400}', True),
        ('{"step": 30, "loss": 2}', True),  # an int among floats
        ('{"step": 30, "loss": 1, "loss": 2}', False),  # a key twice
        ('{"step": 30, "loss": 1}{"step": 31, "loss": 2}', False),  # two objects on a line
        ('{"step": 30, "loss": 1} {"step": 31, "loss": 2}', False),
        ('{"step": 30, "loss": 1,}', False),  # not JSON: a warning with its line
        ('{"step": 30, "\\u00e9t\\u00e9": 1}', True),
        ('{"step": 30.5, "loss": 1}', True),  # a fractional step: skipped with a warning
        ('{"run": 3, "step": 30, "loss": 1}', True),  # a numeric run key names a run
        ('{"segment": 2, "step": 30, "loss": 1}', True),
        ('{"epoch": 1, "step": 30, "loss": 1}', True),
    ],
)
def test_odd_line_reads_the_same(tmp_path, monkeypatch, odd, fast_reads):
    lines = _plain(60)
    lines[30] = odd
    fast, exact, read = _read_both(_write(tmp_path, lines), monkeypatch)
    assert_same_result(fast, exact)
    assert (read == 2) is fast_reads  # two chunks: the first 20 lines, then the rest


@pytest.mark.parametrize("token", [b"-NaN", b"Inf", b"null"])
def test_holds_is_the_search_for_the_token(token):
    """The one-byte search first is only a shortcut: the answer is `token in text`."""
    texts = [b"", b'{"a": 1}\n', token, b"x" + token[:-1], b"N I u", b'{"a": "' + token + b'"}']
    for mark in (token[:1], token[-1:]):
        for text in texts:
            assert holds(text, token, mark) == (token in text), (token, mark, text)


def test_a_key_that_is_not_utf8_takes_the_exact_path(tmp_path, monkeypatch):
    # a corrupt byte inside a key (a flipped bit on disk): pyarrow reads the table but cannot
    # name the column; the exact path says what is wrong, where, and reads the rest
    text = "\n".join(_plain(60)).encode() + b"\n"
    bad = text.replace(b'"lr"', b'"l\xffr"', 1)
    assert arrow_frame(bad, 60) is None
    path = tmp_path / "run.jsonl"
    path.write_bytes(bad)
    fast, exact, _ = _read_both(path, monkeypatch)
    assert_same_result(fast, exact)


@pytest.mark.parametrize(
    "layout",
    [
        "blank line",
        "crlf",
        "bom",
        "indented",
        "no final newline",
        "cut last line",
        "only empty objects",
    ],
)
def test_layouts_read_the_same(tmp_path, monkeypatch, layout):
    lines, end, prefix = _plain(50), "\n", b""
    if layout == "blank line":
        lines.insert(25, "")
    elif layout == "crlf":
        end = "\r\n"
    elif layout == "bom":
        prefix = "\ufeff".encode()
    elif layout == "indented":
        lines[10] = "  " + lines[10]
    elif layout == "only empty objects":
        lines = ["{}"] * 30
    path = _write(tmp_path, lines, end=end)
    data = prefix + path.read_bytes()
    if layout == "no final newline":
        data = data.rstrip(b"\n")
    elif layout == "cut last line":
        data += b'{"step": 50, "lo'
    path.write_bytes(data)
    fast, exact, _ = _read_both(path, monkeypatch)
    assert_same_result(fast, exact)


def test_keys_in_another_order_after_the_first_chunk(tmp_path, monkeypatch):
    """Each chunk's columns come in the order its own lines name them, as flat_frame's do."""
    lines = [f'{{"step": {i}, "a": {i}.5}}' for i in range(20)]
    lines += [f'{{"b": {i}, "step": {i}, "a": 0.25, "c": {i}}}' for i in range(20, 40)]
    lines += [f'{{"c": 1, "b": 2, "a": 3, "step": {i}}}' for i in range(40, 60)]
    fast, exact, read = _read_both(_write(tmp_path, lines), monkeypatch)
    assert_same_result(fast, exact)
    assert read == 2


def test_chunks_and_blocks_read_the_same(tmp_path, monkeypatch):
    """Chunk and block bounds cut where the exact path cuts, with a NaN token in every chunk."""
    lines = _plain(200)
    for i in range(5, 200, 13):
        lines[i] = f'{{"step": {i}, "loss": NaN, "val": {i}}}'
    path = _write(tmp_path, lines)
    monkeypatch.setattr(_jsonlines, "CHUNK_LINES", 7)
    monkeypatch.setattr(_jsonlines, "_BLOCK_BYTES", 300)
    fast, exact, read = _read_both(path, monkeypatch)
    assert_same_result(fast, exact)
    assert read > 10


@pytest.mark.parametrize(
    ("formats", "scale", "fast_reads"),
    [
        (("r", ".6g", ".17g", "int"), 300, True),  # huge and tiny doubles, ints of up to 18 digits
        ((".25e", ".30f"), 15, True),  # long mantissas
        ((".25e", "r"), 300, True),  # long mantissas of huge numbers
        (("big int", "r"), 300, False),  # integers past 2**63: whole in Python
    ],
)
def test_random_numbers_round_the_same(tmp_path, monkeypatch, formats, scale, fast_reads):
    """Both parsers round every decimal to the nearest double."""
    rng = random.Random(7)
    lines = []
    for i in range(3000):
        x = rng.uniform(-1, 1) * 10 ** rng.randint(-scale, scale)
        form = rng.choice(formats)
        if form == "int":
            text = str(rng.randint(-(2**59), 2**59))
        elif form == "big int":
            text = str(rng.randint(2**63, 2**80) * rng.choice((1, -1)))
        else:
            text = repr(x) if form == "r" else format(x, form)
        lines.append(json.dumps({"step": i, "v": 0.5}).replace("0.5", text))
    fast, exact, read = _read_both(_write(tmp_path, lines), monkeypatch)
    assert_same_result(fast, exact)
    assert (read == 2) is fast_reads
