"""lossforensics' I/O side: ingest, storage, HTTP API, CLI, client and reports.

    >>> from app import diagnose_path
    >>> diagnose_path("runs/exp7")      # read + diagnose locally, no server (see app.local)

Exports load lazily, so `import app` (and every `import app.<module>`) stays light.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from app.local import diagnose_path

__all__ = ["diagnose_path"]


def __getattr__(name: str) -> Any:
    if name == "diagnose_path":
        from app.local import diagnose_path

        return diagnose_path
    raise AttributeError(f"module 'app' has no attribute {name!r}")
