"""confirm(): run the probes a diagnosis names, once each, within a budget, and re-rank the
causes by their verdicts."""

from __future__ import annotations

import json

import pytest

torch = pytest.importorskip("torch")

import torch.nn.functional as F  # noqa: E402
from lossforensics.classifiers.diagnosis import Cause, Diagnosis, Finding  # noqa: E402
from lossforensics.classifiers.errors import ProbeError  # noqa: E402
from lossforensics.classifiers.playbook import rank_causes  # noqa: E402
from lossforensics.probes import CONFIRMED, REFUTED, confirm, plan  # noqa: E402
from lossforensics.probes.confirm import UNTESTED  # noqa: E402

from tests.probes import toys  # noqa: E402
from tests.probes.helpers import FINE, TOO_HIGH, sgd  # noqa: E402


def _diagnosis(*findings: tuple[str, tuple[Cause, ...]]) -> Diagnosis:
    return Diagnosis(
        "broken",
        findings[0][0] if findings else "healthy",
        [Finding(label, 0.9, None, {}, "", causes) for label, causes in findings],
    )


def _lr_first() -> tuple[Cause, ...]:
    """exploding's playbook causes with the LR one ranked last, so confirm has to lift it."""
    causes = sorted(rank_causes("exploding", {}), key=lambda c: c.probe == "lr_drop")
    return tuple(
        Cause(i, c.cause, c.score, c.checks, c.probe) for i, c in enumerate(causes, start=1)
    )


def _confirm(diagnosis, lr, tmp_path, **kw):
    return confirm(
        diagnosis,
        model_fn=toys.regressor,
        data=toys.regression(),
        loss_fn=F.mse_loss,
        optimizer_fn=sgd(lr),
        steps=30,
        log_dir=tmp_path,
        **kw,
    )


def test_confirm_lifts_the_lr_cause_it_confirms_and_logs_the_runs(tmp_path):
    lr_last = _lr_first()
    diag = _diagnosis(("exploding", lr_last))
    assert plan(diag, top=len(lr_last))[-1] == "lr_drop"
    result = _confirm(diag, TOO_HIGH, tmp_path, top=len(lr_last))
    causes = result.findings[0].causes
    lr = next(c for c in causes if c.probe == "lr_drop")
    assert lr.verdict == CONFIRMED and lr.original_rank == len(causes)
    assert lr.rank <= sum(c.verdict == CONFIRMED for c in causes) < len(causes)
    verdicts = [c.verdict for c in causes]
    assert verdicts == sorted(
        verdicts, key={CONFIRMED: 0, "inconclusive": 1, UNTESTED: 1, REFUTED: 2}.get
    )
    assert (tmp_path / "lr_drop" / "lr.jsonl").is_file()
    text = repr(result)
    assert "exploding" in text and "confirmed" in text and "lr_drop" in text
    payload = json.loads(json.dumps(result.to_dict(), allow_nan=False))
    assert payload["findings"][0]["causes"][0]["verdict"] == CONFIRMED
    assert payload["probes"]["lr_drop"]["verdict"] == CONFIRMED


def test_confirm_refutes_the_lr_cause_on_a_healthy_run(tmp_path):
    diag = _diagnosis(("exploding", rank_causes("exploding", {})))
    result = _confirm(diag, FINE, tmp_path, top=5, options={"clip": {"max_norm": 100.0}})
    lr = next(c for c in result.causes if c.probe == "lr_drop")
    assert lr.verdict == REFUTED and lr.rank >= 2


def test_each_probe_runs_once_and_the_budget_is_kept(tmp_path):
    causes = rank_causes("exploding", {})
    diag = _diagnosis(("exploding", causes), ("oscillating", rank_causes("oscillating", {})))
    named = plan(diag, top=10)
    assert len(named) == len(set(named))
    result = _confirm(diag, FINE, tmp_path, top=10, max_probes=2)
    assert list(result.results) == named[:2]
    assert set(result.not_run) == set(named[2:])
    assert all("budget" in why for why in result.not_run.values())
    skipped = [c for c in result.causes if c.probe in result.not_run]
    assert skipped and all(c.verdict == UNTESTED for c in skipped)
    unprobed = [c for c in result.causes if c.probe is None]
    assert unprobed and all(c.summary == "no probe automates this check" for c in unprobed)


def test_nothing_starts_past_the_time_budget(tmp_path):
    diag = _diagnosis(("exploding", rank_causes("exploding", {})))
    result = _confirm(diag, FINE, tmp_path, time_budget_s=0.0)
    assert not result.results and set(result.not_run) == set(plan(diag))
    assert all("time budget" in why for why in result.not_run.values())


def test_a_failing_probe_is_reported_not_raised(tmp_path):
    diag = _diagnosis(("nan", (Cause(1, "a layer's numerics", 0.9, (), "nan_origin"),)))
    bad = [(torch.zeros(4, toys.FEATURES), torch.zeros(4, 2, 2, 2))]  # mse cannot broadcast
    result = confirm(
        diag,
        model_fn=toys.regressor,
        data=bad,
        loss_fn=F.mse_loss,
        optimizer_fn=sgd(0.1),
        steps=5,
        log_dir=tmp_path,
    )
    assert "nan_origin" in result.not_run and "failed" in result.not_run["nan_origin"]
    assert result.causes[0].verdict == UNTESTED


def test_confirm_takes_the_diagnosis_json_and_rejects_other_things(tmp_path):
    diag = _diagnosis(("exploding", _lr_first()))
    result = _confirm(diag.to_dict(), TOO_HIGH, tmp_path, top=1)
    assert list(result.results) == [result.causes[0].probe]
    with pytest.raises(ProbeError, match="Diagnosis"):
        _confirm(["not", "a", "diagnosis"], TOO_HIGH, tmp_path)
    with pytest.raises(ProbeError, match="re-iterable"):
        confirm(
            diag,
            model_fn=toys.regressor,
            data=iter(toys.regression()),
            loss_fn=F.mse_loss,
            optimizer_fn=sgd(0.1),
        )
