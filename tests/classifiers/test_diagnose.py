import json
import tarfile
from pathlib import Path

import numpy as np
import pytest
from lossforensics.analysis import diagnose_source
from lossforensics.classifiers.base import Classifier
from lossforensics.classifiers.diagnose import (
    LIKELY,
    diagnose,
    diagnose_all,
    likely_first,
    order_findings,
)
from lossforensics.classifiers.diagnosis import Diagnosis, Finding, Span
from lossforensics.classifiers.errors import InputError, InvalidFrameError
from lossforensics.classifiers.frame import concat_frames, make_frame
from lossforensics.classifiers.labels import severity_rank

CORPUS = Path(__file__).resolve().parents[2] / "benchmarks" / "corpus" / "corpus.tar.xz"

RNG = np.random.default_rng(11)
S = np.arange(1000)


def _healthy(run="ok"):
    loss = 0.4 + 2 * np.exp(-S / 300) + 0.02 * RNG.standard_normal(len(S))
    return make_frame(run, ["loss"] * len(S), S, loss)


def _blown(run="bad"):
    loss = 0.4 + 2 * np.exp(-S / 150) + 0.02 * RNG.standard_normal(len(S))
    loss[600:] += np.linspace(0, 30, 400)
    loss[950:] = np.nan
    grad = np.r_[np.ones(600), np.linspace(1, 100, 400)]
    return make_frame(
        run, ["loss"] * len(S) + ["grad_norm"] * len(S), np.r_[S, S], np.r_[loss, grad]
    )


def test_healthy_run_has_a_healthy_verdict_metrics_and_skips_with_reasons():
    d = diagnose(
        _healthy(), source={"format": "jsonl", "files": ["a.jsonl"]}, warnings=["line 3: skipped"]
    )
    assert d.verdict == "healthy" and d.findings == [] and d.run == "ok"
    assert [(m.metric, m.role, m.points, m.first_step, m.last_step) for m in d.metrics] == [
        ("loss", "train_loss", 1000, 0, 999)
    ]
    skipped = {s.label: s.reason for s in d.skipped}
    assert skipped["overfit"] == "no validation loss logged"
    assert d.source["format"] == "jsonl" and d.warnings == ["line 3: skipped"]
    assert Diagnosis.from_dict(json.loads(d.to_json())).to_dict() == d.to_dict()


def test_findings_ordered_by_severity_and_causes_attached():
    d = diagnose(_blown())
    # the loss blew up on finite values before it went NaN: the divergence leads (explains.LEADS)
    assert d.verdict == "exploding" and d.labels[:2] == ["exploding", "nan"]
    ranks = [severity_rank(label) for label in d.labels[1:]]
    assert ranks == sorted(ranks)
    for f in d.findings:
        assert f.causes and [c.rank for c in f.causes] == list(range(1, len(f.causes) + 1))
        scores = [c.score for c in f.causes]
        assert scores == sorted(scores, reverse=True)
    # the grad norm ran away before the NaN: the blow-up cause comes first
    assert d.findings[0].causes[0].probe == "lr_drop"


def test_order_findings_breaks_ties_by_confidence():
    a = Finding("plateau", 0.6, None, {}, "a")
    b = Finding("plateau", 0.9, None, {}, "b")
    c = Finding("nan", 0.5, Span(0, 1), {}, "c")
    assert [f.summary for f in order_findings([a, b, c])] == ["c", "b", "a"]


def test_a_doubtful_finding_follows_every_likely_one_whatever_its_severity():
    doubtful_overfit = Finding("overfit", LIKELY - 0.1, None, {}, "overfit")
    likely_spikes = Finding("loss_spikes", 0.8, None, {}, "spikes")
    likely_nan = Finding("nan", LIKELY, None, {}, "nan")
    doubtful_plateau = Finding("plateau", 0.2, None, {}, "plateau")
    ordered = likely_first(
        order_findings([doubtful_plateau, likely_spikes, doubtful_overfit, likely_nan])
    )
    # each group keeps its severity order; at exactly LIKELY a finding counts as likely
    assert [f.summary for f in ordered] == ["nan", "spikes", "overfit", "plateau"]
    # all doubtful: the most severe doubtful one still leads
    assert likely_first([doubtful_overfit, doubtful_plateau])[0] is doubtful_overfit


@pytest.fixture(scope="module")
def unshuffled_corpus_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The own corpus's `unshuffled-jsonl-100008`: a clear sawtooth (unshuffled, 0.9) beside a val
    loss that drifts up within its noise (overfit, about 0.4)."""
    root = tmp_path_factory.mktemp("corpus")
    with tarfile.open(CORPUS) as tar:
        members = [m for m in tar.getmembers() if "/unshuffled-jsonl-100008/" in m.name]
        tar.extractall(root, members=members, filter="data")
    return root / "runs" / "unshuffled-jsonl-100008"


def test_a_likely_sawtooth_takes_the_verdict_from_a_doubtful_overfit(unshuffled_corpus_run):
    [d] = diagnose_source(unshuffled_corpus_run)[1]
    conf = {f.label: f.confidence for f in d.findings}
    assert conf["unshuffled"] >= LIKELY > conf["overfit"]
    # overfit is the more severe label, but the run more likely has the sawtooth
    assert d.verdict == "unshuffled" and d.labels == ["unshuffled", "overfit"]


def test_a_bouncing_loss_is_oscillating_alone_its_jumps_the_swings(tmp_path):
    """The own corpus's `oscillating-mlflow-50029`: a loss bouncing around a flat trend, whose
    swings the spike check also read as jumps. One problem, reported once: the jumps are the
    oscillation's evidence, not a second label."""
    with tarfile.open(CORPUS) as tar:
        members = [m for m in tar.getmembers() if "/oscillating-mlflow-50029/" in m.name]
        tar.extractall(tmp_path, members=members, filter="data")
    [d] = diagnose_source(tmp_path / "runs" / "oscillating-mlflow-50029")[1]
    assert d.labels == ["oscillating"]
    osc = d.findings[0]
    assert [e["label"] for e in osc.evidence.get("explains", [])] == ["loss_spikes"]


def test_several_runs_need_diagnose_all_in_order_of_appearance():
    frame = concat_frames([_blown("zeta"), _healthy("alpha")])
    with pytest.raises(InputError, match="2 runs .* use diagnose_all"):
        diagnose(frame)
    out = diagnose_all(frame)
    assert [d.run for d in out] == ["zeta", "alpha"]
    assert [d.verdict for d in out] == ["exploding", "healthy"]


def test_empty_frame_and_a_bad_frame():
    d = diagnose(make_frame("r", [], [], []))
    assert d.verdict == "inconclusive" and d.metrics == [] and len(d.skipped) >= 7
    assert diagnose_all(make_frame("r", [], [], [])) == []
    with pytest.raises(InvalidFrameError):
        diagnose(_healthy().drop(columns=["seq"]))


def test_metrics_list_every_metric_in_order_of_appearance():
    frame = make_frame("r", ["lr", "loss", "loss", "val_loss"], [0, 0, 1, 1], [1, 2, 1, 2])
    assert [m.metric for m in diagnose(frame).metrics] == ["lr", "loss", "val_loss"]


class _Broken(Classifier):
    label = "nan"

    def detect(self, run):
        raise ZeroDivisionError("bug")


def test_a_classifier_bug_costs_only_its_own_label_and_is_logged(caplog):
    from lossforensics.classifiers.registry import all_classifiers

    others = [c for c in all_classifiers() if c.label != "nan"]
    spiky = _healthy()
    with caplog.at_level("ERROR", logger="lossforensics.classifiers"):
        d = diagnose(spiky, classifiers=[_Broken(), *others])
    assert d.verdict == "healthy" and [s.label for s in d.skipped if "bug" in s.reason] == ["nan"]
    reason = next(s.reason for s in d.skipped if s.label == "nan")
    assert "ZeroDivisionError: bug" in reason
    assert any("classifier nan failed" in r.message and r.exc_info for r in caplog.records)


def test_strict_diagnosis_reraises_a_classifier_bug():
    with pytest.raises(ZeroDivisionError):
        diagnose(_healthy(), classifiers=[_Broken()], strict=True)


def test_a_million_points_diagnose_without_a_false_alarm():
    n = 1_000_000
    s = np.arange(n)
    loss = 0.4 + 2 * np.exp(-s / (n / 4)) + 0.05 * RNG.standard_normal(n)
    loss[n // 2] = 40.0  # one spike survives the bucketing of a long series
    d = diagnose(make_frame("big", ["loss"] * n, s, loss))
    assert d.labels == ["loss_spikes"]
    assert d.findings[0].span.start_step == n // 2


@pytest.mark.parametrize("extra", [0, 40])  # a few metrics: read by rows; many: one sort
def test_metric_infos_match_a_pandas_groupby_on_interleaved_metrics_and_repeated_steps(extra):
    from lossforensics.classifiers.diagnose import _metric_infos_grouped, metric_infos
    from lossforensics.classifiers.run import RunSeries

    rng = np.random.default_rng(4)
    names = np.array(["val_loss", "loss", "lr", "grad_norm", "accuracy"])
    names = np.r_[names, [f"layer{i}/grad_norm" for i in range(extra)]]
    metric = names[rng.integers(0, len(names), 500)]
    step = rng.integers(0, 120, 500)  # out of order, with repeats (a resumed run)
    frame = make_frame("r", metric, step, rng.normal(size=500), seq=rng.permutation(500))
    run = RunSeries(frame, "r")
    infos = metric_infos(run)
    assert infos == _metric_infos_grouped(run.frame)
    assert infos[0].metric == metric[np.argmin(np.asarray(frame["seq"]))]
    assert sum(i.points for i in infos) == 500


def test_healthy_with_almost_nothing_judged_says_so():
    # a training loss, six points: most checks are skipped, so "healthy" is only the absence
    # of findings, and the diagnosis must say that
    d = diagnose(make_frame("thin", ["loss"] * 6, range(6), [1.0, 0.8, 0.65, 0.55, 0.5, 0.47]))
    assert d.verdict == "healthy"
    assert any("checks could judge this run" in w for w in d.warnings), d.warnings
    # near miss: a train loss alone is enough for the checks that read it
    full = diagnose(_healthy())
    assert full.verdict == "healthy"
    assert not any("checks could judge" in w for w in full.warnings), full.skipped


@pytest.mark.parametrize(
    "metric, values, why",
    [
        ("loss", [1.0, 0.9, 0.8], "too few points"),
        ("val_loss", [1.0, 0.9, 0.85], "no training loss"),
        ("accuracy", list(np.linspace(0.1, 0.9, 40)), "no loss-like metric"),
    ],
)
def test_a_run_no_check_could_judge_is_inconclusive_never_healthy(metric, values, why):
    d = diagnose(make_frame("r", [metric] * len(values), range(len(values)), values))
    assert d.verdict == "inconclusive", why
    assert not d.findings and d.skipped
    assert any(w.startswith("inconclusive:") for w in d.warnings)
    assert d.to_dict()["verdict"] == "inconclusive"


def test_a_short_run_a_course_check_could_judge_can_be_healthy():
    d = diagnose(make_frame("r", ["loss"] * 6, range(6), [1.0, 0.8, 0.65, 0.55, 0.5, 0.47]))
    assert d.verdict == "healthy"
    assert not any(w.startswith("inconclusive:") for w in d.warnings)


def _short_lightning(epochs: int, steps_per_epoch: int = 10):
    """A Lightning metrics.csv's two granularities of one flat loss (stuck at a unigram level):
    `train_loss_step` every step, `train_loss_epoch` once an epoch."""
    from tests.classifiers._labelled import frame_of

    steps = np.arange(epochs * steps_per_epoch)
    step_loss = 7.43 + 0.03 * RNG.standard_normal(len(steps))
    ends = np.arange(steps_per_epoch - 1, len(steps), steps_per_epoch)
    epoch_loss = step_loss.reshape(epochs, steps_per_epoch).mean(axis=1)
    return frame_of(train_loss_step=(steps, step_loss), train_loss_epoch=(ends, epoch_loss))


def test_a_primary_too_short_to_judge_is_read_at_its_finest_logging():
    # 4 epoch means are too few for plateau (5); the 40 logged steps of the same loss are not
    d = diagnose(_short_lightning(4))
    assert d.verdict == "plateau"
    plateau = next(f for f in d.findings if f.label == "plateau")
    assert plateau.evidence["read_finer"] == {"train_loss_step": "train_loss_epoch"}
    # a label the epoch means already suffice for reads them, as before
    d = diagnose(_short_lightning(8))
    plateau = next(f for f in d.findings if f.label == "plateau")
    assert "read_finer" not in plateau.evidence


def test_a_run_without_a_finer_series_keeps_its_skip_reasons():
    from tests.classifiers._labelled import frame_of

    ep = np.arange(4)
    d = diagnose(frame_of(train_loss_epoch=(ep, 7.43 + 0.001 * ep)))
    skipped = {s.label: s.reason for s in d.skipped}
    assert skipped["plateau"] == "training loss has 4 point(s); plateau needs at least 5"
    assert "plateau" not in {f.label for f in d.findings}
