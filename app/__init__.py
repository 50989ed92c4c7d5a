"""lossforensics: read a training run's logs, label what went wrong, rank the likely causes.

    >>> import lossforensics as lf
    >>> run = lf.load_run("runs/exp7")        # the normalised frame, with the reader's warnings
    >>> d = lf.diagnose("runs/exp7")          # a Diagnosis (several runs: a Diagnoses list)
    >>> d = lf.diagnose(run.frame)            # or diagnose a frame already in memory
    >>> summary = lf.audit("sweeps/")         # every run under a folder, by severity
    >>> with lf.Client("http://localhost:8000", token="...") as c:
    ...     c.upload("runs/exp7")

Everything here is imported on first use: `import lossforensics` and
`from lossforensics import Client` load neither pandas, scipy, matplotlib nor FastAPI.
The subpackages: `classifiers` (the pure analysis core), `ingest` (one reader a format),
`api`, `store`, `report`, `audit`, `cli`, `client`, and `probes` (the torch extra).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from lossforensics.client import Client
    from lossforensics.local import diagnose_path
    from lossforensics.public import audit, diagnose, load_run

__all__ = ["Client", "audit", "diagnose", "diagnose_path", "load_run"]
__version__ = "0.1.0"

_EXPORTS = {
    "Client": "lossforensics.client",
    "audit": "lossforensics.public",
    "diagnose": "lossforensics.public",
    "load_run": "lossforensics.public",
    "diagnose_path": "lossforensics.local",
}


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'lossforensics' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
