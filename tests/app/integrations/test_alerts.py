"""The alert rule: act-now labels at once, course labels once they persist while the run grows
by a quarter, everything left at the end, superseded only for what was said."""

from __future__ import annotations

from lossforensics.classifiers.diagnosis import Diagnosis, Finding
from lossforensics.integrations.alerts import PERSIST_GROWTH, Alerts


def _diagnosis(*labels: str) -> Diagnosis:
    findings = [Finding(lab, 0.8, None, {}, f"{lab} summary") for lab in labels]
    return Diagnosis("run", labels[0] if labels else "healthy", findings)


def _said(alerts: Alerts, points: int, *labels: str, final: bool = False) -> list[str]:
    new, _ = alerts.update(_diagnosis(*labels), points, final=final)
    return [f.label for f in new]


def test_act_now_labels_are_said_at_once() -> None:
    alerts = Alerts()
    assert _said(alerts, 40, "nan", "plateau") == ["nan"]
    assert _said(alerts, 41, "nan", "plateau") == []  # once


def test_a_course_label_is_said_once_the_run_grew_by_a_quarter_while_it_held() -> None:
    alerts = Alerts()
    assert _said(alerts, 100, "plateau") == []
    assert _said(alerts, 110, "plateau") == []
    assert _said(alerts, int(100 * (1 + PERSIST_GROWTH)) - 1, "plateau") == []
    assert _said(alerts, int(100 * (1 + PERSIST_GROWTH)), "plateau") == ["plateau"]


def test_a_course_label_that_drops_out_restarts_its_clock_and_is_never_superseded() -> None:
    alerts = Alerts()
    assert _said(alerts, 100, "oscillating") == []
    new, gone = alerts.update(_diagnosis(), 120)
    assert new == [] and gone == []  # never said: nothing to take back
    assert _said(alerts, 130, "oscillating") == []  # back: its clock starts again at 130
    assert _said(alerts, 150, "oscillating") == []
    assert _said(alerts, 163, "oscillating") == ["oscillating"]


def test_a_said_finding_that_goes_is_superseded_once() -> None:
    alerts = Alerts()
    _said(alerts, 10, "exploding")
    new, gone = alerts.update(_diagnosis("resume_discontinuity"), 20)
    assert [s.finding.label for s in gone] == ["exploding"] and new == []
    assert alerts.update(_diagnosis("resume_discontinuity"), 21)[1] == []


def test_the_end_says_what_the_final_diagnosis_holds() -> None:
    alerts = Alerts()
    assert _said(alerts, 100, "overfit") == []
    assert _said(alerts, 101, "overfit", "plateau", final=True) == ["overfit", "plateau"]
