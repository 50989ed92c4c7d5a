"""Segments and runs in the JSONL reader: a step that goes back or a segment/phase key starts a
segment of the same run; a run/experiment/trial/fold key names separate runs; the segment column
survives convert to JSON lines, and a stored frame without it loads as one segment."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
from lossforensics.classifiers.diagnose import diagnose
from lossforensics.classifiers.frame import make_frame, validate_frame
from lossforensics.ingest import load_run
from lossforensics.ingest._export import write_jsonl


def _write(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def _curve(i: int) -> float:
    return 2.0 * math.exp(-i / 10) + 0.1


def test_a_step_that_goes_back_starts_a_segment_and_the_resume_check_reads_it(tmp_path):
    # two resumes from the checkpoint at step 100, each with the loss 0.8 above where it was
    rows = [
        {"step": i * 10, "loss": _curve(i) + (0.8 if seg and i < 13 else 0.0)}
        for seg in range(3)
        for i in range(0 if seg == 0 else 10, 30)
    ]
    result = load_run(_write(tmp_path / "three.jsonl", rows))
    f = result.frame
    assert f["run"].nunique() == 1
    assert f.sort_values("seq")["segment"].tolist() == [0] * 30 + [1] * 20 + [2] * 20
    assert any("segment" in w.message for w in result.warnings)
    d = diagnose(f)
    assert "resume_discontinuity" in d.labels


def test_a_phase_key_is_a_segment_even_when_the_step_keeps_counting(tmp_path):
    rows = [{"step": i, "phase": "pretrain", "loss": _curve(i)} for i in range(30)]
    rows += [{"step": 30 + i, "phase": "finetune", "loss": _curve(i)} for i in range(30)]
    f = load_run(_write(tmp_path / "phases.jsonl", rows)).frame
    assert set(f["metric"]) == {"loss"}  # the key is not a metric
    assert f.sort_values("seq")["segment"].tolist() == [0] * 30 + [1] * 30
    finding = next(x for x in diagnose(f).findings if x.label == "resume_discontinuity")
    assert finding.evidence["resume_step"] == 30 and "new segment" in finding.summary


def test_an_experiment_key_names_separate_runs_each_from_segment_0(tmp_path):
    rows = [
        {"step": i, "experiment": e, "loss": 1.0 - 0.01 * i * e} for e in (1, 2) for i in range(20)
    ]
    f = load_run(_write(tmp_path / "sweep.jsonl", rows)).frame
    assert sorted(f["run"].unique()) == ["experiment-1", "experiment-2"]
    assert set(f["metric"]) == {"loss"} and (f["segment"] == 0).all()


def _folds() -> list[dict]:
    return [
        {"fold": k, "epoch": e, "loss": _curve(e + 5 * k), "val_loss": _curve(e + 5 * k) + 0.05}
        for k in range(3)
        for e in range(1, 16)
    ]


def test_a_fold_column_names_separate_runs_not_resumes(tmp_path):
    """A cross-validation's folds each train a model from the start: their epochs counting
    again are separate runs, and the resume check has no restart to report."""
    rows = _folds()
    csv = tmp_path / "cv.csv"
    csv.write_text(
        "fold,epoch,loss,val_loss\n"
        + "".join(f"{r['fold']},{r['epoch']},{r['loss']},{r['val_loss']}\n" for r in rows)
    )
    for path in (_write(tmp_path / "cv.jsonl", rows), csv):
        result = load_run(path)
        f = result.frame
        assert sorted(f["run"].unique()) == ["fold-0", "fold-1", "fold-2"], path.name
        assert set(f["metric"]) == {"loss", "val_loss"} and (f["segment"] == 0).all()
        assert not any("restart" in w.message for w in result.warnings)
        assert all(
            "resume_discontinuity" not in diagnose(part).labels
            for _, part in f.groupby("run", observed=True)
        )


def test_a_plain_log_is_one_segment(tmp_path):
    f = load_run(_write(tmp_path / "plain.jsonl", [{"step": i, "loss": 1.0} for i in range(5)]))
    assert f.frame["segment"].dtype == np.int64 and (f.frame["segment"] == 0).all()


def test_segments_survive_convert_to_json_lines(tmp_path):
    rows = [{"step": i, "loss": _curve(i)} for i in range(10)] * 2
    frame = load_run(_write(tmp_path / "twice.jsonl", rows)).frame
    out = tmp_path / "out.jsonl"
    with out.open("w") as fh:
        write_jsonl(frame, fh)
    back = load_run(out).frame
    assert back.sort_values("seq")["segment"].tolist() == [0] * 10 + [1] * 10


def test_a_frame_stored_without_segment_loads_as_one_segment(tmp_path):
    frame = make_frame("r", ["loss"] * 3, [0, 1, 2], [1.0, 0.9, 0.8])
    old = tmp_path / "old.parquet"
    frame.drop(columns=["segment"]).to_parquet(old, index=False)
    back = validate_frame(pd.read_parquet(old))
    assert list(back.columns)[-1] == "segment" and (back["segment"] == 0).all()
