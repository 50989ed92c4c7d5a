"""The pyarrow fast path of trainer_state.json (`_trainer_state_arrow`) gives the frame,
warnings and errors the standard library's parse gives, value bits included, on real files and
on the documents where the two parsers, or a key set to null and a key left out, differ."""

from __future__ import annotations

import json
import random

import pytest
from lossforensics.ingest import _trainer_state_arrow, hf_trainer

from tests.app.ingest._fast_paths import assert_same_result, read_both


def _read_both(path, monkeypatch):
    """(fast, exact) reads of `path` and whether pyarrow read the fast one."""
    fast, exact, taken = read_both(
        monkeypatch, hf_trainer, "history_frame", lambda: hf_trainer.read(path)
    )
    return fast, exact, any(taken)


def test_real_files_read_the_same(monkeypatch, sample_runs, real_runs, real_runs_more):
    paths = [
        p
        for root in (sample_runs, real_runs, real_runs_more)
        for p in sorted(root.rglob("trainer_state.json"))
    ]
    assert len(paths) > 10
    engaged = 0
    for path in paths:
        fast, exact, read = _read_both(path, monkeypatch)
        assert_same_result(fast, exact)
        engaged += read
    assert engaged == len(paths)  # HF writes nulls only as top-level values


def _entries(n=40):
    out = []
    for i in range(n):
        out.append(
            f'{{"epoch": {i / 10!r}, "learning_rate": 0.001, "loss": {1 / (i + 1)!r}, "step": {i}}}'
        )
        if i % 10 == 9:
            out.append(f'{{"epoch": {i / 10!r}, "eval_loss": {2 / (i + 1)!r}, "step": {i}}}')
    return out


_SUMMARY = (
    '{"step": 39, "total_flos": 123456789012345678901234567890, "train_loss": 0.5, '
    '"train_runtime": 12.5}'
)


def _document(entries, top='"best_metric": null, "global_step": 39, ', indent=False):
    history = (",\n" if indent else ", ").join(entries)
    return "{" + top + '"log_history": [' + history + '], "trial_name": null}'


def _write(tmp_path, text, prefix=b""):
    path = tmp_path / "trainer_state.json"
    path.write_bytes(prefix + text.encode())
    return path


@pytest.mark.parametrize(
    ("odd", "fast_reads"),
    [
        ('{"step": 20, "loss": NaN, "grad_norm": Infinity, "x": -Infinity}', True),
        ('{"step": 20, "loss": -NaN}', False),  # the standard library refuses the document
        ('{"step": 20, "loss": Inf}', False),
        ('{"step": 20, "loss": null}', False),  # a key set to null
        ('{"step": 20, "loss": 2, "train_runtime": null}', False),  # still the summary
        ('{"step": 20, "loss": "1.5"}', False),  # text among numbers
        ('{"step": 20, "loss": true}', False),
        ('{"step": 20, "loss": [1, 2]}', False),
        ('{"step": 20, "loss": {"a": 1}}', False),  # nested: flattened to loss/a
        ('{"step": 20, "loss": -0}', False),  # Python's int 0 has no sign
        ('{"step": 20, "loss": -0.0}', False),
        ('{"step": 20, "loss": 9223372036854775808}', False),  # whole in Python
        ('{"step": 20, "loss": 1E400}', False),
        ('{"step": 20, "loss": 1e-400}', True),
        ('{"step": 20, "loss": 1, "loss": 2}', False),  # a key twice
        ('{"step": 20.5, "loss": 1}', True),  # a fractional step: skipped with a warning
        ('{"loss": 1}', True),  # no step: takes the entry's before
        ('{"step": 20, "new_key": 3, "loss": 2}', True),  # a key first seen mid-history
        ('{"loss": 2, "step": 20}', True),
        ('{"step": 20, "predict_loss": 0.5}', True),
        ('{"step": 20, "\\u00e9t\\u00e9": 1}', True),
        ('{"step": 20, "train_runtime": 1.0}', False),  # a summary before point entries
        ("3", False),  # not an object: skipped with a warning
        ("null", False),
        ("[]", False),
        ("{}", True),
    ],
)
def test_odd_entry_reads_the_same(tmp_path, monkeypatch, odd, fast_reads):
    entries = _entries()
    entries[20] = odd
    path = _write(tmp_path, _document([*entries, _SUMMARY]))
    fast, exact, read = _read_both(path, monkeypatch)
    assert_same_result(fast, exact)
    assert read is fast_reads


@pytest.mark.parametrize(
    ("layout", "fast_reads"),
    [
        ("pretty", True),  # HF's own layout: indent=2, keys sorted
        ("no summary", True),
        ("summary only", False),  # the exact path says why nothing was logged
        ("empty history", False),
        ("no history", False),
        ("history not a list", False),
        ("bom", False),
        ("leading space", False),
        ("two documents", False),
        ("trailing text", False),
        ("trial name", False),  # the run's name: decoded by the exact path
        ("null in a top-level object", False),
        ("null in a string", False),
        ("a top-level key twice", False),
        ("key only in the summary", True),
        ("not utf-8 in a key", False),
        ("not utf-8 in a string", False),
    ],
)
def test_documents_read_the_same(tmp_path, monkeypatch, layout, fast_reads):
    entries, summary, prefix = _entries(), _SUMMARY, b""
    text = _document([*entries, summary])
    if layout == "pretty":
        doc = json.loads(text)
        text = json.dumps(doc, indent=2, sort_keys=True)
    elif layout == "no summary":
        text = _document(entries)
    elif layout == "summary only":
        text = _document([summary])
    elif layout == "empty history":
        text = _document([])
    elif layout == "no history":
        text = '{"global_step": 3}'
    elif layout == "history not a list":
        text = '{"log_history": {"step": 1, "loss": 2.0}}'
    elif layout == "bom":
        prefix = "\ufeff".encode()
    elif layout == "leading space":
        text = " " + text
    elif layout == "two documents":
        text = text + "\n" + text
    elif layout == "trailing text":
        text = text + " x"
    elif layout == "trial name":
        text = text.replace('"trial_name": null', '"trial_name": "trial-\\u00e9"')
    elif layout == "null in a top-level object":
        text = text.replace('"best_metric": null', '"args": {"seed": null}')
    elif layout == "null in a string":
        text = text.replace('"best_metric": null', '"best_metric": "null"')
    elif layout == "a top-level key twice":
        text = text.replace('"best_metric": null', '"global_step": 1')
    elif layout == "key only in the summary":
        text = _document([*entries, summary.replace('"step": 39', '"step": 39, "x": 1')])
    path = _write(tmp_path, text, prefix)
    if layout == "not utf-8 in a key":
        path.write_bytes(path.read_bytes().replace(b'"eval_loss"', b'"eval\xff_loss"', 1))
    elif layout == "not utf-8 in a string":
        path.write_bytes(path.read_bytes().replace(b"best_metric", b"best\xffmetric", 1))
    fast, exact, read = _read_both(path, monkeypatch)
    assert_same_result(fast, exact)
    assert read is fast_reads


@pytest.mark.parametrize(
    ("levels", "fast_reads"),
    [
        (10, True),
        (_trainer_state_arrow._MAX_DEPTH - 1, True),  # the document's object is level 1
        (_trainer_state_arrow._MAX_DEPTH, False),
        (1200, False),  # the standard library refuses it: not valid JSON, as before
        (5000, False),
    ],
)
@pytest.mark.parametrize("shape", ["arrays", "objects"])
def test_deep_values_beside_the_history_read_the_same(
    tmp_path, monkeypatch, levels, fast_reads, shape
):
    """pyarrow reads any depth; the standard library runs out of recursion ~1000 levels down."""
    if shape == "arrays":
        deep = "[" * levels + "]" * levels
    else:
        deep = '{"a": ' * (levels - 1) + "{}" + "}" * (levels - 1)
    text = _document(_entries(), top=f'"callbacks": {deep}, ')
    fast, exact, read = _read_both(_write(tmp_path, text), monkeypatch)
    assert_same_result(fast, exact)
    assert read is fast_reads


def test_random_numbers_round_the_same(tmp_path, monkeypatch):
    """Both parsers round every decimal to the nearest double."""
    rng = random.Random(7)
    entries = []
    for i in range(3000):
        x = rng.uniform(-1, 1) * 10 ** rng.randint(-300, 300)
        form = rng.choice(("r", ".25e", ".6g", "int"))
        if form == "int":
            text = str(rng.randint(-(2**59), 2**59))
        else:
            text = repr(x) if form == "r" else format(x, form)
        entries.append(f'{{"step": {i}, "loss": {text}}}')
    fast, exact, read = _read_both(_write(tmp_path, _document(entries)), monkeypatch)
    assert_same_result(fast, exact)
    assert read
