"""`diagnose_path`: the service's work done locally, and the Jupyter rendering of its results."""

from __future__ import annotations

import pickle
from pathlib import Path

import pytest
from lossforensics import diagnose_path
from lossforensics.classifiers.diagnosis import Diagnosis as CoreDiagnosis
from lossforensics.classifiers.errors import NoLogsFoundError, UnknownFormatError
from lossforensics.display import Diagnoses, Diagnosis

from tests.app.audit.conftest import write_jsonl_run, write_keras_run


def test_one_run_gives_one_rendering_diagnosis(tmp_path: Path) -> None:
    path = write_jsonl_run(tmp_path / "exp7", 3e-2, 1)
    d = diagnose_path(path)
    assert isinstance(d, Diagnosis) and isinstance(d, CoreDiagnosis)
    assert d.verdict == "exploding" and "nan" in d.labels  # the blow-up leads its NaN
    html = d._repr_html_()
    assert "<table" in html and "likely causes" in html and "exploding" in html
    assert "data:image/png;base64," in html  # the plot, drawn from the frame just read
    assert d.plot_png().startswith(b"\x89PNG")
    assert CoreDiagnosis.from_dict(d.to_dict()).to_dict() == d.to_dict()


def test_a_run_directory_is_one_run(tmp_path: Path) -> None:
    write_keras_run(tmp_path / "run", 1e-4, 2)
    d = diagnose_path(tmp_path / "run")
    assert isinstance(d, Diagnosis) and d.verdict == "healthy"
    assert "No pathology found" in d._repr_html_()


def test_a_folder_of_runs_gives_a_sorted_list(tmp_path: Path) -> None:
    write_jsonl_run(tmp_path / "sweep" / "lr-0.03", 3e-2, 1)
    write_keras_run(tmp_path / "sweep" / "lr-0.0001", 1e-4, 2)
    got = diagnose_path(tmp_path / "sweep")
    assert isinstance(got, Diagnoses)
    assert [(d.run, d.verdict) for d in got] == [("lr-0.0001", "healthy"), ("lr-0.03", "exploding")]
    assert got._repr_html_().count("<h4>") == 2
    single = diagnose_path(tmp_path / "sweep" / "lr-0.03", as_list=True)
    assert isinstance(single, Diagnoses) and len(single) == 1


def test_unreadable_run_in_a_folder_is_skipped_with_a_warning(tmp_path: Path) -> None:
    write_jsonl_run(tmp_path / "ok", 1e-4, 1)
    write_jsonl_run(tmp_path / "ok2", 1e-4, 2)
    (tmp_path / "bad").mkdir()
    (tmp_path / "bad" / "log.jsonl").write_text('{"msg": "no numbers"}\n')
    with pytest.warns(UserWarning, match="skipped bad"):
        got = diagnose_path(tmp_path)
    assert [d.run for d in got] == ["ok", "ok2"]


def test_errors_are_typed(tmp_path: Path) -> None:
    with pytest.raises(NoLogsFoundError):
        diagnose_path(tmp_path / "missing")
    junk = tmp_path / "notes.txt"
    junk.write_text("hello\n")
    with pytest.raises(UnknownFormatError):
        diagnose_path(junk)


def test_pickles_without_its_plot_source(tmp_path: Path) -> None:
    d = diagnose_path(write_jsonl_run(tmp_path / "r", 1e-4, 1))
    back = pickle.loads(pickle.dumps(d))
    assert back.to_dict() == d.to_dict() and back.plot_png() is None


def test_real_wandb_export_is_several_runs(real_runs: Path, real_labels: dict) -> None:
    got = diagnose_path(real_runs / "wandb_nanogpt_tokenizer_variants")
    assert isinstance(got, Diagnoses) and len(got) == 8


def test_a_long_list_draws_only_the_first_runs(tmp_path: Path) -> None:
    d = Diagnosis.wrap(diagnose_path(write_jsonl_run(tmp_path / "r", 1e-4, 1)))  # no plots
    many = Diagnoses([d] * (Diagnoses.MAX_DETAILED + 5))
    html = many._repr_html_()
    assert html.count("<h4>") == Diagnoses.MAX_DETAILED and "5 more run(s)" in html
