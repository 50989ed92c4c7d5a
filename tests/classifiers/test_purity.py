"""classifiers is the pure core: importing it (and running a diagnosis) must not pull in the
service, the probes, or any heavy optional dependency."""

import subprocess
import sys

FORBIDDEN = (
    "fastapi",
    "httpx",
    "typer",
    "torch",
    "starlette",
    "uvicorn",
    "sqlalchemy",
    "matplotlib",
    "app",
    "classifiers",
    "probes",
)
# The package itself is `lossforensics`; of it, only the core may load.
ALLOWED_OURS = ("lossforensics", "lossforensics.classifiers")

CODE = """
import sys
import numpy as np
from lossforensics import classifiers
from lossforensics.classifiers.diagnose import diagnose
from lossforensics.classifiers.frame import make_frame
from lossforensics.classifiers.registry import all_classifiers
all_classifiers()
diagnose(make_frame("r", ["loss"] * 50, np.arange(50), np.linspace(2, 1, 50)))
bad = sorted(m for m in sys.modules if m.split(".")[0] in {forbidden!r}
             or (m.startswith("lossforensics") and m not in {allowed!r}
                 and not m.startswith("lossforensics.classifiers.")))
print(",".join(bad))
"""


def test_classifiers_import_nothing_from_the_service_side():
    out = subprocess.run(
        [sys.executable, "-c", CODE.format(forbidden=set(FORBIDDEN), allowed=set(ALLOWED_OURS))],
        capture_output=True,
        text=True,
        check=True,
    )
    assert out.stdout.strip() == "", f"classifiers pulled in: {out.stdout.strip()}"
