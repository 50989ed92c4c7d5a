"""Markdown files in a walked folder: a model card's results table is read when the card is
given itself, or when a folder given to `load_run` holds no other log; never picked up by
discovery, nor beside another log."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from lossforensics.classifiers.errors import NoLogsFoundError
from lossforensics.discover import discover_runs
from lossforensics.ingest import load_run

CARD = """# whisper-small-xx

This model is a fine-tuned version of openai/whisper-small.

### Training results

| Training Loss | Epoch | Step | Validation Loss | Wer     |
|:-------------:|:-----:|:----:|:---------------:|:-------:|
| 0.2631        | 1.0   | 500  | 0.3342          | 41.2095 |
| 0.0871        | 2.0   | 1000 | 0.2911          | 35.1134 |
| 0.0302        | 3.0   | 1500 | 0.3018          | 33.8712 |
"""


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


@pytest.fixture()
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "models"
    state = {"log_history": [{"step": 500, "loss": 0.2631}, {"step": 1000, "loss": 0.0871}]}
    _write(root / "whisper" / "trainer_state.json", json.dumps(state))
    _write(root / "whisper" / "README.md", CARD)
    _write(root / "card_only" / "README.md", CARD)
    _write(root / "docs" / "README.md", "# Notes\n\nWe trained for 3 epochs; loss 0.5.\n")
    _write(root / "docs" / "results.md", "| model | loss |\n|---|---|\n| a | 0.5 |\n")
    return root


def test_a_card_is_read_when_given_itself(repo: Path) -> None:
    result = load_run(repo / "card_only" / "README.md")
    assert result.format == "printed_table"
    assert {"Training Loss", "Validation Loss"} <= set(result.frame["metric"])


def test_a_folder_walk_takes_no_markdown_as_a_run_or_a_problem(repo: Path) -> None:
    found = discover_runs(repo)
    assert [(s.name, s.format) for s in found.sources] == [("whisper", "hf_trainer")]
    assert found.problems == []
    assert load_run(repo / "whisper").format == "hf_trainer"  # the card beside it is not read


def test_a_folder_holding_only_markdown_is_read_from_it_but_never_discovered(repo: Path) -> None:
    """`load_run` of a folder with no other log reads its markdown (a card's results table, a
    console log pasted into `train.md`); discovery still takes no markdown as a run, and a
    folder whose markdown holds no log has none."""
    assert load_run(repo / "card_only").format == "printed_table"
    assert discover_runs(repo / "card_only").sources == []
    with pytest.raises(NoLogsFoundError):
        load_run(repo / "docs")
    assert discover_runs(repo / "docs").sources == []
