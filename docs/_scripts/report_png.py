"""Draws docs/img/report-exploding.png, the report picture on the front page and in the docs.

It is the service's own plot (lossforensics.report.plot.plot_run, as /v1/runs/{id}/plot.png
draws it) of a sample run and its diagnosis. Run it again after the plot or the sample changes:

    .venv/bin/python docs/_scripts/report_png.py
"""

from __future__ import annotations

from pathlib import Path

import lossforensics as lf
from lossforensics.report.plot import plot_run

REPO = Path(__file__).resolve().parents[2]
SAMPLE = REPO / "sample_runs" / "exploding_lightning"
OUT = REPO / "docs" / "img" / "report-exploding.png"


def main() -> None:
    run = lf.load_run(SAMPLE)
    diagnosis = lf.diagnose(run.frame, as_list=True)[0]
    OUT.write_bytes(plot_run(run.frame, diagnosis, size=(900, 560)))
    print(f"{OUT.relative_to(REPO)}: {diagnosis.run} -> {diagnosis.verdict}")


if __name__ == "__main__":
    main()
