import io
import json

import numpy as np
import pytest
from lossforensics.classifiers.labels import ALL_LABELS, VERDICTS
from lossforensics.cli import main
from lossforensics.commands.diagnose import diagnose_path, render
from rich.console import Console

TOP_KEYS = {"run", "source", "metrics", "verdict", "findings", "skipped", "set_aside", "warnings"}
FINDING_KEYS = {"label", "confidence", "span", "evidence", "summary", "causes"}
CAUSE_KEYS = {"rank", "cause", "score", "checks", "probe"}


def _assert_schema(d: dict) -> None:
    assert set(d) == TOP_KEYS
    assert set(d["source"]) == {"format", "files"} and d["source"]["files"]
    assert d["verdict"] in VERDICTS
    for m in d["metrics"]:
        assert set(m) == {"metric", "role", "points", "first_step", "last_step"}
    for f in d["findings"]:
        assert set(f) == FINDING_KEYS and f["label"] in ALL_LABELS
        assert 0.0 <= f["confidence"] <= 1.0
        assert f["span"] is None or set(f["span"]) == {"start_step", "end_step"}
        assert f["causes"] and all(set(c) == CAUSE_KEYS for c in f["causes"])
        assert [c["rank"] for c in f["causes"]] == list(range(1, len(f["causes"]) + 1))
    for s in d["skipped"] + d["set_aside"]:
        assert set(s) == {"label", "reason"} and s["label"] in ALL_LABELS
    if d["findings"]:
        assert d["verdict"] == d["findings"][0]["label"]
    else:
        assert d["verdict"] in {"healthy", "inconclusive"}


def _write_jsonl(path, train, val, train_name="loss", val_name="val_loss"):
    with open(path, "w") as fh:
        for i, (t, v) in enumerate(zip(train, val, strict=True)):
            fh.write(json.dumps({"step": i * 100, train_name: t, val_name: v}) + "\n")


@pytest.fixture
def overfit_jsonl(tmp_path):
    ep = np.arange(30)
    train = 0.05 + 2.0 * np.exp(-ep / 6)
    val = np.where(ep < 10, 1.5 - 0.08 * ep, 0.7 + 0.04 * (ep - 10))
    path = tmp_path / "log.jsonl"
    _write_jsonl(path, train.tolist(), val.tolist(), "objective", "held_out")
    return path


def test_json_for_one_run_is_one_diagnosis_object(real_runs, capsys):
    assert main(["diagnose", str(real_runs / "tb_keras_imdb_overfit"), "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    _assert_schema(d)
    assert d["verdict"] == "overfit" and d["source"]["format"] == "tensorboard"
    overfit = d["findings"][0]
    assert overfit["evidence"]["val_min_fraction"] < 0.5 and overfit["span"]["end_step"] == 19


def test_json_for_several_runs_is_a_list(real_runs, capsys):
    path = real_runs / "wandb_nanogpt_tokenizer_variants" / "wandb_export.csv"
    assert main(["diagnose", str(path), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert isinstance(out, list) and len(out) == 8
    for d in out:
        _assert_schema(d)
    verdicts = {d["run"]: d["verdict"] for d in out}
    assert verdicts["gpt2"] == "healthy"


def test_readable_output_shows_verdict_causes_checks_and_skips(real_runs, capsys):
    assert main(["diagnose", str(real_runs / "jsonl_detectron2_medwaste_lr_step")]) == 0
    out = capsys.readouterr().out
    assert "verdict:" in out and "lr_decayed_too_early" in out
    assert "first check:" in out and "Not judged" in out and "overfit" in out


def test_role_overrides_reach_the_classifiers(overfit_jsonl, capsys):
    args = [
        "diagnose",
        str(overfit_jsonl),
        "--json",
        "--format",
        "jsonl",
        "--role",
        "objective=train_loss",
        "--role",
        "held_out=val_loss",
    ]
    assert main(args) == 0
    d = json.loads(capsys.readouterr().out)
    _assert_schema(d)
    assert "overfit" in [f["label"] for f in d["findings"]]
    assert {m["metric"]: m["role"] for m in d["metrics"]}["held_out"] == "val_loss"


def test_missing_path_is_a_typed_error_with_exit_2(tmp_path, capsys):
    assert main(["diagnose", str(tmp_path / "nope")]) == 2
    assert "error [no_logs]" in capsys.readouterr().err


def test_bad_role_override_is_a_usage_error(overfit_jsonl, capsys):
    assert main(["diagnose", str(overfit_jsonl), "--role", "objective"]) == 2
    assert main(["diagnose", str(overfit_jsonl), "--role", "objective=weights"]) == 2


def test_render_takes_the_console_and_says_healthy(tmp_path):
    ep = np.arange(40)
    train = (0.2 + np.exp(-ep / 8)).tolist()
    _write_jsonl(tmp_path / "ok.jsonl", train, [t + 0.05 for t in train])
    buf = io.StringIO()
    render(diagnose_path(tmp_path / "ok.jsonl"), Console(file=buf, width=120))
    text = buf.getvalue()
    assert "verdict: healthy" in text and "No problem found" in text


def test_a_nan_judged_benign_is_set_aside_with_why_not_left_unsaid(tmp_path, capsys):
    # YOLO-style: the second evaluation is NaN (nothing predicted yet), finite after
    ep = np.arange(40)
    train = (0.2 + np.exp(-ep / 8)).tolist()
    val = [t + 0.05 for t in train]
    val[1] = float("nan")
    _write_jsonl(tmp_path / "yolo.jsonl", train, val)
    assert main(["diagnose", str(tmp_path / "yolo.jsonl"), "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    _assert_schema(d)
    assert d["verdict"] == "healthy"
    [aside] = d["set_aside"]
    assert aside["label"] == "nan" and "val_loss (NaN at step 100)" in aside["reason"]
    buf = io.StringIO()
    render(diagnose_path(tmp_path / "yolo.jsonl"), Console(file=buf, width=300))
    assert "Set aside (nan): non-finite at one early evaluation only" in buf.getvalue()


def test_a_run_nothing_could_judge_is_inconclusive_says_why_and_exits_0(tmp_path, capsys):
    # one training loss and one evaluation (overfit reads two evaluations and up)
    path = tmp_path / "short.jsonl"
    _write_jsonl(path, [1.0], [1.1])
    buf = io.StringIO()
    render(diagnose_path(path), Console(file=buf, width=200))
    text = buf.getvalue()
    assert "verdict: inconclusive" in text and "not a healthy verdict" in text
    assert "needs at least" in text  # the reasons
    assert main(["diagnose", str(path), "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    _assert_schema(d)
    assert d["verdict"] == "inconclusive" and not d["findings"]
    # exit 1 only when the user asks for it
    assert main(["diagnose", str(path), "--fail-on", "inconclusive"]) == 1
    assert "--fail-on: 1 run(s) have inconclusive" in capsys.readouterr().err
    assert main(["diagnose", str(path), "--fail-on", "nan"]) == 0
