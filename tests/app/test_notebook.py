"""The example notebook runs top to bottom against a live service, and its diagnosis cells
render as HTML tables with the plot."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.app._live_service import live_service

REPO = Path(__file__).resolve().parents[2]
NOTEBOOK = REPO / "examples" / "notebook.ipynb"


@pytest.mark.slow
def test_example_notebook_executes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    nb = nbformat.read(NOTEBOOK, as_version=4)
    with live_service(tmp_path / "data") as url:
        monkeypatch.setenv("LOSSFORENSICS_URL", url)
        monkeypatch.delenv("LOSSFORENSICS_EXAMPLE_RUN", raising=False)
        monkeypatch.setenv(
            "PYTHONPATH",
            os.pathsep.join([str(REPO), *filter(None, [os.environ.get("PYTHONPATH")])]),
        )
        client = nbclient.NotebookClient(
            nb, timeout=180, kernel_name="python3", resources={"metadata": {"path": str(REPO)}}
        )
        client.execute()

    def html_of(source_start: str) -> str:
        cell = next(
            c for c in nb.cells if c.cell_type == "code" and c.source.startswith(source_start)
        )
        return "".join(o.get("data", {}).get("text/html", "") for o in cell.outputs)

    remote = html_of("c = Client(")
    assert "<table" in remote and "nan" in remote and "data:image/png;base64," in remote
    assert "<table" in html_of("c.runs(")  # the DataFrame of runs
    local = html_of("local = diagnose_path(")
    assert "exploding" in local and "data:image/png;base64," in local
    printed = next(c for c in nb.cells if c.source.startswith("top = ")).outputs[0]["text"]
    assert printed.startswith("exploding ") and "1. " in printed  # the blow-up leads its NaN
