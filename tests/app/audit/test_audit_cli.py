"""`lossforensics audit`: every run found and diagnosed, ordered by severity, the sweep's LR
threshold found, each output format well formed, exit codes 0 / 1 / 2."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
from lossforensics.audit.audit import AuditOptions, audit_folder
from lossforensics.classifiers.diagnosis import Diagnosis
from lossforensics.classifiers.errors import InputError, NoLogsFoundError
from lossforensics.cli import main
from rich.console import Console


def _run(folder: Path, **kw) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = audit_folder(
        folder,
        AuditOptions(**kw),
        console=Console(file=out, width=200),
        err_console=Console(file=err, width=200),
    )
    return code, out.getvalue(), err.getvalue()


def test_table_sorted_by_severity_with_sweep_effect(sweep: Path) -> None:
    code, out, err = _run(sweep, jobs=1)
    assert code == 0
    rows = [line.split() for line in out.splitlines() if line.startswith(("sweep/", "broken"))]
    assert len(rows) == 19
    verdicts = [r[1] for r in rows]
    assert verdicts == ["exploding"] * 6 + ["healthy"] * 12 + ["error"]  # blow-ups to NaN
    assert all(r[0].startswith(("sweep/lr-0.01/", "sweep/lr-0.03/")) for r in rows[:6])
    assert "all runs with lr >= 0.01 went NaN (6/6); none below (0/12)" in out
    assert "all runs with lr >= 0.01 exploded (6/6); none below (0/12)" in out
    # the verdicts add up to the runs; the NaN that ended each blow-up is still counted
    assert (
        "19 runs by verdict: 6 exploding, 12 healthy, 1 error; "
        "runs with each label: 6 nan, 6 exploding"
    ) in out
    assert "[empty_input]" in out  # the unreadable run says why, and the audit went on
    assert "audited 19/19 sources (19 runs)" in err  # plain progress lines without a terminal


def test_json_is_a_list_of_diagnoses(sweep: Path) -> None:
    code, out, _ = _run(sweep, format="json", jobs=2)
    assert code == 0
    data = json.loads(out)
    assert len(data) == 19
    by_run = {d["run"]: d for d in data}
    bad = by_run["broken"]
    assert bad["verdict"] == "error" and bad["error"]["code"] == "empty_input"
    assert bad["error"]["file"].endswith("broken/log.jsonl")
    hot = by_run["sweep/lr-0.03/seed2"]
    assert hot["hparams"] == {"lr": 0.03}
    d = Diagnosis.from_dict(hot)  # each entry is the Diagnosis JSON
    assert d.verdict == "exploding" and "nan" in d.labels
    assert d.findings[0].causes and d.findings[0].causes[0].checks


def test_csv_has_one_row_per_run_and_hparam_columns(sweep: Path, tmp_path: Path) -> None:
    target = tmp_path / "audit.csv"
    code, _, err = _run(sweep, format="csv", out=target, jobs=1)
    assert code == 0 and "wrote" in err
    rows = list(csv.DictReader(target.open()))
    assert len(rows) == 19
    assert rows[0]["verdict"] == "exploding" and set(rows[0]["labels"].split(";")) == {
        "nan",
        "exploding",
    }
    assert float(rows[0]["confidence"]) > 0.5 and rows[0]["first_check"]
    assert {r["hp.lr"] for r in rows if r["run"].startswith("sweep/lr-0.0001/")} == {"0.0001"}
    assert rows[-1]["error_code"] == "empty_input"


def test_fail_on_exit_codes(sweep: Path) -> None:
    code, _, err = _run(sweep, jobs=1, fail_on=("exploding",))
    assert code == 1 and "6 run(s) have exploding" in err
    assert _run(sweep, jobs=1, fail_on=("overfit",))[0] == 0
    assert _run(sweep, jobs=1, fail_on=("error",))[0] == 1


def test_cli_exit_codes(sweep: Path, tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    assert main(["audit", str(sweep / "sweep" / "lr-0.0001"), "-j", "1"]) == 0
    assert "healthy" in capsys.readouterr().out
    assert main(["audit", str(sweep), "-j", "1", "--fail-on", "nan,exploding"]) == 1
    capsys.readouterr()
    assert main(["audit", str(tmp_path / "nothing-here")]) == 2
    assert "no_logs" in capsys.readouterr().err
    empty = tmp_path / "empty"
    empty.mkdir()
    assert main(["audit", str(empty)]) == 2
    assert main(["audit", str(sweep), "--fail-on", "exploded"]) == 2  # not a label
    assert "unknown label" in capsys.readouterr().err
    assert main(["audit", str(sweep), "--format", "xml"]) == 2


def test_nothing_found_and_bad_options_raise_typed_errors(tmp_path: Path) -> None:
    with pytest.raises(NoLogsFoundError):
        _run(tmp_path)
    with pytest.raises(InputError):
        _run(tmp_path, format="yaml")
    with pytest.raises(InputError):
        _run(tmp_path, jobs=0)


def test_a_run_no_check_could_judge_is_inconclusive_in_the_audit(tmp_path: Path) -> None:
    (tmp_path / "short").mkdir()
    (tmp_path / "short" / "log.jsonl").write_text(
        "".join(json.dumps({"step": i, "loss": v}) + "\n" for i, v in enumerate([1.0, 0.9]))
    )
    code, out, _ = _run(tmp_path, jobs=1)
    assert code == 0  # inconclusive is not a failure unless asked for
    assert "inconclusive" in out and "not judged:" in out
    assert "1 run by verdict: 1 inconclusive" in out and "healthy" not in out
    code, _, err = _run(tmp_path, jobs=1, fail_on=("inconclusive",))
    assert code == 1 and "1 run(s) have inconclusive" in err
