"""Property: whatever bytes come in, readers and load_run raise only the project's typed errors
(LossForensicsError subclasses) — never a bare ValueError, KeyError or parser traceback.

Inputs: random bytes under names that promise a format, and real published files mangled the
ways files get damaged (cut short, bytes flipped, lines shuffled, duplicated or spliced)."""

from __future__ import annotations

import random
import shutil
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lossforensics.classifiers.errors import LossForensicsError
from lossforensics.classifiers.frame import validate_frame
from lossforensics.ingest import READERS, load_run

DATA = Path(__file__).parent / "data"
NAMES = (
    "metrics.jsonl",
    "metrics.json",
    "training.log",
    "trainer_state.json",
    "metrics.csv",
    "results.csv",
    "wandb_export.csv",
    "mlflow.db",
    "events.out.tfevents.1.host",
    "run",
)
REAL_FILES = (
    "jsonl_nanollama_overfit_run1/log.jsonl",
    "jsonl_detectron2_medwaste_lr_step/metrics.json",
    "keras_csvlogger_voiceid_old_acc_cols/training.log",
    "keras_csvlogger_fer_resnet50_valspikes/training.log",
    "lightning_slm_sweep_highlr_stuck/version_30/metrics.csv",
    "hf_multi_eval_overfit/trainer_state.json",
    "wandb_nanogpt_tokenizer_variants/wandb_export.csv",
    "yolov5_lego_healthy/results.csv",
    "tb_hf_t5_cnndm_slow_healthy/Mar24_22-23-40_DESKTOP-41L2EO3/"
    "events.out.tfevents.1742884204.DESKTOP-41L2EO3.107869.1",
    "tb_keras_imdb_overfit/validation/events.out.tfevents.1690485359.e-bnbobg-5l77j-0.80091.1.v2",
)
FUZZ = settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


def only_typed_errors(path: Path) -> None:
    """Every reader and load_run on `path`: a frame that validates, or a typed error."""
    for fmt in READERS:
        _check(lambda fmt=fmt: READERS[fmt].read(path))
    _check(lambda: load_run(path))


def _check(call) -> None:
    try:
        result = call()
    except LossForensicsError:
        return
    validate_frame(result.frame)


def mangle(data: bytes, how: str, rng: random.Random) -> bytes:
    if not data:
        return data
    if how == "truncate":
        return data[: rng.randrange(len(data))]
    if how == "flip":
        out = bytearray(data)
        for _ in range(rng.randint(1, 8)):
            out[rng.randrange(len(out))] = rng.randrange(256)
        return bytes(out)
    lines = data.split(b"\n")
    if how == "shuffle":
        rng.shuffle(lines)
    elif how == "duplicate":
        i = rng.randrange(len(lines))
        lines.insert(i, lines[rng.randrange(len(lines))])
    elif how == "splice":
        i = rng.randrange(len(lines))
        lines[i] = lines[i][: rng.randrange(len(lines[i]) + 1)] + b'\x00\xff garbage,{"x":'
    return b"\n".join(lines)


@FUZZ
@given(data=st.binary(max_size=600), name=st.sampled_from(NAMES))
def test_random_bytes(data, name):
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / name
        path.write_bytes(data)
        only_typed_errors(path)


@FUZZ
@given(
    text=st.text(
        alphabet=st.sampled_from(list('{}[]":,0123456789.-eE \nNaInfy\r;\tabc')), max_size=300
    ),
    name=st.sampled_from(NAMES),
)
def test_json_and_csv_shaped_text(text, name):
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / name
        path.write_text(text)
        only_typed_errors(path)


@FUZZ
@given(
    index=st.integers(0, len(REAL_FILES) - 1),
    how=st.sampled_from(["truncate", "flip", "shuffle", "duplicate", "splice"]),
    seed=st.integers(0, 2**32 - 1),
)
def test_mangled_real_files(real_runs, index, how, seed):
    source = real_runs / REAL_FILES[index]
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / source.name
        path.write_bytes(mangle(source.read_bytes(), how, random.Random(seed)))
        only_typed_errors(path)


@settings(max_examples=20, deadline=None)
@given(
    how=st.sampled_from(["truncate", "flip", "shuffle", "splice"]), seed=st.integers(0, 2**32 - 1)
)
def test_mangled_mlflow_stores(how, seed):
    rng = random.Random(seed)
    with tempfile.TemporaryDirectory() as tmp:
        store = Path(tmp) / "mlruns"
        shutil.copytree(DATA / "mlruns", store)
        files = sorted(p for p in store.rglob("*") if p.is_file())
        victim = files[rng.randrange(len(files))]
        victim.write_bytes(mangle(victim.read_bytes(), how, rng))
        _check(lambda: load_run(store))
        db = Path(tmp) / "mlflow.db"
        db.write_bytes(mangle((DATA / "mlflow.db").read_bytes(), how, rng))
        only_typed_errors(db)


def _numpy_files() -> dict[str, bytes]:
    """A `np.save` of a loss curve and an `np.savez` of a history, as bytes."""
    import io

    import numpy as np

    npy, npz = io.BytesIO(), io.BytesIO()
    np.save(npy, np.linspace(1.0, 0.1, 40))
    np.savez(npz, loss=np.linspace(1.0, 0.1, 40), val_loss=np.linspace(1.0, 0.2, 8))
    return {"train_loss.npy": npy.getvalue(), "history.npz": npz.getvalue()}


NUMPY_FILES = _numpy_files()


@FUZZ
@given(
    name=st.sampled_from(sorted(NUMPY_FILES)),
    how=st.sampled_from(["truncate", "flip"]),
    seed=st.integers(0, 2**32 - 1),
)
def test_mangled_numpy_files(name, how, seed):
    """NumPy's headers are parsed with Python's tokenizer and an `.npz` is a zip: a flipped
    byte or a cut anywhere gives the values or a typed error, never a tokenizer or zip one."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / name
        path.write_bytes(mangle(NUMPY_FILES[name], how, random.Random(seed)))
        only_typed_errors(path)
